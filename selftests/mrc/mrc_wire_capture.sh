#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What mrc.ko puts on the wire, captured (issue 14). Two hosts over the
# SRv6 fabric (srh encapsulation, every plane and spine); tcpdump on every
# port of hA records one transfer (messages both ways) that goes through:
#  - the handshake and the close (ERTH/EETH, our vendor operation);
#  - EV probes of hA to hB (mrcctl probe, ERTH/EETH of op EV_PROBE), one
#    on each path, all answered;
#  - a receiver that stops reading for 1.5 s after 10 of 80 messages of up
#    to 1 MiB, more than its receive buffer (SO_RCVBUF 1 MiB): NACK
#    NO_RESOURCE and the receiver-not-ready probe;
#  - then, with data flowing again, a silent spine cut (sp-p1-s0 to hA's
#    leaf, carriers up) for 1.5 s: timeouts, ASSUMED_BAD EVs, PETH probes
#    (and their SACK pr=1 answers if the transfer outlives the cut).
# The ICRC's payload CRC alternates every 100 ms between the crypto API's
# "crc32" driver and crc32_le (module parameter icrc, mrc_lib.sh), so the
# host's independent check covers both implementations.
# Here: the digests, the capture written without kernel drops. On the host,
# after the VM run, scripts/check.sh decodes the capture
# (build/captures/mrc_wire_capture.pcap) with tshark and
# tools/wireshark/mrc.lua through tools/wireshark/mrc_capture_check.py:
# every packet MRC, none malformed, every ICRC valid (the dissector's and,
# independently, scripts/mrc_icrc.py's, for every packet: one mismatch
# fails), every SACK's public offsets matching data of the capture, data
# PSNs complete per QP and in order as hA sent them, every header kind
# seen, and retransmissions, flowcell segments and their last (short)
# ones, pads among the packets whose ICRC was checked.
#
# Both hosts send flowcells (the EV profile's default burst): a capture on
# a host would show one as the segmentation-offload datagram the stack
# handed the device (as TCP's TSO super-frames), which no RoCE decoder can
# cut into its packets, so the hosts' plane devices are told they cannot
# segment UDP (ethtool tx-udp-segmentation off): the stack cuts each
# flowcell before the device and the capture, as a NIC puts it on the
# wire, and every segment's ICRC is checked on the host, the last and
# shorter ones' too (scripts/mrc_icrc.py counts them per kind). MRC_CAP_ENCAP
# picks the encapsulation: srh (make check) or usid (none does not connect
# in this setup: the handshake times out, nothing is captured).
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh
. ./mrc_fabric_lib.sh
. ./mrc_fabric_mrc.sh

CAPDIR=${MRC_TOP:-/mrc}/build/captures
ENCAP=${MRC_CAP_ENCAP:-srh}
CAP=$CAPDIR/mrc_wire_capture.pcap
out=$(mktemp -d)
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
command -v tcpdump >/dev/null || { log "FAIL: no tcpdump in the guest"; exit $ksft_fail; }
# tcpdump runs under a subshell that ignores SIGINT: stop it with SIGTERM
# (it still writes out what it has), by name, in hA's namespace.
stop_tcpdump() { fabric_exec hA pkill -TERM -x tcpdump 2>/dev/null; }
trap 'icrc_alternate_stop; stop_tcpdump; fabric_destroy; rm -rf "$out"' EXIT
mkdir -p "$CAPDIR" && rm -f "$CAP" "$CAP.meta"

fabric_create || exit $ksft_fail
mrc_fabric_up "$ENCAP" || exit $ksft_fail
# Flowcells (the EV profile's default burst) leave as UDP segmentation
# offload datagrams; with the hosts' devices unable to take them, the stack
# cuts them into their MRC packets before the device and the capture (as a
# NIC would put them on the wire), so every segment's own ICRC, the last
# and shorter one's too, is in the capture.
for h in hA hB; do
	for ((p = 0; p < FAB_NPLANES; p++)); do
		fabric_exec "$h" ethtool -K "pl$p" tx-udp-segmentation off \
			>/dev/null || exit $ksft_fail
	done
done
HA=${FAB_HADDR[hA]}
HB=${FAB_HADDR[hB]}

# Full packets (the ICRC is checked over all of them), every interface,
# into the guest's RAM (the 9p share is too slow to keep up), copied after.
fabric_exec hA timeout 280 tcpdump -Z root -i any -n -s 0 -B 65536 -w "$out/cap.pcap" ip6 \
	2>"$out/tcpdump.err" &
TD_PID=$!
wait_for "$out/tcpdump.err" "listening on" 5

check "the ICRC alternates: crypto driver and crc32_le" icrc_alternate_start
log "crypto ICRC driver: ${icrc_crypto_impl:-none}"
fabric_exec hB timeout 240 ./mrc_xfer -l -p 7300 -n 80 -M 1048576 -s 31 --stall "10:1500" \
	--rcvbuf 1048576 \
	>"$out/cap.srv" 2>"$out/cap.srv.err" &
spid=$!
sleep 0.3
fabric_exec hA timeout 240 ./mrc_xfer -c "$HB" -p 7300 -n 80 -M 1048576 -s 32 \
	--info-file "$out/cap.cli.info" >"$out/cap.cli" 2>"$out/cap.cli.err" &
cpid=$!
probes=$(mrcctl hA -j probe "$HB" evs 1 2>&1)
expect_eq "EV probes of every path answered" "8 8" "$(jq -r '"\(.sent) \(.answered)"' <<<"$probes")"
# the cut, once the reader is back and data flows on every path
for ((i = 0; i < 400; i++)); do
	grep -q "stall end" "$out/cap.srv.err" 2>/dev/null && break
	sleep 0.05
done
fabric_link_set 1 0 hA down
sleep 1.5
fabric_link_set 1 0 hA up
wait "$cpid"
crc=$?
wait "$spid"
src=$?
icrc_alternate_stop
sleep 0.5	# the close and the last SACKs
stop_tcpdump
wait "$TD_PID"
cp "$out/cap.pcap" "$CAP"

xfer_verdict cap "$out" "$crc" "$src"
# The client's last MRC_INFO (every 200 ms): what a failure looked like.
log "client's last MRC_INFO: $(jq -c '{state, timeouts, spurious_timeouts, lost_inferred,
	retransmits, rto_ns, snd_una, ev_good, ev_bad, planes: [.planes[].bad]}' "$out/cap.cli.info" 2>&1)"
check "the reader stalled" grep -q "stall end" "$out/cap.srv.err"
# Each host's receiver checked every ICRC the other sent (the namespaces,
# and their counters, are new).
for h in hA hB; do
	expect_eq "$h: no ICRC rejected (RxBadIcrc)" 0 \
		"$(fabric_exec "$h" awk '$1 == "RxBadIcrc" { print $2 }' /proc/net/mrc)"
done
log "tcpdump: $(tr '\n' ' ' <"$out/tcpdump.err")"
check "capture written" [ -s "$CAP" ]
check "no packet dropped by the kernel" grep -q "^0 packets dropped by kernel" "$out/tcpdump.err"
# what the host-side decoder needs to know: the sender whose PSN order counts
echo "sender $HA" >"$CAP.meta"
log "capture: $(stat -c %s "$CAP") bytes at $CAP, decoded on the host by scripts/check.sh"
finish
