-- SPDX-License-Identifier: GPL-2.0 OR MIT
--
-- mrc.lua - Wireshark/tshark dissector for MRC 1.0 (Multipath Reliable
-- Connection) as mrc.ko sends it.
--
--   tshark -o udp.try_heuristic_first:TRUE -X lua_script:tools/wireshark/mrc.lua \
--          -r capture.pcap
--   (or copy it to ~/.local/lib/wireshark/plugins/ to have it always loaded)
--
-- Every header of Documentation/networking/mrc-wire.rst by name: BTH, METH,
-- TSETH, RETH, ImmDt, AETH; the control headers SETH + CC_STATE, NETH,
-- PETH, ERTH, EETH with their prologue; our in-band handshake (a vendor
-- operation of ERTH/EETH), the EV rebuilt from UDP source port and flow
-- label, the SRv6 context the packet came in (SRH or uSID encapsulation),
-- and the ICRC verified by the RoCEv2 rule over the IPv6/UDP headers in front
-- of it. UDP port 4791 is shared with RoCEv2: a packet whose BTH opcode is
-- not one of MRC's twelve goes to Wireshark's own RRoCE dissector
-- ("infiniband"); the heuristic form claims MRC packets whose source port
-- Wireshark would otherwise give to another protocol.
--
-- Malformed input never raises a Lua error: every read is bounds-checked and
-- what cannot be decoded is an expert-info error (_ws.expert), which the
-- capture test counts.

local mrc = Proto("mrc", "MRC (Multipath Reliable Connection)")

local OP = {
	[0xc6] = "WRITE_FIRST", [0xc7] = "WRITE_MIDDLE", [0xc8] = "WRITE_LAST",
	[0xc9] = "WRITE_LAST_IMM", [0xca] = "WRITE_ONLY", [0xcb] = "WRITE_ONLY_IMM",
	[0xd1] = "ACK", [0xd8] = "EP_REQ (ERTH)", [0xd9] = "EP_RESP (EETH)",
	[0xdc] = "SACK (SETH)", [0xdd] = "NACK (NETH)", [0xde] = "PROBE (PETH)",
}
local NACK_REASON = {
	[0x01] = "TRIMMED", [0x02] = "TRIMMED_LASTHOP", [0x06] = "NO_BITMAP",
	[0x07] = "NO_PKT_BUFFER", [0x0a] = "NO_RESOURCE", [0x0b] = "PSN_OOR_WINDOW",
	[0x19] = "UNEXP_EVENT",
}
local M_NAMES = { [0] = "none", [1] = "SKIP_ONCE", [2] = "ALWAYS_SKIP", [3] = "undefined" }
local EP_OPS = { [0] = "PORT_STATUS_UPDATE", [1] = "EV_PROBE", [2] = "undefined",
	[3] = "vendor operation" }
local VENDOR_HS = { [0x10] = "connect (our extension)", [0x11] = "close (our extension)" }
local HDR_TYPES = { [1] = "SETH", [2] = "NETH", [3] = "PETH", [4] = "ERTH", [5] = "EETH" }
local NEXT_HDR = { [0] = "none", [1] = "CC_STATE", [0x1f] = "vendor body" }
local HS_STATUS = { [0] = "OK", [1] = "REFUSED", [2] = "INVAL", [3] = "RESET", [4] = "ABORT",
	[5] = "RETRY" }

local pf = {}
-- field(key, type, abbrev, label, base, valuestring, mask)
local function field(key, ftype, abbrev, label, ...)
	pf[key] = ProtoField[ftype]("mrc." .. abbrev, label, ...)
end

