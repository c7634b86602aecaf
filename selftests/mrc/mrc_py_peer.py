#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Both ends of mrc_python.sh, written as an application would use the
python/mrc package. Prints one JSON object of evidence per run.

  mrc_py_peer.py serve PORT N        accept one connection, echo N messages
                                     reversed, report
  mrc_py_peer.py client ADDR PORT N  send N messages of seeded random sizes,
                                     check every echo, report
  mrc_py_peer.py probe ADDR          the error paths that need no peer
  mrc_py_peer.py echo1 PORT          accept one connection, echo messages
                                     reversed until the peer shuts down
  mrc_py_peer.py hex ADDR PORT       the address as socat's generic
                                     SOCKET-CONNECT takes it
"""
import hashlib
import json
import random
import sys

import mrc


def serve(port, n):
    srv = mrc.create_server(("", port))
    print(json.dumps({"listening": srv.getsockname()}), flush=True)
    conn, peer = srv.accept()
    digest = hashlib.sha256()
    nbytes = 0
    with conn:
        for _ in range(n):
            msg = conn.recv(mrc.MRC_MSG_MAX)
            digest.update(msg)
            nbytes += len(msg)
            conn.send(msg[::-1])
        info = conn.info()
        report = {"peer": peer, "getpeername": conn.getpeername(),
                  "sockname": conn.getsockname(), "family": conn.family,
                  "type": int(conn.type), "rx_sha256": digest.hexdigest(),
                  "rx_bytes": nbytes, "state": info["state"],
                  "rx_msgs": info["rx_msgs"]}
    srv.close()
    print(json.dumps(report), flush=True)


def client(addr, port, n):
    rng = random.Random(7471)
    # The issue's own example, word for word, then the messages.
    s = mrc.socket()
    s.connect((addr, port))
    s.send(b"hello over AF_MRC")
    assert s.recv(100) == b"CRM_FA revo olleh"
    digest = hashlib.sha256(b"hello over AF_MRC")
    nbytes, bad = len(b"hello over AF_MRC"), 0
    for i in range(n - 1):
        msg = rng.randbytes(rng.choice((1, 100, 4096, 9000, 65536, 1 << 20)))
        s.send(msg)
        digest.update(msg)
        nbytes += len(msg)
        if s.recv(mrc.MRC_MSG_MAX) != msg[::-1]:
            bad += 1
    info = s.info()
    report = {"peer": s.getpeername(), "sockname": s.getsockname(),
              "tx_sha256": digest.hexdigest(), "tx_bytes": nbytes,
              "bad_echoes": bad, "state": info["state"],
              "tx_msgs": info["tx_msgs"], "srtt_ns": info["srtt_ns"],
              "planes": len(info["planes"]), "lib_version": mrc.lib_version()}
    s.close()
    print(json.dumps(report), flush=True)


def probe(addr):
    out = {"family": mrc.family()}

    def errno_of(fn):
        try:
            fn()
        except (OSError, TypeError, OverflowError) as e:
            return type(e).__name__ + ":" + str(getattr(e, "errno", None))
        return "ok"

    with mrc.socket() as s:
        s.bind(("", 0))
        out["ephemeral"] = s.getsockname()[1]
    # Nobody listens on port 9: refused within the handshake, as TCP's RST.
    out["refused"] = errno_of(lambda: mrc.create_connection((addr, 9), timeout=5))
    out["refused_blocking"] = errno_of(lambda: mrc.socket().connect((addr, 9)))
    out["bad_tuple"] = errno_of(lambda: mrc.socket().connect((addr,)))
    out["bad_port"] = errno_of(lambda: mrc.socket().connect((addr, 70000)))
    out["bad_flowinfo"] = errno_of(lambda: mrc.socket().connect((addr, 1, 5, 0)))
    out["bad_addr"] = errno_of(lambda: mrc.socket().bind(("fd00::zz", 1)))
    out["not_local"] = errno_of(lambda: mrc.socket().bind(("2001:db8:ffff::1", 1)))
    with mrc.socket() as s:
        s.settimeout(0)
        out["nonblocking_connect"] = s.connect_ex((addr, 9))
    with mrc.socket() as s:
        out["info_unconnected"] = s.info()["state"]
        s.set_plane_mask(1)
        s.set_profiles(0, 0)
        out["bad_ev_set_size"] = errno_of(lambda: s.set_ev_set_size(100000))
    print(json.dumps(out), flush=True)


def echo1(port):
    srv = mrc.create_server(("", port))
    print(json.dumps({"listening": srv.getsockname()}), flush=True)
    conn, peer = srv.accept()
    msgs = []
    with conn:
        while True:
            msg = conn.recv(65536)
            if not msg:
                break
            msgs.append(msg.decode(errors="replace"))
            conn.send(msg[::-1])
    srv.close()
    print(json.dumps({"peer": peer, "msgs": msgs}), flush=True)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "serve":
        serve(int(sys.argv[2]), int(sys.argv[3]))
    elif cmd == "client":
        client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "probe":
        probe(sys.argv[2])
    elif cmd == "echo1":
        echo1(int(sys.argv[2]))
    elif cmd == "hex":
        print(mrc.sockaddr_hex((sys.argv[2], int(sys.argv[3]))))
    else:
        sys.exit("usage: see the module doc")
