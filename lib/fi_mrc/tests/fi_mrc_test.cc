// SPDX-License-Identifier: GPL-2.0
// The provider's pure logic on the build host, no AF_MRC needed: the
// framing header, the errno mapping, hints matching and fi_getinfo()'s
// addresses (over the AF_UNIX test backend), and FI_ENODATA without mrc.ko.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

extern "C" {
#include "fi_mrc.h"
#include "fm_errno.h"
#include "libmrc.h"
}

// fm_attr.c logs through the provider; the test links no fabric.c.
struct fi_provider fm_prov = {};

TEST(Proto, RoundTrip) {
    struct fm_hdr h = {}, d;
    uint8_t buf[FM_HDR_LEN];

    h.op = FM_OP_READ_RESP;
    h.flags = FM_HDR_F_DATA;
    h.data = 0x0102030405060708ull;
    h.addr = 0x1122334455667788ull;
    h.key = 42;
    h.len = 16u << 20;
    h.id = 0xfeedbeef;
    h.status = -FI_ENOKEY;
    fm_hdr_encode(&h, buf);
    EXPECT_EQ(buf[0], 'M');
    EXPECT_EQ(buf[1], FM_VERSION);
    EXPECT_EQ(buf[2], FM_OP_READ_RESP);
    EXPECT_EQ(buf[8], 0x08);  // little-endian on the wire
    ASSERT_EQ(fm_hdr_decode(buf, sizeof(buf), &d), 0);
    EXPECT_EQ(d.op, h.op);
    EXPECT_EQ(d.flags, h.flags);
    EXPECT_EQ(d.data, h.data);
    EXPECT_EQ(d.addr, h.addr);
    EXPECT_EQ(d.key, h.key);
    EXPECT_EQ(d.len, h.len);
    EXPECT_EQ(d.id, h.id);
    EXPECT_EQ(d.status, h.status);
    EXPECT_STREQ(fm_op_name(FM_OP_MSG), "msg");
    EXPECT_STREQ(fm_op_name(99), "unknown");
}

TEST(Proto, RejectsForeignFrames) {
    struct fm_hdr h = {}, d;
    uint8_t buf[FM_HDR_LEN];

    h.op = FM_OP_MSG;
    fm_hdr_encode(&h, buf);
    EXPECT_EQ(fm_hdr_decode(buf, FM_HDR_LEN - 1, &d), -1);  // short
    buf[0] = 'X';
    EXPECT_EQ(fm_hdr_decode(buf, sizeof(buf), &d), -1);  // magic
    fm_hdr_encode(&h, buf);
    buf[1] = 2;
    EXPECT_EQ(fm_hdr_decode(buf, sizeof(buf), &d), -1);  // version
    fm_hdr_encode(&h, buf);
    buf[2] = 0;
    EXPECT_EQ(fm_hdr_decode(buf, sizeof(buf), &d), -1);  // op 0
    buf[2] = FM_OP_MAX + 1;
    EXPECT_EQ(fm_hdr_decode(buf, sizeof(buf), &d), -1);  // op too big
    fm_hdr_encode(&h, buf);
    buf[3] = 1;
    EXPECT_EQ(fm_hdr_decode(buf, sizeof(buf), &d), -1);  // reserved
    fm_hdr_encode(&h, buf);
    buf[4] = 2;
    EXPECT_EQ(fm_hdr_decode(buf, sizeof(buf), &d), -1);  // unknown flag
}

TEST(Errno, Mapping) {
    // The AF_MRC errno contract, as fi_errno.
    EXPECT_EQ(fm_fi_errno(0), 0);
    EXPECT_EQ(fm_fi_errno(ECONNREFUSED), FI_ECONNREFUSED);
    EXPECT_EQ(fm_fi_errno(-ECONNREFUSED), FI_ECONNREFUSED);
    EXPECT_EQ(fm_fi_errno(ETIMEDOUT), FI_ETIMEDOUT);
    EXPECT_EQ(fm_fi_errno(EMSGSIZE), FI_EMSGSIZE);
    EXPECT_EQ(fm_fi_errno(ECONNRESET), FI_ECONNRESET);
    EXPECT_EQ(fm_fi_errno(EPIPE), FI_ECONNRESET);
    EXPECT_EQ(fm_fi_errno(EAGAIN), FI_EAGAIN);
    EXPECT_EQ(fm_fi_errno(ENETUNREACH), FI_ENETUNREACH);
    EXPECT_EQ(fm_fi_errno(EHOSTUNREACH), FI_EHOSTUNREACH);
    EXPECT_EQ(fm_fi_errno(EACCES), FI_EACCES);
    EXPECT_EQ(fm_fi_errno(EADDRINUSE), FI_EADDRINUSE);
    EXPECT_EQ(fm_fi_errno(EADDRNOTAVAIL), FI_EADDRNOTAVAIL);
    EXPECT_EQ(fm_fi_errno(EINVAL), FI_EINVAL);
    EXPECT_EQ(fm_fi_errno(ENOTCONN), FI_ENOTCONN);
    EXPECT_EQ(fm_fi_errno(EISCONN), FI_EISCONN);
    EXPECT_EQ(fm_fi_errno(EALREADY), FI_EALREADY);
    EXPECT_EQ(fm_fi_errno(EOPNOTSUPP), FI_EOPNOTSUPP);
    EXPECT_EQ(fm_fi_errno(ENOENT), FI_ENOENT);
    EXPECT_EQ(fm_fi_errno(EAFNOSUPPORT), FI_ENODATA);
    EXPECT_EQ(fm_fi_errno(EPROTO), FI_EOTHER);
    EXPECT_EQ(fm_fi_errno(EXDEV), FI_EOTHER);
}