field("opcode", "uint8", "bth.opcode", "Opcode", base.HEX, OP)
field("se", "bool", "bth.se", "Solicited event", 8, nil, 0x80)
field("mig", "bool", "bth.m", "MigReq (M)", 8, nil, 0x40)
field("padcnt", "uint8", "bth.padcnt", "Pad count", base.DEC, nil, 0x30)
field("tver", "uint8", "bth.tver", "Transport version", base.DEC, nil, 0x0f)
field("pkey", "uint16", "bth.pkey", "Partition key", base.HEX)
field("resv8a", "uint8", "bth.resv8a", "Reserved (resv8a)", base.HEX)
field("destqp", "uint24", "bth.destqp", "Destination QP", base.HEX)
field("ackreq", "bool", "bth.a", "Ack request (A)", 8, nil, 0x80)
field("rtx", "bool", "bth.rtx", "Retransmission", 8, nil, 0x20)
field("ts", "bool", "bth.ts", "TSETH present", 8, nil, 0x10)
field("psn", "uint24", "bth.psn", "PSN", base.DEC)
field("token", "uint16", "ep.id", "Request id (BTH.PSN 15-0)", base.HEX)

field("rqmsn", "uint16", "meth.rqmsn", "RQMSN", base.DEC)
field("msn", "uint16", "meth.msn", "MSN", base.DEC)
field("txts", "uint16", "tseth.tx_ts", "TX timestamp (128 ns)", base.DEC)
field("tsr", "bool", "ts.tsr", "tsr", 16, nil, 0x8000)
field("ftype", "uint16", "ts.ftype", "Timestamp format type", base.DEC, nil, 0x000f)
field("va", "uint64", "reth.va", "Offset in message (VA)", base.DEC)
field("rkey", "uint32", "reth.rkey", "R_Key", base.HEX)
field("dmalen", "uint32", "reth.dmalen", "Message length (DMA len)", base.DEC)
field("imm", "uint32", "immdt", "Immediate data", base.HEX)
field("paylen", "uint32", "payload_len", "Payload length", base.DEC)
field("syndrome", "uint8", "aeth.syndrome", "Syndrome", base.HEX)
field("aethmsn", "uint24", "aeth.msn", "MSN", base.DEC)

field("htype", "uint8", "ctl.type", "Header type", base.DEC, HDR_TYPES)
field("nexthdr", "uint8", "ctl.next", "Next header", base.HEX, NEXT_HDR)
field("m", "uint8", "sack.m", "M (ECN summary)", base.DEC, M_NAMES, 0x60)
field("pr", "bool", "sack.pr", "Probe response (pr)", 8, nil, 0x02)
field("ackoff", "int16", "sack.ack_psn_offset", "ACK PSN offset", base.DEC)
field("probeans", "uint16", "sack.probe_id", "Probe id answered", base.DEC)
field("ev", "uint32", "ev", "Entropy value (EV)", base.HEX)
field("srcconn", "uint16", "src_conn", "Source connection id", base.DEC)
field("dstconn", "uint16", "dst_conn", "Destination connection id", base.DEC)
field("cack", "uint24", "sack.cack_psn", "Cumulative ACK PSN", base.DEC)
field("cctype", "uint8", "cc_type", "CC type", base.DEC, nil, 0xf0)
field("ccflags", "uint8", "cc_flags", "CC flags", base.HEX, nil, 0x0f)
field("mpr", "uint8", "sack.mpr", "MPR (x128 PSNs)", base.DEC)
field("sackoff", "int16", "sack.sack_offset", "SACK offset", base.DEC)
field("bitmap", "uint64", "sack.bitmap", "SACK bitmap", base.HEX)
field("echots", "uint16", "echoed_ts", "Echoed TX timestamp", base.DEC)
field("ooo", "uint16", "cc.ooo_count", "Out-of-order count", base.DEC, nil, 0x7fff)
field("rc", "bool", "cc.restore_cwnd", "Restore cwnd (r_c)", 8, nil, 0x80)
field("pen", "uint8", "cc.rcv_cwnd_pen", "Receiver cwnd penalty", base.DEC, nil, 0x7f)
field("bytes", "uint24", "cc.rcvd_bytes", "Received bytes (x256)", base.DEC)
field("reason", "uint8", "nack.reason", "NACK reason", base.HEX, NACK_REASON)
field("vendor", "uint8", "vendor", "Vendor info", base.HEX)
field("nackpsn", "uint24", "nack.psn", "NACKed PSN", base.DEC)
field("probeid", "uint16", "probe.id", "Probe id", base.DEC)
field("erthop", "uint8", "ep.op", "Operation", base.DEC, EP_OPS, 0x03)
field("eethop", "uint8", "ep.op", "Operation", base.DEC, EP_OPS, 0x30)
field("hskind", "uint8", "hs.kind", "Handshake", base.HEX, VENDOR_HS)
field("portmask", "uint32", "ep.port_mask", "Port status mask", base.HEX)
field("dstsvc", "uint16", "hs.dst_service", "Destination service", base.DEC)
field("srcsvc", "uint16", "hs.src_service", "Source service", base.DEC)
field("srcqpn", "uint24", "hs.src_qpn", "Source QPN", base.HEX)
field("status", "uint8", "hs.status", "Status", base.DEC, HS_STATUS)
field("dstqpn", "uint24", "hs.dst_qpn", "Destination QPN", base.HEX)
field("initpsn", "uint24", "hs.init_psn", "Initial PSN", base.DEC)
field("maxmsg", "uint32", "hs.max_msg_len", "Max message length", base.DEC)
field("resv", "bytes", "reserved", "Reserved")
field("icrc", "uint32", "icrc", "ICRC", base.HEX)
field("icrcok", "bool", "icrc.ok", "ICRC valid")
field("plane", "uint8", "plane", "Plane (EV bits 31-24)", base.DEC)
field("encap", "string", "encap", "Encapsulation")
field("kind", "string", "kind", "Header kind")

