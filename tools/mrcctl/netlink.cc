// SPDX-License-Identifier: GPL-2.0
#include "netlink.h"

#include <linux/mrc.h>
#include <netlink/genl/ctrl.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <exception>

namespace mrcctl::nl {
namespace {

// State shared with the libnl callbacks (C code: nothing may throw through it).
struct RecvState {
    const std::function<void(nlmsghdr*)>* on_msg = nullptr;
    bool done = false;
    int err = 0;
    std::string extack;
    int64_t offs = -1;
    std::string range;
    std::exception_ptr ex;
};

std::string PolicyRange(nlattr* pol) {
    nlattr* tb[NL_POLICY_TYPE_ATTR_MAX + 1] = {};
    if (nla_parse_nested(tb, NL_POLICY_TYPE_ATTR_MAX, pol, nullptr) < 0) return "";
    auto span = [&](int lo, int hi, const char* what) -> std::string {
        if (!tb[lo] || !tb[hi]) return "";
        return std::string(what) + std::to_string(GetUint(tb[lo])) + ".." +
               std::to_string(GetUint(tb[hi]));
    };
    std::string r =
        span(NL_POLICY_TYPE_ATTR_MIN_VALUE_U, NL_POLICY_TYPE_ATTR_MAX_VALUE_U, "allowed ");
    if (r.empty())
        r = span(NL_POLICY_TYPE_ATTR_MIN_LENGTH, NL_POLICY_TYPE_ATTR_MAX_LENGTH, "length ");
    return r;
}

int ValidCb(nl_msg* msg, void* arg) {
    auto* st = static_cast<RecvState*>(arg);
    try {
        if (*st->on_msg) (*st->on_msg)(nlmsg_hdr(msg));
    } catch (...) {
        st->ex = std::current_exception();
        st->done = true;
        return NL_STOP;
    }
    return NL_OK;
}

int DoneCb(nl_msg*, void* arg) {
    static_cast<RecvState*>(arg)->done = true;
    return NL_STOP;
}

int SeqOkCb(nl_msg*, void*) { return NL_OK; }

int ErrCb(sockaddr_nl*, nlmsgerr* e, void* arg) {
    auto* st = static_cast<RecvState*>(arg);
    auto* nlh = reinterpret_cast<nlmsghdr*>(reinterpret_cast<char*>(e) - NLMSG_HDRLEN);
    st->err = -e->error;
    st->done = true;
    if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS)) return NL_STOP;
    size_t ack_len = sizeof(*e);
    if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) ack_len += e->msg.nlmsg_len - NLMSG_HDRLEN;
    if (nlh->nlmsg_len <= NLMSG_HDRLEN + ack_len) return NL_STOP;
    auto* tlvs = reinterpret_cast<nlattr*>(reinterpret_cast<char*>(e) + ack_len);
    int len = static_cast<int>(nlh->nlmsg_len - NLMSG_HDRLEN - ack_len);
    nlattr* tb[NLMSGERR_ATTR_MAX + 1] = {};
    if (nla_parse(tb, NLMSGERR_ATTR_MAX, tlvs, len, nullptr) < 0) return NL_STOP;
    if (tb[NLMSGERR_ATTR_MSG]) st->extack = nla_get_string(tb[NLMSGERR_ATTR_MSG]);
    if (tb[NLMSGERR_ATTR_OFFS]) st->offs = nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);
    if (tb[NLMSGERR_ATTR_POLICY]) st->range = PolicyRange(tb[NLMSGERR_ATTR_POLICY]);
    return NL_STOP;
}

CbPtr MakeCb(RecvState& st) {
    CbPtr cb(nl_cb_alloc(NL_CB_CUSTOM));
    if (!cb) throw std::runtime_error("out of memory");
    nl_cb_set(cb.get(), NL_CB_VALID, NL_CB_CUSTOM, ValidCb, &st);
    nl_cb_set(cb.get(), NL_CB_FINISH, NL_CB_CUSTOM, DoneCb, &st);
    nl_cb_set(cb.get(), NL_CB_ACK, NL_CB_CUSTOM, DoneCb, &st);
    nl_cb_err(cb.get(), NL_CB_CUSTOM, ErrCb, &st);
    return cb;
}

}  // namespace

KernelError::KernelError(int err, std::string extack, std::string attr, std::string range)
    : std::runtime_error(std::strerror(err)),
      err_(err),
      extack_(std::move(extack)),
      attr_(std::move(attr)),
      range_(std::move(range)) {}

Request::Request(int family, uint8_t cmd, bool dump) : msg_(nlmsg_alloc()), dump_(dump) {
    if (!msg_) throw std::runtime_error("out of memory");
    int flags = dump ? NLM_F_DUMP : NLM_F_ACK;
    if (!genlmsg_put(msg_.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, flags, cmd,
                     MRC_GENL_VERSION))
        throw std::runtime_error("cannot build request");
}

void Request::Remember(std::string_view name) {
    next_off_ = NLMSG_ALIGN(nlmsg_hdr(msg_.get())->nlmsg_len);
    names_.emplace_back(next_off_, std::string(name));
}

static void Check(int err) {
    if (err < 0) throw std::runtime_error(std::string("cannot build request: ") + nl_geterror(err));
}