static struct fi_info* msg_hints(void) {
    struct fi_info* h = fi_allocinfo();

    h->ep_attr->type = FI_EP_MSG;
    h->caps = FI_MSG;
    return h;
}

TEST(Attr, BaseInfo) {
    struct fi_info* b = fm_info_base();

    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->ep_attr->type, FI_EP_MSG);
    EXPECT_EQ(b->addr_format, (uint32_t)FI_SOCKADDR_IN6);
    EXPECT_EQ(b->ep_attr->max_msg_size, (size_t)MRC_MSG_MAX - FM_HDR_LEN);
    EXPECT_EQ(b->domain_attr->mr_mode, 0);
    EXPECT_EQ(b->mode, 0u);
    // What ofi_rxm asks of a core provider.
    EXPECT_EQ(b->caps & (FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ | FI_REMOTE_WRITE),
              FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ | FI_REMOTE_WRITE);
    EXPECT_GE(b->domain_attr->cq_data_size, 4u);
    EXPECT_GE(b->tx_attr->size, 128u);
    EXPECT_GE(b->rx_attr->size, 128u);
    EXPECT_EQ(b->fabric_attr->prov_name, nullptr);  // the core's to set
    EXPECT_STREQ(b->fabric_attr->name, "mrc");
    fi_freeinfo(b);
}

TEST(Attr, HintsMatching) {
    struct fi_info *b = fm_info_base(), *h = msg_hints();

    EXPECT_EQ(fm_info_match(b, h), 0);
    h->caps = FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ | FI_REMOTE_WRITE;
    h->mode = FI_CONTEXT | FI_RX_CQ_DATA | FI_MSG_PREFIX;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED;
    h->tx_attr->size = 128;
    h->rx_attr->size = 128;
    EXPECT_EQ(fm_info_match(b, h), 0);  // ofi_rxm's core hints

    h->ep_attr->type = FI_EP_RDM;
    EXPECT_EQ(fm_info_match(b, h), -FI_ENODATA);
    h->ep_attr->type = FI_EP_MSG;
    h->caps |= FI_TAGGED;
    EXPECT_EQ(fm_info_match(b, h), -FI_ENODATA);
    h->caps = FI_MSG | FI_ATOMIC;
    EXPECT_EQ(fm_info_match(b, h), -FI_ENODATA);
    h->caps = FI_MSG;
    h->addr_format = FI_SOCKADDR_IN;
    EXPECT_EQ(fm_info_match(b, h), -FI_ENODATA);
    h->addr_format = FI_SOCKADDR_IN6;
    EXPECT_EQ(fm_info_match(b, h), 0);
    h->ep_attr->max_msg_size = (size_t)MRC_MSG_MAX;
    EXPECT_EQ(fm_info_match(b, h), -FI_ENODATA);
    h->ep_attr->max_msg_size = 0;
    h->domain_attr->data_progress = FI_PROGRESS_AUTO;
    EXPECT_EQ(fm_info_match(b, h), -FI_ENODATA);
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    h->domain_attr->cq_data_size = 16;
    EXPECT_EQ(fm_info_match(b, h), -FI_ENODATA);
    h->domain_attr->cq_data_size = 4;
    h->ep_attr->rx_ctx_cnt = FI_SHARED_CONTEXT;
    EXPECT_EQ(fm_info_match(b, h), -FI_ENODATA);
    h->ep_attr->rx_ctx_cnt = 0;
    h->tx_attr->inject_size = FM_INJECT_SIZE + 1;
    EXPECT_EQ(fm_info_match(b, h), -FI_ENODATA);
    h->tx_attr->inject_size = 0;
    h->rx_attr->op_flags = FI_MULTI_RECV;
    EXPECT_EQ(fm_info_match(b, h), -FI_ENODATA);
    h->rx_attr->op_flags = 0;
    free(h->domain_attr->name);
    h->domain_attr->name = strdup("eth0");
    EXPECT_EQ(fm_info_match(b, h), -FI_ENODATA);
    fi_freeinfo(h);
    fi_freeinfo(b);
}

