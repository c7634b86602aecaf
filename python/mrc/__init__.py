# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""AF_MRC sockets for Python, over libmrc (ctypes).

CPython's socket module knows nothing of AF_MRC: it cannot turn an address
tuple into a struct sockaddr_mrc, so bind() and connect() fail with "bad
family". ``mrc.socket`` is a ``socket.socket`` whose address-taking and
address-returning methods go through libmrc; everything else (send, recv,
sendmsg, settimeout, select, asyncio's sock_* calls on a non-blocking
socket, context management) is the standard socket's::

    import mrc
    with mrc.socket() as s:
        s.connect(("fd00::2", 7471))
        s.send(b"hello")
        print(s.recv(65536), s.info()["srtt_ns"])

Addresses are tuples as for AF_INET6: ``(host, port)`` or
``(host, port, flowinfo, scope_id)`` on input, always the 4-tuple on output
(flowinfo is 0). A host is an IPv6 or IPv4 address (IPv4 is carried as
::ffff:a.b.c.d), optionally with ``%interface``, or a name resolved with
getaddrinfo(); "" is any address.
"""

import ctypes
import errno as _errno
import os as _os
import select as _select
import socket as _socket

__all__ = ["family", "socket", "create_connection", "create_server",
           "state_name", "lib_version", "sockaddr_hex", "SOCK_SEQPACKET", "SOL_MRC",
           "MRC_EV_SET_SIZE", "MRC_PROFILE", "MRC_PLANE_MASK", "MRC_INFO",
           "MRC_MSG_MAX"]

# Values of uapi/linux/mrc.h (ABI, never renumbered).
SOCK_SEQPACKET = _socket.SOCK_SEQPACKET
SOL_MRC = 261
MRC_EV_SET_SIZE = 1
MRC_PROFILE = 2
MRC_PLANE_MASK = 3
MRC_INFO = 4
MRC_MSG_MAX = 16 << 20
MRC_INFO_PLANES = 32
_ADDRSTRLEN = 46 + 16 + 9


class _SockaddrMrc(ctypes.Structure):
    _fields_ = [("smrc_family", ctypes.c_uint16),
                ("smrc_port", ctypes.c_uint16),     # network byte order
                ("smrc_flags", ctypes.c_uint32),
                ("smrc_addr", ctypes.c_uint8 * 16),
                ("smrc_scope_id", ctypes.c_uint32),
                ("smrc_reserved", ctypes.c_uint32)]


class _InfoPlane(ctypes.Structure):
    _fields_ = [("tx_pkts", ctypes.c_uint64), ("tx_bytes", ctypes.c_uint64),
                ("evs", ctypes.c_uint32), ("evs_active", ctypes.c_uint32),
                ("evs_good", ctypes.c_uint32), ("evs_bad", ctypes.c_uint32)]


_U32, _U64 = ctypes.c_uint32, ctypes.c_uint64


class _Info(ctypes.Structure):
    _fields_ = ([(n, _U32) for n in ("mi_size", "mi_state", "mi_qpn", "mi_peer_qpn",
                                     "mi_mtu", "mi_cwnd")] +
                [(n, _U64) for n in ("mi_srtt_ns", "mi_min_rtt_ns", "mi_rttvar_ns",
                                     "mi_retransmits", "mi_timeouts", "mi_tx_msgs",
                                     "mi_rx_msgs", "mi_tx_pkts", "mi_tx_bytes",
                                     "mi_rx_pkts", "mi_rx_bytes", "mi_rx_dup",
                                     "mi_rx_oow")] +
                [(n, _U32) for n in ("mi_ev_good", "mi_ev_skip", "mi_ev_bad",
                                     "mi_ev_denied", "mi_n_planes", "mi_retry_left",
                                     "mi_snd_una", "mi_snd_nxt", "mi_rcv_cack",
                                     "mi_reserved")] +
                [("mi_planes", _InfoPlane * MRC_INFO_PLANES),
                 ("mi_spurious_timeouts", _U64), ("mi_rto_ns", _U64),
                 ("mi_cc_algo", _U32), ("mi_plane_ids", _U32),
                 ("mi_lost_inferred", _U64), ("mi_spurious_losses", _U64),
                 ("mi_tlp_probes", _U64), ("mi_iw_share_cuts", _U64),
                 ("mi_tx_sacks", _U64), ("mi_tx_sacks_merged", _U64),
                 ("mi_rx_sacks", _U64),
                 ("mi_rtx_path", _U64), ("mi_paths_retired", _U64),
                 ("mi_paths_gray", _U64), ("mi_cwnd_cuts_spared", _U64),
                 ("mi_local_drops", _U64), ("mi_rtx_local", _U64)] +
                [(n, _U64) for n in ("mi_rmem_alloc", "mi_rmem_unread", "mi_wmem_queued",
                                     "mi_wmem_kept", "mi_mem_charged")] +
                [(n, _U32) for n in ("mi_fwd_alloc", "mi_wmem_alloc", "mi_rcvbuf",
                                     "mi_sndbuf")])


# The ABI sizes of uapi/linux/mrc.h: a mismatch is a bug here, not the user's.
assert ctypes.sizeof(_SockaddrMrc) == 32
assert ctypes.sizeof(_Info) == 168 + MRC_INFO_PLANES * 32 + 24 + 24 + 8 + 24 + 32 + 16 + 56


def _load_libmrc():
    # MRC_LIBMRC names the library file (a build tree, a test); otherwise
    # the installed soname, as the dynamic linker finds it.
    path = _os.environ.get("MRC_LIBMRC") or "libmrc.so.0"
    try:
        lib = ctypes.CDLL(path, use_errno=True)
    except OSError as e:
        raise ImportError("mrc: cannot load libmrc (%s): %s; install libmrc0 "
                          "or set MRC_LIBMRC" % (path, e)) from e
    sa_p = ctypes.POINTER(_SockaddrMrc)
    for name, res, args in (
            ("mrc_family", ctypes.c_int, []),
            ("mrc_socket", ctypes.c_int, [ctypes.c_int]),
            ("mrc_addr_parse", ctypes.c_int, [ctypes.c_char_p, ctypes.c_uint16, sa_p]),
            ("mrc_addr_format", ctypes.c_int, [sa_p, ctypes.c_char_p, ctypes.c_size_t]),
            ("mrc_local_addr", ctypes.c_int, [ctypes.c_int, sa_p]),
            ("mrc_peer_addr", ctypes.c_int, [ctypes.c_int, sa_p]),
            ("mrc_set_ev_set_size", ctypes.c_int, [ctypes.c_int, ctypes.c_uint32]),
            ("mrc_set_plane_mask", ctypes.c_int, [ctypes.c_int, ctypes.c_uint32]),
            ("mrc_set_profiles", ctypes.c_int,
             [ctypes.c_int, ctypes.c_uint16, ctypes.c_uint16]),
            ("mrc_get_info", ctypes.c_int, [ctypes.c_int, ctypes.POINTER(_Info)]),
            ("mrc_state_name", ctypes.c_char_p, [ctypes.c_uint32]),
            ("mrc_lib_version", ctypes.c_char_p, [])):
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


_lib = _load_libmrc()
# bind/connect/accept4 of libc: CPython's own refuse a family they do not
# know. ctypes releases the GIL around them, so a blocking call blocks only
# its thread.
_libc = ctypes.CDLL(None, use_errno=True)
for _n in ("bind", "connect"):
    getattr(_libc, _n).argtypes = [ctypes.c_int, ctypes.POINTER(_SockaddrMrc), ctypes.c_uint32]
_libc.accept4.argtypes = [ctypes.c_int, ctypes.POINTER(_SockaddrMrc),
                          ctypes.POINTER(ctypes.c_uint32), ctypes.c_int]


def _oserror(what=None):
    err = ctypes.get_errno()
    return OSError(err, _os.strerror(err) + ((" (%s)" % what) if what else ""))


def family():
    """The AF_MRC number of the loaded mrc.ko (autoloading it if installed)."""
    fam = _lib.mrc_family()
    if fam < 0:
        raise _oserror("mrc.ko is not loaded")
    return fam


def lib_version():
    """libmrc's version (the project's)."""
    return _lib.mrc_lib_version().decode()


def state_name(state):
    """Name of an MRC_INFO state number: "established", "failed", ..."""
    return _lib.mrc_state_name(state).decode()


def _resolve(host):
    # A name (not an address) through getaddrinfo(), IPv6 first.
    for fam in (_socket.AF_INET6, _socket.AF_INET):
        try:
            infos = _socket.getaddrinfo(host, None, fam, _socket.SOCK_DGRAM)
        except _socket.gaierror:
            continue
        if infos:
            return infos[0][4][0]
    raise _socket.gaierror(_socket.EAI_NONAME, "mrc: cannot resolve %r" % host)


def _to_sockaddr(address):
    if not isinstance(address, tuple) or len(address) not in (2, 4):
        raise TypeError("AF_MRC address must be a tuple (host, port) or "
                        "(host, port, flowinfo, scope_id)")
    host, port = address[0], address[1]
    if isinstance(host, bytes):
        host = host.decode()
    if not isinstance(host, str) or not isinstance(port, int):
        raise TypeError("AF_MRC address must be (str, int, ...)")
    if not 0 <= port <= 0xffff:
        raise OverflowError("port must be 0-65535.")
    sa = _SockaddrMrc()
    if _lib.mrc_addr_parse(("[%s]" % host).encode(), port, ctypes.byref(sa)):
        err = ctypes.get_errno()
        if err != _errno.EINVAL:
            raise OSError(err, "%s: %r" % (_os.strerror(err), host))
        # Not an address: a name, then, through getaddrinfo().
        if _lib.mrc_addr_parse(("[%s]" % _resolve(host)).encode(), port, ctypes.byref(sa)):
            err = ctypes.get_errno()
            raise OSError(err, "%s: %r" % (_os.strerror(err), host))
    if len(address) == 4:
        if address[2]:
            raise OSError(_errno.EINVAL, "AF_MRC has no flowinfo")
        if address[3]:
            sa.smrc_scope_id = address[3]
    return sa


def _from_sockaddr(sa):
    text = ctypes.create_string_buffer(_ADDRSTRLEN)
    if _lib.mrc_addr_format(ctypes.byref(sa), text, len(text)):
        raise _oserror()
    host = text.value.decode()
    host = host[1:host.rindex("]")]
    return (host, _socket.ntohs(sa.smrc_port), 0, sa.smrc_scope_id)


def sockaddr_hex(address):
    """The struct sockaddr_mrc of ``address`` without its family field, in
    hex: what generic socket addresses of other tools take, e.g. socat's
    ``SOCKET-CONNECT:<family>:0:x<hex>,socktype=5``."""
    sa = _to_sockaddr(address)
    return bytes(sa)[2:].hex()


class socket(_socket.socket):
    """An AF_MRC SOCK_SEQPACKET socket: one message per send(), one per recv()."""

    __slots__ = ()

    def __init__(self, family=-1, type=-1, proto=-1, fileno=None):
        fam = globals()["family"]()
        if family not in (-1, None, fam):
            raise OSError(_errno.EAFNOSUPPORT, "mrc.socket is AF_MRC (%d) only" % fam)
        if fileno is None:
            fileno = _lib.mrc_socket(_socket.SOCK_CLOEXEC)
            if fileno < 0:
                raise _oserror("socket(AF_MRC)")
        super().__init__(fam, SOCK_SEQPACKET, 0, fileno)

    @property
    def family(self):
        # The number, not socket.AF_DECnet (the slot AF_MRC borrows).
        return int(super().family)

    def _wait(self, events, deadline_s):
        poller = _select.poll()
        poller.register(self.fileno(), events)
        if not poller.poll(None if deadline_s is None else max(0, deadline_s * 1000)):
            raise TimeoutError("timed out")

    def bind(self, address):
        sa = _to_sockaddr(address)
        if _libc.bind(self.fileno(), ctypes.byref(sa), ctypes.sizeof(sa)):
            raise _oserror()

    def connect_ex(self, address):
        sa = _to_sockaddr(address)
        if _libc.connect(self.fileno(), ctypes.byref(sa), ctypes.sizeof(sa)) == 0:
            return 0
        err = ctypes.get_errno()
        timeout = self.gettimeout()
        if err == _errno.EINPROGRESS and timeout != 0.0:
            # A socket with a timeout is non-blocking underneath (CPython's
            # way): wait for the handshake as socket.connect() would.
            try:
                self._wait(_select.POLLOUT, timeout)
            except TimeoutError:
                return _errno.ETIMEDOUT
            err = self.getsockopt(_socket.SOL_SOCKET, _socket.SO_ERROR)
        return err

    def connect(self, address):
        err = self.connect_ex(address)
        if err == _errno.ETIMEDOUT and self.gettimeout():
            raise TimeoutError("timed out")
        if err:
            raise OSError(err, _os.strerror(err))

    def accept(self):
        sa, n = _SockaddrMrc(), ctypes.c_uint32(ctypes.sizeof(_SockaddrMrc))
        timeout = self.gettimeout()
        while True:
            fd = _libc.accept4(self.fileno(), ctypes.byref(sa), ctypes.byref(n),
                               _socket.SOCK_CLOEXEC)
            if fd >= 0:
                break
            err = ctypes.get_errno()
            if err == _errno.EINTR:
                continue
            if err in (_errno.EAGAIN, _errno.EWOULDBLOCK) and timeout != 0.0:
                self._wait(_select.POLLIN, timeout)
                continue
            raise OSError(err, _os.strerror(err))
        conn = socket(fileno=fd)
        if _socket.getdefaulttimeout() is None and timeout is not None:
            conn.setblocking(True)
        return conn, _from_sockaddr(sa)

    def getsockname(self):
        sa = _SockaddrMrc()
        if _lib.mrc_local_addr(self.fileno(), ctypes.byref(sa)):
            raise _oserror()
        return _from_sockaddr(sa)

    def getpeername(self):
        sa = _SockaddrMrc()
        if _lib.mrc_peer_addr(self.fileno(), ctypes.byref(sa)):
            raise _oserror()
        return _from_sockaddr(sa)

    def set_ev_set_size(self, evs):
        """MRC_EV_SET_SIZE (before connect() or on the listener)."""
        if _lib.mrc_set_ev_set_size(self.fileno(), evs):
            raise _oserror("MRC_EV_SET_SIZE")

    def set_plane_mask(self, mask):
        """MRC_PLANE_MASK: bit p lets the connection use plane p; 0 = all."""
        if _lib.mrc_set_plane_mask(self.fileno(), mask):
            raise _oserror("MRC_PLANE_MASK")

    def set_profiles(self, cc_profile=0, ev_profile=0):
        """MRC_PROFILE: the namespace's CC and EV profiles to use."""
        if _lib.mrc_set_profiles(self.fileno(), cc_profile, ev_profile):
            raise _oserror("MRC_PROFILE")

    def info(self):
        """MRC_INFO as a dict: the uapi names without "mi_", "state" as a
        name, "planes" as a list of per-plane dicts (only the planes the
        connection has)."""
        mi = _Info()
        if _lib.mrc_get_info(self.fileno(), ctypes.byref(mi)):
            raise _oserror("MRC_INFO")
        out = {}
        for name, _ in _Info._fields_:
            if name in ("mi_planes", "mi_reserved"):
                continue
            out[name[3:]] = getattr(mi, name)
        out["state"] = state_name(mi.mi_state)
        out["state_id"] = mi.mi_state
        out["planes"] = [{f: getattr(p, f) for f, _ in _InfoPlane._fields_}
                         for p in mi.mi_planes[:min(mi.mi_n_planes, MRC_INFO_PLANES)]]
        return out


def _set_options(s, plane_mask, ev_set_size, profiles):
    # The options that must be set before connect() or listen().
    if plane_mask:
        s.set_plane_mask(plane_mask)
    if ev_set_size:
        s.set_ev_set_size(ev_set_size)
    if profiles:
        s.set_profiles(*profiles)


def create_connection(address, timeout=None, source_address=None, *,
                      plane_mask=0, ev_set_size=0, profiles=None):
    """Connect to ``address`` and return the socket (socket.create_connection's
    shape, with the MRC options that must be set before connecting)."""
    s = socket()
    try:
        _set_options(s, plane_mask, ev_set_size, profiles)
        if timeout is not None:
            s.settimeout(timeout)
        if source_address:
            s.bind(source_address)
        s.connect(address)
        return s
    except BaseException:
        s.close()
        raise


def create_server(address, *, backlog=None, plane_mask=0, ev_set_size=0,
                  profiles=None):
    """A listening socket on ``address`` (port 0: the kernel picks one);
    the options are inherited by the accepted connections."""
    s = socket()
    try:
        _set_options(s, plane_mask, ev_set_size, profiles)
        s.bind(address)
        s.listen(backlog if backlog is not None else 128)
        return s
    except BaseException:
        s.close()
        raise
