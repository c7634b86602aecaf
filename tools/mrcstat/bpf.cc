// SPDX-License-Identifier: GPL-2.0
#include "bpf.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <string_view>
#include <vector>

#include "mrc_telemetry.skel.h"

namespace mrcstat {
namespace {

constexpr unsigned long kBpfFsMagic = 0xcafe4a11;
constexpr const char* kLinkPrefix = "link_";

struct SkelDel {
    void operator()(mrc_telemetry* s) const { mrc_telemetry__destroy(s); }
};
struct LinkDel {
    void operator()(bpf_link* l) const { bpf_link__destroy(l); }
};
struct DirDel {
    void operator()(DIR* d) const { closedir(d); }
};

std::string Errno(int e) { return std::strerror(e); }

bool PrivError(int e) { return e == EPERM || e == EACCES; }

[[noreturn]] void ThrowBpf(const std::string& what, int e) {
    if (PrivError(e) || e == ENOSYS) {
        throw Error(kExitNoBpf, what + ": " + Errno(e) +
                                    " (BPF needs root or CAP_BPF+CAP_PERFMON, and a kernel "
                                    "with CONFIG_BPF_SYSCALL)");
    }
    throw Error(kExitError, what + ": " + Errno(e));
}

void CheckBpffs(const std::string& dir) {
    std::string parent = dir;
    while (parent.size() > 1 && parent.back() == '/') parent.pop_back();
    struct statfs st {};
    // The directory itself if it exists, else its parent.
    if (statfs(parent.c_str(), &st) != 0) {
        auto slash = parent.rfind('/');
        parent = slash == 0 ? "/" : parent.substr(0, slash);
        if (statfs(parent.c_str(), &st) != 0) {
            throw Error(kExitNoBpf, parent + ": " + Errno(errno) + " (is bpffs mounted?)");
        }
    }
    if (static_cast<unsigned long>(st.f_type) != kBpfFsMagic) {
        // "ip netns exec" mounts a fresh /sys for the namespace, without the
        // bpffs that the pins live on: say so rather than "not attached".
        throw Error(kExitNoBpf, parent +
                                    " is not on a bpffs here: the pins are invisible in this "
                                    "mount namespace (ip netns exec mounts a fresh /sys; run "
                                    "mrcstat outside it: it shows every namespace) or mount "
                                    "it: mount -t bpf bpf " +
                                    parent);
    }
}

bool Exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

std::string Join(const std::string& dir, std::string_view name) {
    return dir + "/" + std::string(name);
}

// Remove our pins under dir; return the first errno that is not ENOENT.
int Unpin(const std::string& dir) {
    int first = 0;
    std::unique_ptr<DIR, DirDel> d(opendir(dir.c_str()));
    if (!d) return errno == ENOENT ? 0 : errno;
    std::vector<std::string> names;
    while (const dirent* de = readdir(d.get())) {
        std::string_view n = de->d_name;
        bool ours = n.starts_with(kLinkPrefix);
        for (const char* m : kMapNames) ours = ours || n == m;
        if (ours) names.emplace_back(n);
    }
    for (const auto& n : names) {
        if (unlink(Join(dir, n).c_str()) != 0 && errno != ENOENT && !first) first = errno;
    }
    if (rmdir(dir.c_str()) != 0 && errno != ENOENT && errno != ENOTEMPTY && !first) first = errno;
    return first;
}

Fd GetPinned(const std::string& dir, const char* name, bool rdonly) {
    LIBBPF_OPTS(bpf_obj_get_opts, opts, .file_flags = rdonly ? BPF_F_RDONLY : 0u);
    const std::string path = Join(dir, name);
    int fd = bpf_obj_get_opts(path.c_str(), &opts);
    if (fd < 0) {
        const int e = errno;
        if (e == ENOENT) {
            CheckBpffs(dir);  // no bpffs here is not "not attached"
            throw Error(kExitNotAttached,
                        "mrc telemetry is not attached (" + path + " missing): run mrcstat attach");
        }
        ThrowBpf("open " + path, e);
    }
    return Fd(fd);
}

template <typename K, typename V, typename Row>
void Dump(const Fd& fd, std::vector<Row>& out) {
    K key{}, next{};
    const K* prev = nullptr;
    while (bpf_map_get_next_key(fd.get(), prev, &next) == 0) {
        Row r;
        r.key = next;
        if (bpf_map_lookup_elem(fd.get(), &next, &r.val) == 0) out.push_back(r);
        key = next;
        prev = &key;
    }
}

}  // namespace

const char* const kMapNames[5] = {"mrc_ev", "mrc_plane", "mrc_conn", "mrc_events", "mrc_tel_stat"};

Fd& Fd::operator=(Fd&& o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) close(fd_);
        fd_ = o.release();
    }
    return *this;
}

Fd::~Fd() {
    if (fd_ >= 0) close(fd_);
}

uint64_t MonotonicNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + ts.tv_nsec;
}

bool Attached(const std::string& dir) {
    for (const char* m : kMapNames) {
        if (!Exists(Join(dir, m))) return false;
    }
    return Exists(Join(dir, std::string(kLinkPrefix) + "mrc_tel_pkt_sent"));
}