TEST(Attr, Addresses) {
    struct sockaddr_in6 s6 = {}, out;
    struct sockaddr_in s4 = {};
    char buf[64];
    size_t len = 4;

    s6.sin6_family = AF_INET6;
    s6.sin6_port = htons(7471);
    s6.sin6_flowinfo = 5;
    EXPECT_EQ(fm_addr_from(&s6, sizeof(s6), &out), 0);
    EXPECT_EQ(out.sin6_port, htons(7471));
    EXPECT_EQ(out.sin6_flowinfo, 0u);
    EXPECT_EQ(fm_addr_from(&s6, sizeof(s6) - 1, &out), -FI_EINVAL);
    s4.sin_family = AF_INET;
    EXPECT_EQ(fm_addr_from(&s4, sizeof(s6), &out), -FI_EINVAL);
    EXPECT_EQ(fm_addr_copyout(&s6, buf, &len), -FI_ETOOSMALL);
    EXPECT_EQ(len, sizeof(s6));
    EXPECT_EQ(fm_addr_copyout(&s6, buf, &len), 0);
    setenv("FI_MRC_ADDR", "fd00::7", 1);
    EXPECT_EQ(fm_addr_source(nullptr, &out), 0);
    inet_ntop(AF_INET6, &out.sin6_addr, buf, sizeof(buf));
    EXPECT_STREQ(buf, "fd00::7");
    unsetenv("FI_MRC_ADDR");
    s6.sin6_addr = in6addr_loopback;
    EXPECT_EQ(fm_addr_source(&s6, &out), 0);  // the route to ::1
    EXPECT_TRUE(IN6_IS_ADDR_LOOPBACK(&out.sin6_addr));
}

TEST(GetInfo, NodeServiceAndSource) {
    struct fi_info *h = msg_hints(), *info = nullptr;
    struct sockaddr_in6* a;
    char txt[64];

    setenv("FI_MRC_BACKEND", "unix", 1);
    ASSERT_EQ(fm_getinfo(FI_VERSION(1, 17), "fd00::2", "7471", 0, h, &info), 0);
    ASSERT_NE(info->dest_addr, nullptr);
    a = (struct sockaddr_in6*)info->dest_addr;
    inet_ntop(AF_INET6, &a->sin6_addr, txt, sizeof(txt));
    EXPECT_STREQ(txt, "fd00::2");
    EXPECT_EQ(ntohs(a->sin6_port), 7471);
    ASSERT_NE(info->src_addr, nullptr);  // a source is always named
    EXPECT_EQ(info->caps & (FI_SEND | FI_RECV), FI_SEND | FI_RECV);
    fi_freeinfo(info);

    ASSERT_EQ(fm_getinfo(FI_VERSION(1, 17), nullptr, "7472", FI_SOURCE, h, &info), 0);
    EXPECT_EQ(info->dest_addr, nullptr);
    a = (struct sockaddr_in6*)info->src_addr;
    EXPECT_EQ(ntohs(a->sin6_port), 7472);
    EXPECT_TRUE(IN6_IS_ADDR_UNSPECIFIED(&a->sin6_addr));
    fi_freeinfo(info);

    EXPECT_EQ(fm_getinfo(FI_VERSION(1, 17), "fd00::2", "70000", 0, h, &info), -FI_ENODATA);
    h->ep_attr->type = FI_EP_RDM;
    EXPECT_EQ(fm_getinfo(FI_VERSION(1, 17), nullptr, nullptr, 0, h, &info), -FI_ENODATA);
    fi_freeinfo(h);
}

TEST(GetInfo, NoModuleNoProvider) {
    struct fi_info* info = nullptr;

    unsetenv("FI_MRC_BACKEND");
    if (mrc_family() >= 0) GTEST_SKIP() << "mrc.ko is loaded here";
    EXPECT_EQ(fm_getinfo(FI_VERSION(1, 17), nullptr, nullptr, 0, nullptr, &info), -FI_ENODATA);
    EXPECT_EQ(info, nullptr);
}
