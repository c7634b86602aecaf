// SPDX-License-Identifier: GPL-2.0
#include "netns.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace mrcstat {
namespace {

uint32_t Ino(const std::string& p) {
    struct stat st {};
    EXPECT_EQ(0, stat(p.c_str(), &st)) << p;
    return static_cast<uint32_t>(st.st_ino);
}

// A stand-in for /run/netns: any file's inode plays the nsfs inode.
TEST(NetnsNames, NamesByInodeAndInit) {
    char tmpl[] = "/tmp/mrcstat-netns-XXXXXX";
    ASSERT_NE(nullptr, mkdtemp(tmpl));
    const std::string dir = tmpl;
    for (const char* n : {"blue", "red", "init-file"}) std::ofstream(dir + "/" + n) << n;
    auto names = NetnsNames(dir, dir + "/init-file");
    EXPECT_EQ("blue", names[Ino(dir + "/blue")]);
    EXPECT_EQ("red", names[Ino(dir + "/red")]);
    // An ip netns name wins over "init" for the same namespace.
    EXPECT_EQ("init-file", names[Ino(dir + "/init-file")]);
    EXPECT_EQ(3u, names.size());
    names = NetnsNames(dir + "/nonexistent", dir + "/red");
    ASSERT_EQ(1u, names.size());
    EXPECT_EQ("init", names[Ino(dir + "/red")]);
    for (const char* n : {"blue", "red", "init-file"}) unlink((dir + "/" + n).c_str());
    rmdir(dir.c_str());
}

}  // namespace
}  // namespace mrcstat
