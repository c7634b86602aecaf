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

TEST(UapiLayout, Constants) {
    EXPECT_EQ(AF_MRC_DEFAULT, 12);  // AF_DECnet's slot, unused since 6.1
    EXPECT_LT(AF_MRC_DEFAULT, AF_MAX);
    EXPECT_EQ(MRC_PROTO_DEFAULT, 0);
    EXPECT_LT(MRC_PORT_EPHEMERAL_MIN, MRC_PORT_EPHEMERAL_MAX);
    EXPECT_LE(MRC_PORT_EPHEMERAL_MAX, 65535);
    EXPECT_STREQ(MRC_FAMILY_SYSFS, "/sys/module/mrc/parameters/family");
}

}  // namespace