void Request::PutU8(int type, uint8_t v, std::string_view name) {
    Remember(name);
    Check(nla_put_u8(msg_.get(), type, v));
}

void Request::PutU32(int type, uint32_t v, std::string_view name) {
    Remember(name);
    Check(nla_put_u32(msg_.get(), type, v));
}

void Request::PutAddr(int type, const in6_addr& a, std::string_view name) {
    Remember(name);
    Check(nla_put(msg_.get(), type, sizeof(a), &a));
}

void Request::PutString(int type, const std::string& s, std::string_view name) {
    Remember(name);
    Check(nla_put_string(msg_.get(), type, s.c_str()));
}

void Request::PutFlag(int type, std::string_view name) {
    Remember(name);
    Check(nla_put_flag(msg_.get(), type));
}

nlattr* Request::BeginNest(int type, std::string_view name) {
    Remember(name);
    nlattr* n = nla_nest_start(msg_.get(), type | NLA_F_NESTED);
    if (!n) throw std::runtime_error("cannot build request: message too long");
    return n;
}

void Request::EndNest(nlattr* nest) { nla_nest_end(msg_.get(), nest); }

std::string Request::NameAt(uint32_t offset) const {
    for (const auto& [off, name] : names_)
        if (off == offset) return name;
    return "";
}

Client::Client() : sk_(nl_socket_alloc()) {
    if (!sk_) throw std::runtime_error("out of memory");
    int err = genl_connect(sk_.get());
    if (err < 0) throw std::runtime_error(std::string("generic netlink: ") + nl_geterror(err));
    int one = 1;
    // Extended acks (message, offending attribute, policy); no echo of the request.
    setsockopt(nl_socket_get_fd(sk_.get()), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
    setsockopt(nl_socket_get_fd(sk_.get()), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
    // Replies larger than a page (an ev-probe of 256 probes is ~12 KiB) are
    // read whole: the buffer is sized by peeking at each message.
    nl_socket_enable_msg_peek(sk_.get());
    family_ = genl_ctrl_resolve(sk_.get(), MRC_GENL_NAME);
    if (family_ < 0)
        throw FamilyMissing("generic netlink family \"" MRC_GENL_NAME
                            "\" not found (is mrc.ko loaded?)");
}

void Client::Run(const Request& req, const std::function<void(nlmsghdr*)>& on_reply) {
    RecvState st;
    st.on_msg = &on_reply;
    CbPtr cb = MakeCb(st);
    int err = nl_send_auto(sk_.get(), req.get());
    if (err < 0) throw std::runtime_error(std::string("send: ") + nl_geterror(err));
    while (!st.done) {
        err = nl_recvmsgs(sk_.get(), cb.get());
        if (err < 0 && !st.done)
            throw std::runtime_error(std::string("receive: ") + nl_geterror(err));
    }
    if (st.ex) std::rethrow_exception(st.ex);
    if (st.err) {
        std::string attr = st.offs >= 0 ? req.NameAt(static_cast<uint32_t>(st.offs)) : "";
        throw KernelError(st.err, st.extack, attr, st.range);
    }
}

void Client::Monitor(const std::function<void(nlmsghdr*)>& on_event, volatile bool* stop,
                     const std::function<void()>& on_overrun) {
    int grp = genl_ctrl_resolve_grp(sk_.get(), MRC_GENL_NAME, MRC_GENL_MCGRP_EVENTS);
    if (grp < 0)
        throw FamilyMissing("multicast group \"" MRC_GENL_MCGRP_EVENTS "\" of \"" MRC_GENL_NAME
                            "\" not found");
    int err = nl_socket_add_membership(sk_.get(), grp);
    if (err < 0) throw std::runtime_error(std::string("join events: ") + nl_geterror(err));
    // Room for bursts (connection events come from the datapath).
    nl_socket_set_buffer_size(sk_.get(), 1 << 20, 0);
    RecvState st;
    st.on_msg = &on_event;
    CbPtr cb = MakeCb(st);
    nl_cb_set(cb.get(), NL_CB_SEQ_CHECK, NL_CB_CUSTOM, SeqOkCb, nullptr);
    pollfd pfd{nl_socket_get_fd(sk_.get()), POLLIN, 0};
    while (!*stop) {
        int n = poll(&pfd, 1, -1);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
        }
        st.done = false;
        err = nl_recvmsgs(sk_.get(), cb.get());
        if (st.ex) std::rethrow_exception(st.ex);
        if (err == -NLE_NOMEM && on_overrun) {
            // ENOBUFS: the kernel dropped events; say so and go on.
            on_overrun();
            continue;
        }
        if (err < 0 && err != -NLE_INTR)
            throw std::runtime_error(std::string("receive: ") + nl_geterror(err));
    }
}

in6_addr GetAddr(nlattr* a) {
    in6_addr r{};
    if (nla_len(a) == sizeof(r)) std::memcpy(&r, nla_data(a), sizeof(r));
    return r;
}

uint64_t GetUint(nlattr* a) {
    switch (nla_len(a)) {
        case 1:
            return nla_get_u8(a);
        case 2:
            return nla_get_u16(a);
        case 4:
            return nla_get_u32(a);
        case 8:
            return nla_get_u64(a);
        default:
            return 0;
    }
}

}  // namespace mrcctl::nl
