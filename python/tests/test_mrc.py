# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""The Python package without the module (the build host has none): it
loads libmrc, mirrors the uapi structs at their ABI sizes, converts address
tuples and rejects bad ones, and reports a missing module as an OSError.
The socket calls themselves run in the guest (selftests/mrc/mrc_python.sh).
"""
import ctypes
import errno
import os
import socket
import unittest

import mrc


def _loaded():
    return os.path.exists("/sys/module/mrc/parameters/family")


class Abi(unittest.TestCase):
    def test_struct_sizes_are_the_uapi_ones(self):
        self.assertEqual(32, ctypes.sizeof(mrc._SockaddrMrc))
        self.assertEqual(168 + 32 * 32 + 24 + 24 + 8 + 24 + 32 + 16 + 56, ctypes.sizeof(mrc._Info))
        self.assertEqual(32, ctypes.sizeof(mrc._InfoPlane))

    def test_field_offsets(self):
        self.assertEqual(2, mrc._SockaddrMrc.smrc_port.offset)
        self.assertEqual(8, mrc._SockaddrMrc.smrc_addr.offset)
        self.assertEqual(24, mrc._SockaddrMrc.smrc_scope_id.offset)
        self.assertEqual(168, mrc._Info.mi_planes.offset)
        self.assertEqual(168 + 32 * 32, mrc._Info.mi_spurious_timeouts.offset)
        self.assertEqual(168 + 32 * 32 + 24, mrc._Info.mi_lost_inferred.offset)
        self.assertEqual(168 + 32 * 32 + 48, mrc._Info.mi_iw_share_cuts.offset)
        self.assertEqual(168 + 32 * 32 + 56, mrc._Info.mi_tx_sacks.offset)
        self.assertEqual(168 + 32 * 32 + 72, mrc._Info.mi_rx_sacks.offset)
        self.assertEqual(168 + 32 * 32 + 80, mrc._Info.mi_rtx_path.offset)
        self.assertEqual(168 + 32 * 32 + 104, mrc._Info.mi_cwnd_cuts_spared.offset)
        self.assertEqual(168 + 32 * 32 + 112, mrc._Info.mi_local_drops.offset)
        self.assertEqual(168 + 32 * 32 + 120, mrc._Info.mi_rtx_local.offset)
        self.assertEqual(168 + 32 * 32 + 128, mrc._Info.mi_rmem_alloc.offset)
        self.assertEqual(168 + 32 * 32 + 160, mrc._Info.mi_mem_charged.offset)
        self.assertEqual(168 + 32 * 32 + 168, mrc._Info.mi_fwd_alloc.offset)
        self.assertEqual(168 + 32 * 32 + 180, mrc._Info.mi_sndbuf.offset)

    def test_constants(self):
        self.assertEqual(261, mrc.SOL_MRC)
        self.assertEqual(4, mrc.MRC_INFO)
        self.assertEqual(socket.SOCK_SEQPACKET, mrc.SOCK_SEQPACKET)


class Library(unittest.TestCase):
    def test_version_and_states(self):
        self.assertRegex(mrc.lib_version(), r"^[0-9][0-9.]*$")
        self.assertEqual("established", mrc.state_name(3))
        self.assertEqual("failed", mrc.state_name(4))
        self.assertEqual("unknown", mrc.state_name(77))

    def test_from_sockaddr_formats_through_libmrc(self):
        sa = mrc._SockaddrMrc()
        sa.smrc_port = socket.htons(7471)
        sa.smrc_addr[:] = list(socket.inet_pton(socket.AF_INET6, "fd00::2"))
        self.assertEqual(("fd00::2", 7471, 0, 0), mrc._from_sockaddr(sa))
        sa.smrc_scope_id = socket.if_nametoindex("lo")
        self.assertEqual(("fd00::2%lo", 7471, 0, sa.smrc_scope_id), mrc._from_sockaddr(sa))


class Addresses(unittest.TestCase):
    def test_bad_tuples_fail_before_any_syscall(self):
        for bad in (("fd00::2",), "fd00::2", ("fd00::2", 1, 2), ("fd00::2", "7471"),
                    (7, 7471)):
            with self.assertRaises(TypeError, msg=repr(bad)):
                mrc._to_sockaddr(bad)
        for port in (-1, 65536):
            with self.assertRaises(OverflowError):
                mrc._to_sockaddr(("fd00::2", port))

    def test_without_the_module_everything_is_eafnosupport(self):
        if _loaded():  # a host with mrc.ko: the family is simply there
            self.assertGreater(mrc.family(), 0)
            return
        for call in (mrc.family, mrc.socket, lambda: mrc._to_sockaddr(("::1", 1)),
                     lambda: mrc.create_connection(("::1", 1))):
            with self.assertRaises(OSError) as cm:
                call()
            self.assertEqual(errno.EAFNOSUPPORT, cm.exception.errno)


if __name__ == "__main__":
    unittest.main()