bool Attach(const std::string& dir, bool rto_events) {
    if (!Exists("/sys/module/mrc")) {
        throw Error(kExitNoModule, "the mrc module is not loaded (modprobe mrc)");
    }
    CheckBpffs(dir);
    if (Attached(dir)) return false;
    if (int e = Unpin(dir)) ThrowBpf("clean " + dir, e);  // a partial set
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
        const int e = errno;
        if (PrivError(e)) ThrowBpf("mkdir " + dir, e);
        throw Error(kExitNoBpf, "mkdir " + dir + ": " + Errno(e));
    }
    LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = dir.c_str());
    std::unique_ptr<mrc_telemetry, SkelDel> skel(mrc_telemetry__open_opts(&opts));
    if (!skel) {
        const int e = errno;
        Unpin(dir);
        ThrowBpf("open BPF object", e);
    }
    skel->rodata->rto_events = rto_events;
    if (int err = mrc_telemetry__load(skel.get())) {
        Unpin(dir);
        ThrowBpf("load BPF programs", -err);
    }
    std::vector<std::unique_ptr<bpf_link, LinkDel>> links;
    bpf_program* prog = nullptr;
    bpf_object__for_each_program(prog, skel->obj) {
        std::unique_ptr<bpf_link, LinkDel> link(bpf_program__attach(prog));
        if (!link) {
            const int e = errno;
            Unpin(dir);
            if (e == ENOENT) {
                throw Error(kExitNoModule, std::string("attach ") +
                                               bpf_program__section_name(prog) +
                                               ": no such tracepoint (is mrc.ko loaded, and of "
                                               "this version?)");
            }
            ThrowBpf(std::string("attach ") + bpf_program__section_name(prog), e);
        }
        const std::string pin = Join(dir, std::string(kLinkPrefix) + bpf_program__name(prog));
        if (int err = bpf_link__pin(link.get(), pin.c_str())) {
            Unpin(dir);
            ThrowBpf("pin " + pin, -err);
        }
        links.push_back(std::move(link));
    }
    // Destroying the skeleton and the link objects closes our descriptors;
    // the pins keep programs, links and maps alive.
    return true;
}

void Detach(const std::string& dir) {
    CheckBpffs(dir);
    if (!Exists(dir)) {
        throw Error(kExitNotAttached,
                    "mrc telemetry is not attached (" + dir + " missing): run mrcstat attach");
    }
    if (int e = Unpin(dir)) ThrowBpf("unpin " + dir, e);
}

Reader::Reader(const std::string& dir)
    : ev_(GetPinned(dir, "mrc_ev", true)),
      plane_(GetPinned(dir, "mrc_plane", true)),
      conn_(GetPinned(dir, "mrc_conn", true)),
      stat_(GetPinned(dir, "mrc_tel_stat", true)) {}

Snapshot Reader::Read() const {
    Snapshot s;
    s.mono_ns = MonotonicNs();
    Dump<mrc_tel_ev_key, mrc_tel_ev_val>(ev_, s.evs);
    Dump<mrc_tel_plane_key, mrc_tel_plane_val>(plane_, s.planes);
    Dump<mrc_tel_conn_key, mrc_tel_conn_val>(conn_, s.conns);
    uint32_t k = 0;
    if (bpf_map_lookup_elem(stat_.get(), &k, &s.stat) != 0) s.stat = {};
    s.Sort();
    return s;
}

void EventStream::RbFree::operator()(ring_buffer* rb) const { ring_buffer__free(rb); }

EventStream::EventStream(const std::string& dir, Handler h) : handler_(std::move(h)) {
    map_ = GetPinned(dir, "mrc_events", false);
    lock_ = Fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!lock_) throw Error(kExitError, "open " + dir + ": " + Errno(errno));
    if (flock(lock_.get(), LOCK_EX | LOCK_NB) != 0) {
        throw Error(kExitError,
                    "another \"mrcstat events\" is reading the event ring buffer (one consumer "
                    "at a time); counters can be read by any number of readers");
    }
    rb_.reset(ring_buffer__new(map_.get(), &EventStream::Callback, this, nullptr));
    if (!rb_) ThrowBpf("ring buffer " + Join(dir, "mrc_events"), errno);
}

EventStream::~EventStream() = default;

int EventStream::Callback(void* ctx, void* data, size_t size) {
    auto* self = static_cast<EventStream*>(ctx);
    if (self->stop_) return -ECANCELED;
    mrc_tel_event e{};
    std::memcpy(&e, data, std::min(size, sizeof(e)));
    if (!self->handler_(e)) {
        self->stop_ = true;
        return -ECANCELED;
    }
    return 0;
}

bool EventStream::Poll(std::chrono::milliseconds timeout) {
    if (stop_) return false;
    int n = ring_buffer__poll(rb_.get(), static_cast<int>(timeout.count()));
    if (n < 0 && n != -EINTR && n != -ECANCELED) {
        throw Error(kExitError, "ring buffer poll: " + Errno(-n));
    }
    return !stop_;
}

}  // namespace mrcstat
