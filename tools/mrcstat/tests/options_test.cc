// SPDX-License-Identifier: GPL-2.0
#include "options.h"

#include <gtest/gtest.h>

namespace mrcstat {
namespace {

std::optional<Options> P(std::vector<std::string> a, std::string* e = nullptr) {
    std::string err;
    auto o = ParseArgs(a, err);
    if (e) *e = err;
    return o;
}

TEST(Options, DefaultsToShow) {
    auto o = P({});
    ASSERT_TRUE(o);
    EXPECT_EQ(o->cmd, Command::kShow);
    EXPECT_EQ(o->pin_dir, "/sys/fs/bpf/mrc");
    EXPECT_FALSE(o->json);
    EXPECT_FALSE(o->count);
    EXPECT_DOUBLE_EQ(o->interval_s, 1.0);
}

TEST(Options, CommandsAndFlagsInAnyOrder) {
    auto o = P({"-j", "events", "-c", "3", "-t", "2.5", "-d", "/sys/fs/bpf/x/"});
    ASSERT_TRUE(o);
    EXPECT_EQ(o->cmd, Command::kEvents);
    EXPECT_TRUE(o->json);
    EXPECT_EQ(*o->count, 3u);
    EXPECT_DOUBLE_EQ(*o->duration_s, 2.5);
    EXPECT_EQ(o->pin_dir, "/sys/fs/bpf/x");
    o = P({"show", "-i", "0.5", "--no-evs", "--no-color"});
    ASSERT_TRUE(o);
    EXPECT_DOUBLE_EQ(o->interval_s, 0.5);
    EXPECT_FALSE(o->show_evs);
    EXPECT_EQ(o->colour, false);
    EXPECT_EQ(P({"attach"})->cmd, Command::kAttach);
    EXPECT_TRUE(P({"attach", "--rto-events"})->rto_events);
    EXPECT_FALSE(P({"show", "--rto-events"}));
    EXPECT_EQ(P({"detach"})->cmd, Command::kDetach);
    EXPECT_EQ(P({"--help", "bogus"})->cmd, Command::kHelp);
    EXPECT_EQ(P({"-V"})->cmd, Command::kVersion);
    EXPECT_EQ(P({"--version"})->cmd, Command::kVersion);
}

TEST(Options, Errors) {
    std::string e;
    EXPECT_FALSE(P({"frobnicate"}, &e));
    EXPECT_EQ(e, "unknown command frobnicate");
    EXPECT_FALSE(P({"-c"}, &e));
    EXPECT_EQ(e, "option -c needs a value");
    EXPECT_FALSE(P({"-c", "0"}, &e));
    EXPECT_FALSE(P({"-c", "12x"}, &e));
    EXPECT_FALSE(P({"-i", "0"}, &e));
    EXPECT_FALSE(P({"-i", "nan"}, &e));
    EXPECT_FALSE(P({"-d", "relative"}, &e));
    EXPECT_FALSE(P({"-t", "3"}, &e));  // only for events
    EXPECT_EQ(e, "-t is for mrcstat events");
    EXPECT_FALSE(P({"show", "attach"}, &e));
    EXPECT_FALSE(P({"--what"}, &e));
}

}  // namespace
}  // namespace mrcstat
