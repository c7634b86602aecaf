#include "net.h"

#include <arpa/inet.h>
#include <libmrc.h>
#include <linux/mptcp.h>
#include <linux/mrc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef SOL_MPTCP
#define SOL_MPTCP 284
#endif

namespace mrcperf {

namespace {

// Zero bytes to send as message filling: calloc maps zero pages lazily, so
// the largest message costs address space, not memory.
const uint8_t* Zeros() {
    static const std::unique_ptr<uint8_t, decltype(&std::free)> z(
        static_cast<uint8_t*>(std::calloc(kMaxMessage, 1)), &std::free);
    if (!z) throw Error("out of memory");
    return z.get();
}

bool ParseAddr(const std::string& addr, in6_addr* out) {
    if (addr.empty()) {
        *out = in6addr_any;
        return true;
    }
    if (inet_pton(AF_INET6, addr.c_str(), out) == 1) return true;
    in_addr v4;
    if (inet_pton(AF_INET, addr.c_str(), &v4) != 1) return false;
    std::memset(out, 0, sizeof(*out));
    out->s6_addr[10] = out->s6_addr[11] = 0xff;
    std::memcpy(&out->s6_addr[12], &v4, 4);
    return true;
}

}  // namespace

[[noreturn]] void ThrowErrno(const std::string& what, int err) {
    throw Error(what + ": " + std::strerror(err));
}

void Fd::reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
}

int MrcFamily() {
    // libmrc reads the module parameter and, when the module is not loaded
    // yet, lets a first socket() autoload it through its net-pf alias.
    int fam = mrc_family();
    if (fam <= 0)
        throw Error("AF_MRC is not available: mrc.ko is not loaded (no " MRC_FAMILY_SYSFS
                    ") and could not be autoloaded; modprobe mrc or insmod mrc.ko",
                    kExitNoMrc);
    return fam;
}

Endpoint MakeEndpoint(Transport t, const std::string& addr, uint16_t port) {
    Endpoint ep;
    in6_addr a;
    if (!ParseAddr(addr, &a)) throw Error("bad address \"" + addr + "\"", kExitUsage);
    if (t == Transport::kMrc) {
        sockaddr_mrc sa{};
        sa.smrc_family = static_cast<__u16>(MrcFamily());
        sa.smrc_port = htons(port);
        std::memcpy(sa.smrc_addr, &a, sizeof(a));
        std::memcpy(&ep.ss, &sa, sizeof(sa));
        ep.len = sizeof(sa);
    } else {
        sockaddr_in6 sa{};
        sa.sin6_family = AF_INET6;
        sa.sin6_port = htons(port);
        sa.sin6_addr = a;
        std::memcpy(&ep.ss, &sa, sizeof(sa));
        ep.len = sizeof(sa);
    }
    return ep;
}

std::string EndpointText(Transport t, const Endpoint& ep) {
    if (t == Transport::kMrc) {
        sockaddr_mrc sa;
        std::memcpy(&sa, &ep.ss, sizeof(sa));
        char txt[MRC_ADDRSTRLEN] = "?";
        mrc_addr_format(&sa, txt, sizeof(txt));
        return txt;
    }
    const auto* sa = reinterpret_cast<const sockaddr_in6*>(&ep.ss);
    char txt[INET6_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET6, sa->sin6_addr.s6_addr, txt, sizeof(txt));
    return "[" + std::string(txt) + "]:" + std::to_string(ntohs(sa->sin6_port));
}

Fd OpenSocket(Transport t) {
    int fd;
    switch (t) {
        case Transport::kMrc: {
            int fam = MrcFamily();
            fd = ::socket(fam, SOCK_SEQPACKET | SOCK_CLOEXEC, MRC_PROTO_DEFAULT);
            if (fd < 0) {
                int e = errno;
                if (e == EAFNOSUPPORT)
                    throw Error("AF_MRC is not available: socket(" + std::to_string(fam) +
                                    ", SOCK_SEQPACKET) failed: " + std::strerror(e),
                                kExitNoMrc);
                ThrowErrno("socket(AF_MRC)", e);
            }
            break;
        }
        case Transport::kTcp:
            fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
            if (fd < 0) ThrowErrno("socket(AF_INET6, SOCK_STREAM)", errno);
            break;
        case Transport::kMptcp:
            fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP);
            if (fd < 0) {
                int e = errno;
                throw Error(std::string("MPTCP is not available: socket(AF_INET6, SOCK_STREAM, "
                                        "IPPROTO_MPTCP): ") +
                            std::strerror(e) + " (kernel without MPTCP, or net.mptcp.enabled=0)");
            }
            break;
        default:
            throw Error("bad transport");
    }
    Fd s(fd);
    if (t != Transport::kMrc) {
        int off = 0;
        ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
    }
    return s;
}

