// SPDX-License-Identifier: GPL-2.0 OR MIT
// ABI of uapi/linux/mrc.h as seen from C++ and from C (same numbers).
#include <gtest/gtest.h>
#include <linux/mrc.h>
#include <sys/socket.h>

#include <cstddef>
#include <type_traits>

extern "C" size_t mrc_uapi_c_sockaddr_size(void);

namespace {

TEST(UapiLayout, SockaddrSizeMatchesCAndFitsStorage) {
    EXPECT_EQ(sizeof(sockaddr_mrc), static_cast<size_t>(MRC_SOCKADDR_SIZE));
    EXPECT_EQ(sizeof(sockaddr_mrc), mrc_uapi_c_sockaddr_size());
    EXPECT_LE(sizeof(sockaddr_mrc), sizeof(sockaddr_storage));
    EXPECT_TRUE(std::is_standard_layout_v<sockaddr_mrc>);
    EXPECT_TRUE(std::is_trivially_copyable_v<sockaddr_mrc>);
}

TEST(UapiLayout, SockaddrOffsets) {
    EXPECT_EQ(offsetof(sockaddr_mrc, smrc_family), 0u);
    EXPECT_EQ(offsetof(sockaddr_mrc, smrc_port), 2u);
    EXPECT_EQ(offsetof(sockaddr_mrc, smrc_flags), 4u);
    EXPECT_EQ(offsetof(sockaddr_mrc, smrc_addr), 8u);
    EXPECT_EQ(offsetof(sockaddr_mrc, smrc_scope_id), 24u);
    EXPECT_EQ(offsetof(sockaddr_mrc, smrc_reserved), 28u);
    // The family field sits where every sockaddr keeps it.
    EXPECT_EQ(offsetof(sockaddr_mrc, smrc_family), offsetof(sockaddr, sa_family));
    EXPECT_EQ(sizeof(sockaddr_mrc::smrc_family), sizeof(sa_family_t));
}

// struct mrc_info only grows: each version starts where the one before
// ended (a program passes the size it knows and gets that prefix).
TEST(UapiLayout, InfoVersionsAppendOnly) {
    auto v = [](int size) { return static_cast<size_t>(size); };
    EXPECT_EQ(offsetof(mrc_info, mi_spurious_timeouts), v(MRC_INFO_SIZE_V1));
    EXPECT_EQ(offsetof(mrc_info, mi_lost_inferred), v(MRC_INFO_SIZE_V2));
    EXPECT_EQ(offsetof(mrc_info, mi_iw_share_cuts), v(MRC_INFO_SIZE_V3));
    EXPECT_EQ(offsetof(mrc_info, mi_tx_sacks), v(MRC_INFO_SIZE_V4));
    EXPECT_EQ(offsetof(mrc_info, mi_rtx_path), v(MRC_INFO_SIZE_V5));
    EXPECT_EQ(offsetof(mrc_info, mi_local_drops), v(MRC_INFO_SIZE_V6));
    EXPECT_EQ(offsetof(mrc_info, mi_rmem_alloc), v(MRC_INFO_SIZE_V7));
    EXPECT_EQ(offsetof(mrc_info, mi_fwd_alloc), v(MRC_INFO_SIZE_V7) + 40);
    EXPECT_EQ(offsetof(mrc_info, mi_sndbuf) + sizeof(__u32), v(MRC_INFO_SIZE_V8));
    EXPECT_EQ(sizeof(mrc_info), v(MRC_INFO_SIZE_V8));
    EXPECT_EQ(sizeof(mrc_info) % 8, 0u);
}

TEST(UapiLayout, Constants) {
    EXPECT_EQ(AF_MRC_DEFAULT, 12);  // AF_DECnet's slot, unused since 6.1
    EXPECT_LT(AF_MRC_DEFAULT, AF_MAX);
    EXPECT_EQ(MRC_PROTO_DEFAULT, 0);
    EXPECT_LT(MRC_PORT_EPHEMERAL_MIN, MRC_PORT_EPHEMERAL_MAX);
    EXPECT_LE(MRC_PORT_EPHEMERAL_MAX, 65535);
    EXPECT_STREQ(MRC_FAMILY_SYSFS, "/sys/module/mrc/parameters/family");
}

}  // namespace