local ef = {
	malformed = ProtoExpert.new("mrc.malformed", "Malformed MRC packet",
		expert.group.MALFORMED, expert.severity.ERROR),
	icrc = ProtoExpert.new("mrc.icrc.bad", "ICRC mismatch",
		expert.group.CHECKSUM, expert.severity.ERROR),
	resv = ProtoExpert.new("mrc.reserved", "Reserved field not zero",
		expert.group.PROTOCOL, expert.severity.WARN),
}

local plist = {}
for _, v in pairs(pf) do plist[#plist + 1] = v end
mrc.fields = plist
mrc.experts = { ef.malformed, ef.icrc, ef.resv }

local f_ip6src = Field.new("ipv6.src")
local f_ip6dst = Field.new("ipv6.dst")
local f_ip6flow = Field.new("ipv6.flow")
local f_ip6nxt = Field.new("ipv6.nxt")
local f_srh = Field.new("ipv6.routing.type")
local f_sport = Field.new("udp.srcport")
local f_dport = Field.new("udp.dstport")

-- CRC-32 (IEEE, reflected 0xEDB88320), table-driven, state not inverted.
local crctab = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		if bit32.band(c, 1) == 1 then
			c = bit32.bxor(0xedb88320, bit32.rshift(c, 1))
		else
			c = bit32.rshift(c, 1)
		end
	end
	crctab[i] = c
end
local function crc_update(state, bytes, from, to)
	for i = from, to do
		local b = bytes:get_index(i)
		state = bit32.bxor(crctab[bit32.band(bit32.bxor(state, b), 0xff)],
			bit32.rshift(state, 8))
	end
	return state
end

local function last(f)
	local all = { f() }
	return all[#all]
end

-- The RoCEv2 ICRC of the MRC bytes (BTH .. pad) carried in IPv6/UDP.
local function icrc_of(tvb, len, src, dst, sport, dport)
	local ba = ByteArray.new()
	ba:set_size(8 + 48)
	for i = 0, 7 do ba:set_index(i, 0xff) end
	local h = { 0x6f, 0xff, 0xff, 0xff }
	local ulen = len + 4 + 8
	h[5] = bit32.rshift(ulen, 8); h[6] = bit32.band(ulen, 0xff)
	h[7] = 17; h[8] = 0xff
	for i = 1, 8 do ba:set_index(7 + i, h[i]) end
	for i = 0, 15 do ba:set_index(16 + i, src:get_index(i)) end
	for i = 0, 15 do ba:set_index(32 + i, dst:get_index(i)) end
	local u = { bit32.rshift(sport, 8), bit32.band(sport, 0xff),
		bit32.rshift(dport, 8), bit32.band(dport, 0xff),
		bit32.rshift(ulen, 8), bit32.band(ulen, 0xff), 0xff, 0xff }
	for i = 1, 8 do ba:set_index(47 + i, u[i]) end
	local st = crc_update(0xffffffff, ba, 0, ba:len() - 1)
	local mb = tvb:range(0, len):bytes()
	mb:set_index(4, 0xff)	-- resv8a is masked
	st = crc_update(st, mb, 0, len - 1)
	return bit32.bnot(st)
end

local DATA_OPS = { [0xc6] = true, [0xc7] = true, [0xc8] = true, [0xc9] = true,
	[0xca] = true, [0xcb] = true }
local IMM_OPS = { [0xc9] = true, [0xcb] = true }

-- Control-header prologue: type (byte 0 7-4), 5-bit next header.
local function prologue(tvb, off, tree)
	local b0, b1 = tvb(off, 1):uint(), tvb(off + 1, 1):uint()
	local ht = bit32.rshift(b0, 4)
	local nh = bit32.bor(bit32.lshift(bit32.band(b0, 0xf), 1), bit32.rshift(b1, 7))
	tree:add(pf.htype, tvb(off, 1), ht)
	tree:add(pf.nexthdr, tvb(off, 2), nh)
	return ht, nh
end

local function add_ts_word(tree, tvb, off)
	tree:add(pf.tsr, tvb(off, 2))
	tree:add(pf.ftype, tvb(off, 2))
end

local function hs_body(tvb, off, tree)
	local t = tree:add(mrc, tvb(off, 24), "Handshake body (our extension)")
	t:add(pf.dstsvc, tvb(off, 2))
	t:add(pf.srcsvc, tvb(off + 2, 2))
	t:add(pf.srcqpn, tvb(off + 4, 3))
	t:add(pf.status, tvb(off + 7, 1))
	t:add(pf.dstqpn, tvb(off + 8, 3))
	t:add(pf.srcconn, tvb(off + 12, 2))
	t:add(pf.dstconn, tvb(off + 14, 2))
	t:add(pf.initpsn, tvb(off + 16, 3))
	t:add(pf.maxmsg, tvb(off + 20, 4))
end

local CTL_LEN = { [0xd1] = 4, [0xdc] = 36, [0xdd] = 20, [0xde] = 16, [0xd9] = 36 }

-- Decode one MRC packet; returns false when it is not MRC at all.
local function dissect(tvb, pinfo, root)
	local n = tvb:len()
	if n < 16 then return false end
	local op = tvb(0, 1):uint()
	if not OP[op] then return false end
	pinfo.cols.protocol = "MRC"
	local tree = root:add(mrc, tvb(), "MRC, " .. OP[op])
	local bad = function(msg)
		tree:add_proto_expert_info(ef.malformed, msg)
		pinfo.cols.info:append(" [malformed: " .. msg .. "]")
	end

	-- EV (UDP source port + low 16 bits of the flow label) and encapsulation
	local sport, dport = last(f_sport), last(f_dport)
	local flow = last(f_ip6flow)
	local ev = nil
	if sport and flow then
		ev = bit32.bor(bit32.lshift(bit32.band(flow.value, 0xffff), 16), sport.value)
		tree:add(pf.ev, ev):set_generated()
		tree:add(pf.plane, bit32.rshift(ev, 24)):set_generated()
	end
	local nips = #{ f_ip6src() }
	local encap = "none"
	if f_srh() then encap = "SRv6 SRH" elseif nips > 1 then encap = "SRv6 uSID (IPv6 in IPv6)" end
	tree:add(pf.encap, encap):set_generated()

	-- BTH
	local bth = tree:add(mrc, tvb(0, 12), "Base Transport Header")
	bth:add(pf.opcode, tvb(0, 1))
	bth:add(pf.se, tvb(1, 1)); bth:add(pf.mig, tvb(1, 1))
	bth:add(pf.padcnt, tvb(1, 1)); bth:add(pf.tver, tvb(1, 1))
	bth:add(pf.pkey, tvb(2, 2))
	bth:add(pf.resv8a, tvb(4, 1))
	bth:add(pf.destqp, tvb(5, 3))
	bth:add(pf.ackreq, tvb(8, 1)); bth:add(pf.rtx, tvb(8, 1)); bth:add(pf.ts, tvb(8, 1))
	local psn = tvb(9, 3):uint()
	bth:add(pf.psn, tvb(9, 3))
	if tvb(4, 1):uint() ~= 0 or bit32.band(tvb(8, 1):uint(), 0x4f) ~= 0 then
		bth:add_proto_expert_info(ef.resv)
	end
	local qp = tvb(5, 3):uint()
	local info = string.format("%s QP=0x%06x", OP[op], qp)

	-- ICRC: RoCEv2 rule over the inner (last) IPv6 header and UDP
	local src, dst = last(f_ip6src), last(f_ip6dst)
	if src and dst and sport and dport then
		local want = icrc_of(tvb, n - 4, src.range:bytes(), dst.range:bytes(),
			sport.value, dport.value)
		local got = tvb(n - 4, 4):le_uint()
		local it = tree:add_le(pf.icrc, tvb(n - 4, 4))
		local ok = got == want
		tree:add(pf.icrcok, ok):set_generated()
		if not ok then
			it:add_proto_expert_info(ef.icrc,
				string.format("ICRC mismatch: 0x%08x, expected 0x%08x", got, want))
			info = info .. " [bad ICRC]"
		end
	end

	local off = 12
	local kind
	if DATA_OPS[op] then
		kind = "data"
		tree:add(pf.kind, kind):set_generated()
		local ts = bit32.band(tvb(8, 1):uint(), 0x10) ~= 0
		local hl = 12 + 4 + (ts and 4 or 0) + 16 + (IMM_OPS[op] and 4 or 0)
		if n < hl + 4 then bad("data headers truncated"); return true end
		local meth = tree:add(mrc, tvb(off, 4), "METH")
		meth:add(pf.rqmsn, tvb(off, 2)); meth:add(pf.msn, tvb(off + 2, 2))
		local msn = tvb(off + 2, 2):uint()
		off = off + 4
		if ts then
			local t = tree:add(mrc, tvb(off, 4), "TSETH")
			t:add(pf.txts, tvb(off, 2)); add_ts_word(t, tvb, off + 2)
			off = off + 4
		end
		local r = tree:add(mrc, tvb(off, 16), "RETH")
		r:add(pf.va, tvb(off, 8)); r:add(pf.rkey, tvb(off + 8, 4))
		r:add(pf.dmalen, tvb(off + 12, 4))
		off = off + 16
		if IMM_OPS[op] then tree:add(pf.imm, tvb(off, 4)); off = off + 4 end
		local pad = bit32.rshift(bit32.band(tvb(1, 1):uint(), 0x30), 4)
		local plen = n - 4 - off - pad
		if plen < 0 then bad("pad count larger than the payload"); return true end
		tree:add(pf.paylen, plen):set_generated()
		info = info .. string.format(" PSN=%d MSN=%d len=%d", psn, msn, plen)
		if bit32.band(tvb(8, 1):uint(), 0x20) ~= 0 then info = info .. " rtx" end
	elseif op == 0xd1 then
		kind = "ack"
		tree:add(pf.kind, kind):set_generated()
		if n ~= 12 + 4 + 4 then bad("AETH length"); return true end
		tree:add(pf.syndrome, tvb(off, 1)); tree:add(pf.aethmsn, tvb(off + 1, 3))
	elseif op == 0xdc then
		kind = "sack"
		tree:add(pf.kind, kind):set_generated()
		if n ~= 12 + 36 + 4 then bad("SETH length"); return true end
		local s = tree:add(mrc, tvb(off, 28), "SETH")
		local ht, nh = prologue(tvb, off, s)
		if ht ~= 1 or nh ~= 1 then bad("SETH type/next header") end
		s:add(pf.m, tvb(off + 1, 1)); s:add(pf.pr, tvb(off + 1, 1))
		local pr = bit32.band(tvb(off + 1, 1):uint(), 0x02) ~= 0
		local m = bit32.rshift(bit32.band(tvb(off + 1, 1):uint(), 0x60), 5)
		if m == 3 then bad("M = 3") end
		if pr then s:add(pf.probeans, tvb(off + 2, 2)) else s:add(pf.ackoff, tvb(off + 2, 2)) end
		s:add(pf.ev, tvb(off + 4, 4))
		s:add(pf.srcconn, tvb(off + 8, 2)); s:add(pf.dstconn, tvb(off + 10, 2))
		s:add(pf.cack, tvb(off + 13, 3))
		s:add(pf.cctype, tvb(off + 16, 1)); s:add(pf.ccflags, tvb(off + 16, 1))
		s:add(pf.mpr, tvb(off + 17, 1))
		s:add(pf.sackoff, tvb(off + 18, 2))
		s:add(pf.bitmap, tvb(off + 20, 8))
		if tvb(off + 12, 1):uint() ~= 0 or bit32.band(tvb(off + 1, 1):uint(), 0x1d) ~= 0 then
			s:add_proto_expert_info(ef.resv)
		end
		local c = tree:add(mrc, tvb(off + 28, 8), "CC_STATE")
		c:add(pf.echots, tvb(off + 28, 2)); c:add(pf.ooo, tvb(off + 30, 2))
		c:add(pf.rc, tvb(off + 32, 1)); c:add(pf.pen, tvb(off + 32, 1))
		c:add(pf.bytes, tvb(off + 33, 3))
		info = info .. string.format(" cack=%d%s%s", tvb(off + 13, 3):uint(),
			pr and " pr" or "", m ~= 0 and (" M=" .. M_NAMES[m]) or "")
	elseif op == 0xdd then
		kind = "nack"
		tree:add(pf.kind, kind):set_generated()
		if n ~= 12 + 20 + 4 then bad("NETH length"); return true end
		local s = tree:add(mrc, tvb(off, 20), "NETH")
		local ht, nh = prologue(tvb, off, s)
		if ht ~= 2 or nh ~= 0 then bad("NETH type/next header") end
		s:add(pf.reason, tvb(off + 2, 1)); s:add(pf.vendor, tvb(off + 3, 1))
		local reason = tvb(off + 2, 1):uint()
		if not NACK_REASON[reason] then bad("unknown NACK reason") end
		s:add(pf.ev, tvb(off + 4, 4))
		s:add(pf.srcconn, tvb(off + 8, 2)); s:add(pf.dstconn, tvb(off + 10, 2))
		s:add(pf.nackpsn, tvb(off + 13, 3))
		s:add(pf.cctype, tvb(off + 16, 1)); s:add(pf.ccflags, tvb(off + 16, 1))
		s:add(pf.echots, tvb(off + 18, 2))
		info = info .. string.format(" %s psn=%d", NACK_REASON[reason] or "?",
			tvb(off + 13, 3):uint())
	elseif op == 0xde then
		kind = "probe"
		tree:add(pf.kind, kind):set_generated()
		if n ~= 12 + 16 + 4 then bad("PETH length"); return true end
		local s = tree:add(mrc, tvb(off, 16), "PETH")
		local ht, nh = prologue(tvb, off, s)
		if ht ~= 3 or nh ~= 0 then bad("PETH type/next header") end
		s:add(pf.vendor, tvb(off + 3, 1))
		s:add(pf.probeid, tvb(off + 4, 2))
		s:add(pf.srcconn, tvb(off + 8, 2)); s:add(pf.dstconn, tvb(off + 10, 2))
		s:add(pf.txts, tvb(off + 12, 2)); add_ts_word(s, tvb, off + 14)
		if psn ~= 0 then s:add_proto_expert_info(ef.resv, "BTH.PSN of a probe is reserved") end
		info = info .. string.format(" id=%d", tvb(off + 4, 2):uint())
	elseif op == 0xd8 then
		kind = "erth"
		tree:add(pf.kind, kind):set_generated()
		if n < 12 + 16 + 4 then bad("ERTH length"); return true end
		local s = tree:add(mrc, tvb(off, 16), "ERTH")
		local ht, nh = prologue(tvb, off, s)
		local eop = bit32.band(tvb(off + 1, 1):uint(), 0x03)
		s:add(pf.erthop, tvb(off + 1, 1))
		s:add(pf.token, tvb(10, 2)):set_generated()
		local vend = tvb(off + 3, 1):uint()
		if eop == 3 then s:add(pf.hskind, tvb(off + 3, 1)) else s:add(pf.vendor, tvb(off + 3, 1)) end
		s:add(pf.portmask, tvb(off + 4, 4))
		s:add(pf.txts, tvb(off + 12, 2)); add_ts_word(s, tvb, off + 14)
		local want = (eop == 3) and 12 + 16 + 24 + 4 or 12 + 16 + 4
		if ht ~= 4 or nh ~= ((eop == 3) and 0x1f or 0) then bad("ERTH type/next header") end
		if eop == 2 or (eop == 3 and not VENDOR_HS[vend]) then bad("ERTH operation") end
		if n ~= want then bad("ERTH length"); return true end
		if eop == 3 then hs_body(tvb, off + 16, tree) end
		info = info .. " " .. (eop == 3 and (VENDOR_HS[vend] or "?") or EP_OPS[eop])
	elseif op == 0xd9 then
		kind = "eeth"
		tree:add(pf.kind, kind):set_generated()
		if n ~= 12 + 36 + 4 then bad("EETH length"); return true end
		local s = tree:add(mrc, tvb(off, 36), "EETH")
		local ht, nh = prologue(tvb, off, s)
		if ht ~= 5 or nh ~= 0 then bad("EETH type/next header") end
		local eop = bit32.rshift(bit32.band(tvb(off + 1, 1):uint(), 0x30), 4)
		s:add(pf.eethop, tvb(off + 1, 1))
		s:add(pf.token, tvb(10, 2)):set_generated()
		local vend = tvb(off + 3, 1):uint()
		if eop == 3 then
			s:add(pf.hskind, tvb(off + 3, 1))
			if not VENDOR_HS[vend] then bad("EETH vendor operation") end
			hs_body(tvb, off + 4, tree)
		else
			s:add(pf.vendor, tvb(off + 3, 1))
		end
		s:add(pf.echots, tvb(off + 28, 2))
		info = info .. " " .. (eop == 3 and (VENDOR_HS[vend] or "?") or EP_OPS[eop])
	end
	pinfo.cols.info:set(info)
	return true
end

local rroce = Dissector.get("infiniband")

function mrc.dissector(tvb, pinfo, root)
	if dissect(tvb, pinfo, root) then return tvb:len() end
	-- Not an MRC opcode: RoCEv2 shares the port.
	if rroce then return rroce:call(tvb, pinfo, root) end
	return 0
end

-- Heuristic form: to port 4791, an MRC opcode and TVer 0. MRC's source ports cover 1024-65535, so Wireshark, which
-- tries the lower of the two ports first, would give some packets to the
-- owner of their source port (4307 is B.A.T.M.A.N.'s): run tshark with
-- -o udp.try_heuristic_first:TRUE and this heuristic claims them first.
local function heur(tvb, pinfo, root)
	if pinfo.dst_port ~= 4791 then return false end
	if tvb:len() < 16 or not OP[tvb(0, 1):uint()] then return false end
	if bit32.band(tvb(1, 1):uint(), 0x0f) ~= 0 then return false end
	return dissect(tvb, pinfo, root)
end

DissectorTable.get("udp.port"):add(4791, mrc)
mrc:register_heuristic("udp", heur)