Fd Listen(Transport t, const Endpoint& local, int backlog) {
    Fd s = OpenSocket(t);
    if (t != Transport::kMrc) {
        int on = 1;
        ::setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    }
    if (::bind(s.get(), reinterpret_cast<const sockaddr*>(&local.ss), local.len) < 0)
        ThrowErrno("bind " + EndpointText(t, local), errno);
    if (::listen(s.get(), backlog) < 0) ThrowErrno("listen", errno);
    return s;
}

uint16_t LocalPort(Transport t, const Fd& fd) {
    Endpoint ep;
    ep.len = sizeof(ep.ss);
    if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&ep.ss), &ep.len) < 0)
        ThrowErrno("getsockname", errno);
    if (t == Transport::kMrc) {
        sockaddr_mrc sa;
        std::memcpy(&sa, &ep.ss, sizeof(sa));
        return ntohs(sa.smrc_port);
    }
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&ep.ss)->sin6_port);
}

void ApplyMrcOptions(const MrcSockOpts& o, const Fd& fd) {
    if (o.ev_set_size && mrc_set_ev_set_size(fd.get(), *o.ev_set_size) < 0)
        ThrowErrno("MRC_EV_SET_SIZE", errno);
    if (o.plane_mask && mrc_set_plane_mask(fd.get(), *o.plane_mask) < 0)
        ThrowErrno("MRC_PLANE_MASK", errno);
    if ((o.cc_profile || o.ev_profile) &&
        mrc_set_profiles(fd.get(), o.cc_profile.value_or(0), o.ev_profile.value_or(0)) < 0)
        ThrowErrno("MRC_PROFILE", errno);
}

Fd Connect(Transport t, const Endpoint& peer, const Endpoint* local, double timeout_s,
           const MrcSockOpts& mrc) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
        Fd s = OpenSocket(t);
        if (t == Transport::kMrc) ApplyMrcOptions(mrc, s);
        if (local && ::bind(s.get(), reinterpret_cast<const sockaddr*>(&local->ss), local->len) < 0)
            ThrowErrno("bind " + EndpointText(t, *local), errno);
        // A blocking connect() bounded by SO_SNDTIMEO (TCP and AF_MRC honour it).
        double left = std::chrono::duration<double>(deadline - Clock::now()).count();
        timeval tv{};
        tv.tv_sec = static_cast<time_t>(std::max(left, 0.1));
        tv.tv_usec = static_cast<suseconds_t>((std::max(left, 0.1) - double(tv.tv_sec)) * 1e6);
        ::setsockopt(s.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        if (::connect(s.get(), reinterpret_cast<const sockaddr*>(&peer.ss), peer.len) == 0) {
            timeval zero{};
            ::setsockopt(s.get(), SOL_SOCKET, SO_SNDTIMEO, &zero, sizeof(zero));
            TuneConnected(t, s);
            return s;
        }
        int e = errno;
        std::string what =
            "connect to " + EndpointText(t, peer) + " over " + std::string(TransportName(t));
        if (e == EINPROGRESS || e == EAGAIN || e == ETIMEDOUT)
            throw Error(what + ": timed out after " + std::to_string(timeout_s) + " s");
        if (e == EINTR) continue;
        if ((e == ECONNREFUSED || e == ECONNRESET) &&
            Clock::now() + std::chrono::milliseconds(100) < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            continue;
        }
        ThrowErrno(what, e);
    }
}

void TuneConnected(Transport t, const Fd& fd) {
    if (t == Transport::kMrc) return;
    int on = 1;
    // MPTCP of older kernels refuses some TCP options: best effort.
    ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
}

OutMsg MakeMsg(MsgType type, uint64_t seq, uint32_t size, std::string extra) {
    OutMsg m;
    size = std::max<uint32_t>(size, static_cast<uint32_t>(kHeaderSize + extra.size()));
    m.size = size;
    EncodeLength(size, std::span<uint8_t, kLenPrefixSize>(m.pre, kLenPrefixSize));
    EncodeHeader(Header{type, seq},
                 std::span<uint8_t, kHeaderSize>(m.pre + kLenPrefixSize, kHeaderSize));
    m.extra = std::move(extra);
    return m;
}

