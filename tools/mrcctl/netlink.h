// SPDX-License-Identifier: GPL-2.0
// A small C++ layer over libnl-genl-3 for the "mrc" family: RAII ownership
// of every libnl object, requests that remember which attribute sits at
// which offset (to name the attribute an extack points at), and errors as
// exceptions.
#pragma once

#include <linux/netlink.h>
#include <netinet/in.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mrcctl::nl {

struct SockDeleter {
    void operator()(nl_sock* s) const { nl_socket_free(s); }
};
struct MsgDeleter {
    void operator()(nl_msg* m) const { nlmsg_free(m); }
};
struct CbDeleter {
    void operator()(nl_cb* c) const { nl_cb_put(c); }
};
using SockPtr = std::unique_ptr<nl_sock, SockDeleter>;
using MsgPtr = std::unique_ptr<nl_msg, MsgDeleter>;
using CbPtr = std::unique_ptr<nl_cb, CbDeleter>;

// The kernel refused a request: errno, extack message and, when the extack
// pointed at an attribute, its name and the policy's allowed range.
class KernelError : public std::runtime_error {
  public:
    KernelError(int err, std::string extack, std::string attr, std::string range);
    int err() const { return err_; }
    const std::string& extack() const { return extack_; }
    const std::string& attr() const { return attr_; }
    const std::string& range() const { return range_; }

  private:
    int err_;
    std::string extack_, attr_, range_;
};

// The mrc family (or its events group) is not registered: mrc.ko not loaded.
class FamilyMissing : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// One request message under construction.
class Request {
  public:
    Request(int family, uint8_t cmd, bool dump);

    void PutU8(int type, uint8_t v, std::string_view name);
    void PutU32(int type, uint32_t v, std::string_view name);
    void PutAddr(int type, const in6_addr& a, std::string_view name);
    void PutString(int type, const std::string& s, std::string_view name);
    void PutFlag(int type, std::string_view name);
    nlattr* BeginNest(int type, std::string_view name);  // sets NLA_F_NESTED
    void EndNest(nlattr* nest);

    nl_msg* get() const { return msg_.get(); }
    bool dump() const { return dump_; }
    // Name of the attribute starting at `offset` of the message ("" if none).
    std::string NameAt(uint32_t offset) const;

  private:
    void Remember(std::string_view name);
    MsgPtr msg_;
    bool dump_;
    std::vector<std::pair<uint32_t, std::string>> names_;
    uint32_t next_off_ = 0;
};

class Client {
  public:
    // Connects to generic netlink and resolves the family; throws
    // FamilyMissing or std::runtime_error.
    Client();
    int family() const { return family_; }

    // Sends the request; calls on_reply for every reply message; returns
    // once the kernel acknowledged (do) or finished (dump). Throws
    // KernelError when the kernel refuses.
    void Run(const Request& req, const std::function<void(nlmsghdr*)>& on_reply);

    // Joins the events group and calls on_event for every notification
    // until *stop becomes true (set it from a signal handler). When the
    // socket overran (ENOBUFS: events were lost) calls on_overrun and goes
    // on; without one, that is an error.
    void Monitor(const std::function<void(nlmsghdr*)>& on_event, volatile bool* stop,
                 const std::function<void()>& on_overrun = nullptr);

  private:
    SockPtr sk_;
    int family_ = -1;
};

// Iteration over the attributes of a genetlink message or of a nest.
template <typename F>
void ForEachAttr(nlattr* head, int len, F&& f) {
    nlattr* a;
    int rem;
    nla_for_each_attr(a, head, len, rem) f(a);
}

inline void ForEachAttr(nlmsghdr* nlh, const std::function<void(nlattr*)>& f) {
    ForEachAttr(genlmsg_attrdata(static_cast<genlmsghdr*>(nlmsg_data(nlh)), 0),
                genlmsg_attrlen(static_cast<genlmsghdr*>(nlmsg_data(nlh)), 0), f);
}

inline void ForEachNested(nlattr* nest, const std::function<void(nlattr*)>& f) {
    ForEachAttr(static_cast<nlattr*>(nla_data(nest)), nla_len(nest), f);
}

in6_addr GetAddr(nlattr* a);
uint64_t GetUint(nlattr* a);  // u8/u16/u32/u64 by length

}  // namespace mrcctl::nl
