// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
// libmrc without the module (the build host has none): endpoint text in both
// directions, option plumbing errors, state names. The calls that need
// mrc.ko run in the guest (selftests/mrc/mrc_python.sh, the selftest
// helpers and mrcperf link this library).
#include "libmrc.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <net/if.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace {

constexpr int kFam = 12;

sockaddr_mrc Parse(const char* text, uint16_t port = 0) {
    sockaddr_mrc sa;
    EXPECT_EQ(0, mrc_addr_parse_family(text, port, kFam, &sa)) << text;
    return sa;
}

std::string Addr(const sockaddr_mrc& sa) {
    char buf[INET6_ADDRSTRLEN];
    return inet_ntop(AF_INET6, sa.smrc_addr, buf, sizeof(buf));
}

std::string Format(const sockaddr_mrc& sa) {
    char buf[MRC_ADDRSTRLEN];
    EXPECT_EQ(0, mrc_addr_format(&sa, buf, sizeof(buf)));
    return buf;
}

TEST(AddrParse, BracketedIpv6WithPort) {
    sockaddr_mrc sa = Parse("[fd00::2]:7471");
    EXPECT_EQ(kFam, sa.smrc_family);
    EXPECT_EQ(7471, ntohs(sa.smrc_port));
    EXPECT_EQ("fd00::2", Addr(sa));
    EXPECT_EQ(0u, sa.smrc_scope_id);
    EXPECT_EQ(0u, sa.smrc_flags);
    EXPECT_EQ(0u, sa.smrc_reserved);
}

TEST(AddrParse, BareAddressTakesTheDefaultPort) {
    sockaddr_mrc sa = Parse("fd00::2", 9000);
    EXPECT_EQ(9000, ntohs(sa.smrc_port));
    EXPECT_EQ("fd00::2", Addr(sa));
    EXPECT_EQ(9000, ntohs(Parse("[fd00::2]", 9000).smrc_port));
}

TEST(AddrParse, Ipv4IsMapped) {
    sockaddr_mrc sa = Parse("10.1.2.3:80");
    EXPECT_EQ("::ffff:10.1.2.3", Addr(sa));
    EXPECT_EQ(80, ntohs(sa.smrc_port));
    EXPECT_EQ("::ffff:10.1.2.3", Addr(Parse("10.1.2.3", 1)));
}

TEST(AddrParse, EmptyIsAnyAddress) {
    for (const char* t : {"", ":7471", "[]:7471"}) {
        sockaddr_mrc sa = Parse(t, 7471);
        EXPECT_EQ("::", Addr(sa)) << t;
        EXPECT_EQ(7471, ntohs(sa.smrc_port)) << t;
    }
}

TEST(AddrParse, ScopeByNameAndByIndex) {
    unsigned lo = if_nametoindex("lo");
    ASSERT_NE(0u, lo);
    EXPECT_EQ(lo, Parse("[fe80::1%lo]:5").smrc_scope_id);
    EXPECT_EQ(7u, Parse("fe80::1%7").smrc_scope_id);
    sockaddr_mrc sa;
    errno = 0;
    EXPECT_EQ(-1, mrc_addr_parse_family("fe80::1%nosuchif0", 1, kFam, &sa));
    EXPECT_EQ(ENODEV, errno);
}

TEST(AddrParse, MalformedTextIsEinvalAndLeavesZeroes) {
    for (const char* t :
         {"[fd00::2", "[fd00::2]7471", "[fd00::2]:", "[fd00::2]:65536", "[fd00::2]:-1",
          "[fd00::2]:+1", "[fd00::2]:0x10", "fd00::zz", "10.0.0.1:1:2x", "host.example:80",
          "10.0.0.1%lo", "%lo", "[%lo]:1", "1.2.3.4:", "[fd00::2]: 1",
          "[0123456789012345678901234567890123456789012345678901234567890123456789]:1"}) {
        sockaddr_mrc sa;
        std::memset(&sa, 0xa5, sizeof(sa));
        errno = 0;
        EXPECT_EQ(-1, mrc_addr_parse_family(t, 1, kFam, &sa)) << t;
        EXPECT_EQ(EINVAL, errno) << t;
        EXPECT_EQ(0, sa.smrc_family) << t;
    }
}

TEST(AddrParse, NullAndBadFamilyAreEinval) {
    sockaddr_mrc sa;
    errno = 0;
    EXPECT_EQ(-1, mrc_addr_parse_family(nullptr, 1, kFam, &sa));
    EXPECT_EQ(EINVAL, errno);
    errno = 0;
    EXPECT_EQ(-1, mrc_addr_parse_family("::1", 1, 0, &sa));
    EXPECT_EQ(EINVAL, errno);
    errno = 0;
    EXPECT_EQ(-1, mrc_addr_parse_family("::1", 1, 70000, &sa));
    EXPECT_EQ(EINVAL, errno);
}