MsgConn::MsgConn(Fd fd, Transport t)
    : fd_(std::move(fd)), t_(t), stream_(t != Transport::kMrc), rx_(stream_ ? 256 * 1024 : 65536) {}

void MsgConn::SetMaxMessage(size_t n) {
    if (!stream_ && rx_.size() < n) rx_.resize(n);
}

void MsgConn::Queue(OutMsg m) {
    queued_bytes_ += m.size;
    q_.push_back(std::move(m));
}

void MsgConn::Flush() {
    const uint8_t* zeros = Zeros();
    while (!q_.empty()) {
        OutMsg& m = q_.front();
        const size_t pre_off = stream_ ? 0 : kLenPrefixSize;
        const size_t pre_len = sizeof(m.pre) - pre_off;
        const size_t fill = m.size - kHeaderSize - m.extra.size();
        iovec iov[3];
        int n_iov = 0;
        size_t skip = sent_;
        auto add = [&](const void* base, size_t len) {
            if (skip >= len) {
                skip -= len;
                return;
            }
            iov[n_iov].iov_base = const_cast<uint8_t*>(static_cast<const uint8_t*>(base) + skip);
            iov[n_iov].iov_len = len - skip;
            ++n_iov;
            skip = 0;
        };
        add(m.pre + pre_off, pre_len);
        if (!m.extra.empty()) add(m.extra.data(), m.extra.size());
        if (fill) add(zeros, fill);
        msghdr mh{};
        mh.msg_iov = iov;
        mh.msg_iovlen = static_cast<size_t>(n_iov);
        ssize_t n = ::sendmsg(fd_.get(), &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) return;
            if (errno == EINTR) continue;
            ThrowErrno("send", errno);
        }
        const size_t total = pre_len + m.size - kHeaderSize;
        sent_ += static_cast<size_t>(n);
        if (!stream_ || sent_ >= total) {
            queued_bytes_ -= m.size;
            q_.pop_front();
            sent_ = 0;
        }
    }
}

bool MsgConn::Receive(const FrameDecoder::Sink& sink) {
    // Bounded so that a fast sender cannot starve the caller's timers.
    for (int round = 0; round < 64; ++round) {
        if (!stream_) {
            iovec iov{rx_.data(), rx_.size()};
            msghdr mh{};
            mh.msg_iov = &iov;
            mh.msg_iovlen = 1;
            ssize_t n = ::recvmsg(fd_.get(), &mh, MSG_DONTWAIT);
            if (n < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
                if (errno == EINTR) continue;
                ThrowErrno("recv", errno);
            }
            if (n == 0) return false;
            if (mh.msg_flags & MSG_TRUNC)
                throw Error("received a message longer than the " + std::to_string(rx_.size()) +
                            "-byte buffer");
            sink(std::span<const uint8_t>(rx_.data(), static_cast<size_t>(n)),
                 static_cast<size_t>(n));
            continue;
        }
        ssize_t n = ::recv(fd_.get(), rx_.data(), rx_.size(), MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
            if (errno == EINTR) continue;
            ThrowErrno("recv", errno);
        }
        if (n == 0) {
            if (!dec_.Idle()) throw Error("connection closed in the middle of a message");
            return false;
        }
        if (!dec_.Feed(std::span<const uint8_t>(rx_.data(), static_cast<size_t>(n)), sink))
            throw Error("framing error: bad length prefix");
    }
    return true;
}

void MsgConn::WriteInfo(JsonWriter& w) const {
    w.BeginObject();
    if (t_ == Transport::kTcp) {
        tcp_info ti{};
        socklen_t len = sizeof(ti);
        if (::getsockopt(fd_.get(), IPPROTO_TCP, TCP_INFO, &ti, &len) == 0) {
            w.Field("total_retrans", ti.tcpi_total_retrans);
            w.Field("rtt_us", ti.tcpi_rtt);
            w.Field("snd_cwnd", ti.tcpi_snd_cwnd);
        }
    } else if (t_ == Transport::kMptcp) {
        mptcp_info mi{};
        socklen_t len = sizeof(mi);
        if (::getsockopt(fd_.get(), SOL_MPTCP, MPTCP_INFO, &mi, &len) == 0) {
            w.Field("subflows", static_cast<unsigned>(mi.mptcpi_subflows));
            w.Field("add_addr_accepted", static_cast<unsigned>(mi.mptcpi_add_addr_accepted));
            w.Field("fallback", (mi.mptcpi_flags & MPTCP_INFO_FLAG_FALLBACK) != 0);
        } else {
            // No MPTCP_INFO means the connection fell back to plain TCP.
            w.Field("mptcp_info_errno", std::string(std::strerror(errno)));
        }
    } else {
        mrc_info mi;
        if (mrc_get_info(fd_.get(), &mi) == 0) {
            w.Field("state", mi.mi_state);
            w.Field("state_name", std::string(mrc_state_name(mi.mi_state)));
            w.Field("srtt_us", static_cast<double>(mi.mi_srtt_ns) / 1000.0);
            w.Field("min_rtt_us", static_cast<double>(mi.mi_min_rtt_ns) / 1000.0);
            w.Field("cwnd", mi.mi_cwnd);
            w.Field("lost_inferred", static_cast<uint64_t>(mi.mi_lost_inferred));
            w.Field("spurious_losses", static_cast<uint64_t>(mi.mi_spurious_losses));
            w.Field("tlp_probes", static_cast<uint64_t>(mi.mi_tlp_probes));
            w.Field("tx_sacks", static_cast<uint64_t>(mi.mi_tx_sacks));
            w.Field("tx_sacks_merged", static_cast<uint64_t>(mi.mi_tx_sacks_merged));
            w.Field("rx_sacks", static_cast<uint64_t>(mi.mi_rx_sacks));
            w.Field("rtx_path", static_cast<uint64_t>(mi.mi_rtx_path));
            w.Field("paths_retired", static_cast<uint64_t>(mi.mi_paths_retired));
            w.Field("paths_gray", static_cast<uint64_t>(mi.mi_paths_gray));
            w.Field("cwnd_cuts_spared", static_cast<uint64_t>(mi.mi_cwnd_cuts_spared));
            w.Field("local_drops", static_cast<uint64_t>(mi.mi_local_drops));
            w.Field("rtx_local", static_cast<uint64_t>(mi.mi_rtx_local));
            w.Field("rmem_alloc", static_cast<uint64_t>(mi.mi_rmem_alloc));
            w.Field("rmem_unread", static_cast<uint64_t>(mi.mi_rmem_unread));
            w.Field("wmem_queued", static_cast<uint64_t>(mi.mi_wmem_queued));
            w.Field("wmem_kept", static_cast<uint64_t>(mi.mi_wmem_kept));
            w.Field("mem_charged", static_cast<uint64_t>(mi.mi_mem_charged));
            w.Field("fwd_alloc", mi.mi_fwd_alloc);
            w.Field("wmem_alloc", mi.mi_wmem_alloc);
            w.Field("rcvbuf", mi.mi_rcvbuf);
            w.Field("sndbuf", mi.mi_sndbuf);
            w.Field("spurious_timeouts", static_cast<uint64_t>(mi.mi_spurious_timeouts));
            w.Field("retransmits", static_cast<uint64_t>(mi.mi_retransmits));
            w.Field("timeouts", static_cast<uint64_t>(mi.mi_timeouts));
            w.Field("tx_pkts", static_cast<uint64_t>(mi.mi_tx_pkts));
            w.Field("ev_good", mi.mi_ev_good);
            w.Field("ev_skip", mi.mi_ev_skip);
            w.Field("ev_bad", mi.mi_ev_bad);
            w.Key("planes").BeginArray();
            for (uint32_t p = 0; p < std::min<uint32_t>(mi.mi_n_planes, MRC_INFO_PLANES); ++p) {
                w.BeginObject()
                    .Field("tx_pkts", static_cast<uint64_t>(mi.mi_planes[p].tx_pkts))
                    .Field("tx_bytes", static_cast<uint64_t>(mi.mi_planes[p].tx_bytes))
                    .Field("evs_bad", mi.mi_planes[p].evs_bad)
                    .EndObject();
            }
            w.EndArray();
        } else {
            w.Field("mrc_info_errno", std::string(std::strerror(errno)));
        }
    }
    w.EndObject();
}

}  // namespace mrcperf