TEST(AddrFormat, RoundTrips) {
    for (const char* t : {"[fd00::2]:7471", "[::]:0", "[::ffff:10.1.2.3]:80", "[fe80::1%lo]:65535",
                          "[2001:db8:1:2:3:4:5:6]:1"})
        EXPECT_EQ(t, Format(Parse(t)));
}

TEST(AddrFormat, UnknownScopeIsPrintedAsIndex) {
    EXPECT_EQ("[fe80::1%4000000]:1", Format(Parse("[fe80::1%4000000]:1")));
}

TEST(AddrFormat, LongestEndpointFitsMrcAddrstrlen) {
    sockaddr_mrc sa = Parse("[ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255%4294967295]:65535");
    char buf[MRC_ADDRSTRLEN];
    ASSERT_EQ(0, mrc_addr_format(&sa, buf, sizeof(buf)));
    EXPECT_LT(std::strlen(buf), sizeof(buf));
}

TEST(AddrFormat, ShortBufferIsEnospc) {
    sockaddr_mrc sa = Parse("[fd00::2]:7471");
    char buf[8];
    errno = 0;
    EXPECT_EQ(-1, mrc_addr_format(&sa, buf, sizeof(buf)));
    EXPECT_EQ(ENOSPC, errno);
}

TEST(State, Names) {
    EXPECT_STREQ("closed", mrc_state_name(MRC_INFO_CLOSED));
    EXPECT_STREQ("listen", mrc_state_name(MRC_INFO_LISTEN));
    EXPECT_STREQ("connecting", mrc_state_name(MRC_INFO_CONNECTING));
    EXPECT_STREQ("established", mrc_state_name(MRC_INFO_ESTABLISHED));
    EXPECT_STREQ("failed", mrc_state_name(MRC_INFO_FAILED));
    EXPECT_STREQ("unknown", mrc_state_name(99));
}

TEST(Socket, BadFlagsAreEinval) {
    errno = 0;
    EXPECT_EQ(-1, mrc_socket(SOCK_DGRAM));
    EXPECT_EQ(EINVAL, errno);
}

// Whatever this host has, the family and a socket agree: no module means
// EAFNOSUPPORT from both, a loaded module means a usable family.
TEST(Family, AgreesWithSysfs) {
    struct stat st;
    bool loaded = stat(MRC_FAMILY_SYSFS, &st) == 0;
    errno = 0;
    int fam = mrc_family();
    if (loaded || fam > 0) {
        EXPECT_GT(fam, 0);
        int fd = mrc_socket(SOCK_CLOEXEC);
        EXPECT_GE(fd, 0);
        if (fd >= 0) close(fd);
    } else {
        EXPECT_EQ(-1, fam);
        EXPECT_EQ(EAFNOSUPPORT, errno);
        errno = 0;
        EXPECT_EQ(-1, mrc_socket(0));
        EXPECT_EQ(EAFNOSUPPORT, errno);
        sockaddr_mrc sa;
        errno = 0;
        EXPECT_EQ(-1, mrc_addr_parse("[::1]:1", 0, &sa));
        EXPECT_EQ(EAFNOSUPPORT, errno);
        errno = 0;
        EXPECT_EQ(-1, mrc_connect_to("[::1]:1", 0, nullptr, nullptr));
        EXPECT_EQ(EAFNOSUPPORT, errno);
    }
}

// Options on a socket that is not AF_MRC fail in the kernel, not silently.
TEST(Options, OnAnUdpSocketFail) {
    int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    mrc_conn_opts o{};
    EXPECT_EQ(0, mrc_apply_opts(fd, &o));  // nothing to set
    o.plane_mask = 3;
    EXPECT_EQ(-1, mrc_apply_opts(fd, &o));
    EXPECT_EQ(-1, mrc_set_ev_set_size(fd, 8));
    mrc_info mi;
    EXPECT_EQ(-1, mrc_get_info(fd, &mi));
    sockaddr_mrc sa;
    errno = 0;
    EXPECT_EQ(-1, mrc_local_addr(fd, &sa));
    EXPECT_EQ(EAFNOSUPPORT, errno);
    close(fd);
}

TEST(Version, IsTheProjects) { EXPECT_STREQ(MRC_VERSION, mrc_lib_version()); }

}  // namespace
