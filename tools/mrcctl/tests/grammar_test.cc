// SPDX-License-Identifier: GPL-2.0
#include "grammar.h"

#include <gtest/gtest.h>
#include <linux/mrc.h>

#include <sstream>

namespace mrcctl {
namespace {

Command P(const std::string& line) {
    std::vector<std::string> args;
    std::istringstream in(line);
    for (std::string w; in >> w;) args.push_back(w);
    return Parse(args);
}

std::string A(const in6_addr& a) { return AddrToString(a); }

TEST(Grammar, Probe) {
    Command c = P("probe 2001:db8::2 evs 8 timeout 500");
    EXPECT_EQ(c.object, Object::kProbe);
    EXPECT_EQ(A(c.probe.peer), "2001:db8::2");
    EXPECT_EQ(*c.probe.evs, 8u);
    EXPECT_EQ(*c.probe.timeout_ms, 500u);
    EXPECT_EQ(CommandName(c), "probe");
    // Defaults are the kernel's: nothing sent for them.
    c = P("prob fc00::1");
    EXPECT_EQ(c.object, Object::kProbe);
    EXPECT_FALSE(c.probe.evs);
    EXPECT_FALSE(c.probe.timeout_ms);
    // "pr" and "pro" stay profile.
    EXPECT_EQ(P("pr show").object, Object::kProfile);
    EXPECT_EQ(P("pro show").object, Object::kProfile);
    EXPECT_THROW(P("probe"), UsageError);
    EXPECT_THROW(P("probe fc00::1 evs 1 evs 2"), UsageError);
    EXPECT_THROW(P("probe fc00::1 evs"), UsageError);
    EXPECT_THROW(P("probe host.example"), UsageError);
    EXPECT_THROW(P("probe fc00::1 count 3"), UsageError);
    EXPECT_NE(UsageText("probe").find("mrcctl probe ADDR"), std::string::npos);
}

TEST(Grammar, PlaneAdd) {
    Command c = P("plane add id 0 dev pl0 addr 2001:db8:0::1");
    EXPECT_EQ(c.object, Object::kPlane);
    EXPECT_EQ(c.verb, Verb::kAdd);
    EXPECT_EQ(*c.plane.id, 0u);
    EXPECT_EQ(*c.plane.dev, "pl0");
    EXPECT_EQ(A(*c.plane.addr), "2001:db8::1");
    EXPECT_FALSE(c.plane.up);
    EXPECT_EQ(CommandName(c), "plane add");
}

TEST(Grammar, PlaneAddIfindexDown) {
    Command c = P("plane add id 31 ifindex 7 addr fc00::2 down");
    EXPECT_EQ(*c.plane.ifindex, 7u);
    EXPECT_FALSE(*c.plane.up);
}

TEST(Grammar, PlaneOutOfRangeIdIsTheKernelsBusiness) {
    // Syntax only: the kernel answers with an extack naming the range.
    EXPECT_EQ(*P("plane del id 99").plane.id, 99u);
}

TEST(Grammar, PlaneErrors) {
    EXPECT_THROW(P("plane add id 0 addr ::1"), UsageError);         // no dev
    EXPECT_THROW(P("plane add id 0 dev x"), UsageError);            // no addr
    EXPECT_THROW(P("plane add dev x addr ::1"), UsageError);        // no id
    EXPECT_THROW(P("plane add id x dev x addr ::1"), UsageError);   // bad number
    EXPECT_THROW(P("plane add id -1 dev x addr ::1"), UsageError);  // negative
    EXPECT_THROW(P("plane add id 4294967296 dev x addr ::1"), UsageError);
    EXPECT_THROW(P("plane add id 0 dev x addr 1.2.3.4"), UsageError);  // not IPv6
    EXPECT_THROW(P("plane add id 0 id 1 dev x addr ::1"), UsageError);
    EXPECT_THROW(P("plane add id 0 dev x ifindex 2 addr ::1"), UsageError);
    EXPECT_THROW(P("plane del id 0 dev x"), UsageError);
    EXPECT_THROW(P("plane set id 0"), UsageError);  // nothing to change
    EXPECT_THROW(P("plane frob id 0"), UsageError);
    EXPECT_THROW(P("plane add id"), UsageError);
}

TEST(Grammar, PlaneSetAndShow) {
    Command c = P("plane set id 3 down");
    EXPECT_EQ(c.verb, Verb::kSet);
    EXPECT_FALSE(*c.plane.up);
    EXPECT_TRUE(*P("plane set id 3 up").plane.up);
    EXPECT_EQ(P("plane show").verb, Verb::kShow);
    EXPECT_FALSE(P("plane show").plane.id);
    EXPECT_EQ(*P("plane show id 4").plane.id, 4u);
    EXPECT_EQ(P("plane").verb, Verb::kShow);
    EXPECT_EQ(P("plane list").verb, Verb::kShow);
}

TEST(Grammar, RouteAddSrh) {
    Command c =
        P("route add fc00:b::/64 encap srh plane 0 segs fc00:1::,fc00:2:: plane 0 segs fc00:3::");
    const RouteArgs& r = c.route;
    EXPECT_EQ(A(r.dst), "fc00:b::");
    EXPECT_EQ(r.len, 64);
    EXPECT_EQ(*r.encap, MRC_ENCAP_SRH);
    ASSERT_EQ(r.paths.size(), 2u);
    ASSERT_EQ(r.paths[0].segs.size(), 2u);
    EXPECT_EQ(A(r.paths[0].segs[1]), "fc00:2::");
    EXPECT_EQ(r.paths[1].segs.size(), 1u);
    EXPECT_FALSE(r.replace);
}

TEST(Grammar, RouteAddUsidAndNone) {
    Command c = P("route add fc00:c::/48 encap usid plane 1 usid fcbb:bbbb:100:200:300::");
    ASSERT_EQ(c.route.paths.size(), 1u);
    EXPECT_EQ(c.route.paths[0].plane, 1u);
    EXPECT_EQ(A(*c.route.paths[0].usid), "fcbb:bbbb:100:200:300::");
    Command n = P("route add 2001:db8::/32");
    EXPECT_FALSE(n.route.encap);
    EXPECT_TRUE(n.route.paths.empty());
    Command h = P("route add 2001:db8::5");
    EXPECT_EQ(h.route.len, 128);
}

TEST(Grammar, RouteReplace) {
    Command c = P("route replace fc00::/16 encap none plane 2");
    EXPECT_EQ(c.verb, Verb::kAdd);
    EXPECT_TRUE(c.route.replace);
    EXPECT_EQ(CommandName(c), "route replace");
}

TEST(Grammar, RouteErrors) {
    EXPECT_THROW(P("route add"), UsageError);
    EXPECT_THROW(P("route add fc00::/129"), UsageError);
    EXPECT_THROW(P("route add fc00::/x"), UsageError);
    EXPECT_THROW(P("route add fc00::/64 segs fc00::1"), UsageError);  // segs before plane
    EXPECT_THROW(P("route add fc00::/64 encap gre"), UsageError);
    EXPECT_THROW(P("route add fc00::/64 plane 0 segs fc00::1,,fc00::2"), UsageError);
    EXPECT_THROW(P("route add fc00::/64 plane 0 segs a,b"), UsageError);
    EXPECT_THROW(P("route del fc00::/64 plane 0"), UsageError);
    EXPECT_THROW(P("route get fc00::/64"), UsageError);
    EXPECT_THROW(P("route set fc00::/64"), UsageError);
}

TEST(Grammar, RouteShowGetDel) {
    EXPECT_FALSE(P("route show").route.has_prefix);
    Command s = P("route show fc00::/16");
    EXPECT_TRUE(s.route.has_prefix);
    EXPECT_TRUE(s.route.has_len);
    Command g = P("route get fc00::1");
    EXPECT_EQ(g.verb, Verb::kGet);
    EXPECT_FALSE(g.route.has_len);
    EXPECT_EQ(P("route del fc00::/16").verb, Verb::kDel);
}

TEST(Grammar, Profile) {
    Command c = P("profile add id 2 ev-count 256 ev-active 12 cc-algo fixed gamma 700");
    EXPECT_EQ(*c.profile.id, 2u);
    EXPECT_EQ(*c.profile.ev_count, 256u);
    EXPECT_EQ(*c.profile.cc_algo, MRC_CC_ALGO_FIXED);
    EXPECT_TRUE(c.profile.has_ev());
    EXPECT_TRUE(c.profile.has_cc());
    EXPECT_FALSE(c.profile.max_md);
    EXPECT_THROW(P("profile set id 2"), UsageError);
    EXPECT_THROW(P("profile add ev-count 128"), UsageError);
    EXPECT_THROW(P("profile add id 1 cc-algo cubic"), UsageError);
    EXPECT_THROW(P("profile del id 1 gamma 3"), UsageError);
    EXPECT_EQ(P("profile show").verb, Verb::kShow);
}

TEST(Grammar, OptionsAndObjects) {
    Command c = P("-j -n blue plane show");
    EXPECT_TRUE(c.json);
    EXPECT_EQ(c.netns, "blue");
    EXPECT_EQ(P("stats").object, Object::kStats);
    EXPECT_EQ(P("monitor").object, Object::kMonitor);
    EXPECT_EQ(P("help").object, Object::kHelp);
    EXPECT_EQ(P("--help").object, Object::kHelp);
    EXPECT_THROW(P(""), UsageError);
    EXPECT_THROW(P("-x plane"), UsageError);
    EXPECT_THROW(P("-n"), UsageError);
    EXPECT_THROW(P("-n ../etc plane"), UsageError);
    EXPECT_THROW(P("bogus"), UsageError);
    EXPECT_THROW(P("stats now"), UsageError);
}

// ip(8)'s abbreviations: a prefix of a keyword, the first in a fixed order.
TEST(Grammar, Abbreviations) {
    Command c = P("r s");
    EXPECT_EQ(c.object, Object::kRoute);
    EXPECT_EQ(c.verb, Verb::kShow);
    EXPECT_EQ(P("ro sh fc00::/16").route.has_prefix, true);
    EXPECT_EQ(P("p").object, Object::kPlane);
    EXPECT_EQ(P("pr").object, Object::kProfile);
    EXPECT_EQ(P("pa").object, Object::kPath);
    EXPECT_EQ(P("c").object, Object::kConn);
    EXPECT_EQ(P("st").object, Object::kStats);
    EXPECT_EQ(P("st sh").object, Object::kStats);
    EXPECT_EQ(P("m").object, Object::kMonitor);
    EXPECT_EQ(P("p d id 3").verb, Verb::kDel);
    EXPECT_EQ(P("p se id 3 down").verb, Verb::kSet);
    EXPECT_EQ(P("p s").verb, Verb::kShow);  // "s" is show, as in ip
    EXPECT_EQ(P("r g fc00::1").verb, Verb::kGet);
    Command r = P("r rep fc00::/16 encap none plane 2");
    EXPECT_TRUE(r.route.replace);
    EXPECT_EQ(P("pa s q 7").qpn, 7u);
    EXPECT_EQ(P("plane ls").verb, Verb::kShow);
    EXPECT_EQ(P("plane delete id 1").verb, Verb::kDel);
    EXPECT_THROW(P("routes"), UsageError);    // longer than the keyword
    EXPECT_THROW(P("r sx"), UsageError);      // not a prefix
    EXPECT_THROW(P("p g id 1"), UsageError);  // get is route's only
    EXPECT_THROW(P("r set fc00::/16"), UsageError);
    EXPECT_THROW(P("c show qpx 1"), UsageError);
}

TEST(Grammar, FlushSaveMonitorPrettyTimestamp) {
    EXPECT_EQ(P("plane flush").verb, Verb::kFlush);
    EXPECT_EQ(P("r f").verb, Verb::kFlush);
    EXPECT_EQ(CommandName(P("profile flush")), "profile flush");
    EXPECT_THROW(P("plane flush id 1"), UsageError);  // flush takes nothing
    EXPECT_THROW(P("conn flush"), UsageError);
    EXPECT_EQ(P("save").object, Object::kSave);
    EXPECT_EQ(P("sa").object, Object::kSave);
    EXPECT_EQ(P("s").object, Object::kStats);  // stats comes first, as before
    EXPECT_THROW(P("save now"), UsageError);
    EXPECT_FALSE(P("monitor").monitor_only);
    EXPECT_FALSE(P("monitor all").monitor_only);
    EXPECT_EQ(*P("monitor plane").monitor_only, Object::kPlane);
    EXPECT_EQ(*P("m r").monitor_only, Object::kRoute);
    EXPECT_EQ(*P("monitor path").monitor_only, Object::kConn);
    EXPECT_THROW(P("monitor stats"), UsageError);
    EXPECT_THROW(P("monitor plane route"), UsageError);
    Command c = P("-p plane show");
    EXPECT_TRUE(c.pretty);
    EXPECT_TRUE(c.json);
    EXPECT_FALSE(P("-j plane").pretty);
    EXPECT_TRUE(P("-t monitor").timestamp);
    EXPECT_TRUE(P("--timestamp monitor conn").timestamp);
}

TEST(Grammar, PerObjectHelp) {
    Command c = P("route help");
    EXPECT_EQ(c.object, Object::kHelp);
    EXPECT_EQ(c.help_topic, "route");
    EXPECT_EQ(P("help pr").help_topic, "profile");
    EXPECT_EQ(P("pa h").help_topic, "path");
    EXPECT_EQ(P("st help").help_topic, "stats");
    EXPECT_EQ(P("help").help_topic, "");
    EXPECT_THROW(P("help bogus"), UsageError);
    std::string u = UsageText("route");
    EXPECT_NE(u.find("mrcctl route { add | replace } PREFIX"), std::string::npos);
    EXPECT_NE(u.find("[plane ID [segs SID[,SID]... | usid ADDR]]..."), std::string::npos);
    EXPECT_NE(u.find("mrcctl route get ADDR"), std::string::npos);
    EXPECT_EQ(u.find("mrcctl plane"), std::string::npos);
    EXPECT_EQ(u.find("mrcctl profile"), std::string::npos);
    EXPECT_EQ(UsageText("path").find("conn show"), std::string::npos);
    // Every object's help has its own lines.
    for (const char* o : {"plane", "route", "profile", "conn", "path", "stats", "save", "monitor"})
        EXPECT_NE(UsageText(o).find(std::string("\n  mrcctl ") + o), std::string::npos) << o;
    EXPECT_EQ(UsageText(""), std::string(UsageText()));
}

TEST(Grammar, BatchAndVersion) {
    Command c = P("-n blue -force -b /etc/mrc/fabric.conf");
    EXPECT_EQ(c.object, Object::kBatch);
    EXPECT_EQ(c.batch, "/etc/mrc/fabric.conf");
    EXPECT_EQ(c.netns, "blue");
    EXPECT_TRUE(c.force);
    EXPECT_EQ(P("--batch -").batch, "-");
    EXPECT_THROW(P("-b"), UsageError);
    EXPECT_THROW(P("-b f plane show"), UsageError);
    EXPECT_THROW(P("-force plane show"), UsageError);
    EXPECT_EQ(P("-V").object, Object::kVersion);
    EXPECT_EQ(P("--version").object, Object::kVersion);
}

TEST(Grammar, BatchLines) {
    using V = std::vector<std::string>;
    EXPECT_EQ(SplitBatchLine(""), V{});
    EXPECT_EQ(SplitBatchLine("   \t "), V{});
    EXPECT_EQ(SplitBatchLine("# a comment"), V{});
    EXPECT_EQ(SplitBatchLine("plane add id 0 dev eth0 # trailing"),
              (V{"plane", "add", "id", "0", "dev", "eth0"}));
    EXPECT_EQ(SplitBatchLine("\tplane  show\r"), (V{"plane", "show"}));
    EXPECT_EQ(SplitBatchLine("plane add dev 'my dev' id \"1\""),
              (V{"plane", "add", "dev", "my dev", "id", "1"}));
    EXPECT_EQ(SplitBatchLine("dev a#b"), (V{"dev", "a#b"}));
    EXPECT_EQ(SplitBatchLine("''"), V{""});
    EXPECT_THROW(SplitBatchLine("plane add dev 'eth0"), UsageError);
    EXPECT_THROW(SplitBatchLine("\""), UsageError);
}

TEST(Values, Numbers) {
    EXPECT_EQ(ParseU32("0", "x"), 0u);
    EXPECT_EQ(ParseU32("4294967295", "x"), 4294967295u);
    EXPECT_EQ(ParseU32("0x1f", "x"), 31u);
    EXPECT_THROW(ParseU32("", "x"), UsageError);
    EXPECT_THROW(ParseU32("1k", "x"), UsageError);
    EXPECT_THROW(ParseU32("0x", "x"), UsageError);
}

TEST(Values, LinkRates) {
    EXPECT_EQ(ParseLinkRate("50mbit"), 50u);
    EXPECT_EQ(ParseLinkRate("100gbit"), 100000u);
    EXPECT_EQ(ParseLinkRate("2tbit"), 2000000u);
    EXPECT_EQ(ParseLinkRate("200"), 200u);
    EXPECT_THROW(ParseLinkRate(""), UsageError);
    EXPECT_THROW(ParseLinkRate("gbit"), UsageError);
    EXPECT_THROW(ParseLinkRate("1.5gbit"), UsageError);
    EXPECT_THROW(ParseLinkRate("10kbit"), UsageError);
    EXPECT_THROW(ParseLinkRate("5000tbit"), UsageError);
    for (uint32_t r : {10u, 50u, 1500u, 100000u, 400000u, 1600000u})
        EXPECT_EQ(ParseLinkRate(LinkRate(r)), r) << r;
    EXPECT_EQ(LinkRate(1600000), "1600gbit");
    EXPECT_EQ(LinkRate(2000000), "2tbit");
}

TEST(Values, Names) {
    for (uint8_t e = 0; e <= MRC_ENCAP_MAX; e++) EXPECT_EQ(*EncapFromName(EncapName(e)), e);
    for (uint8_t a = 0; a <= MRC_CC_ALGO_MAX; a++) EXPECT_EQ(*CcAlgoFromName(CcAlgoName(a)), a);
    EXPECT_EQ(EncapName(200), "unknown");
}

TEST(Grammar, ConnAndPathShow) {
    Command c = Parse({"-j", "conn", "show"});
    EXPECT_EQ(c.object, Object::kConn);
    EXPECT_EQ(c.verb, Verb::kShow);
    EXPECT_TRUE(c.json);
    EXPECT_FALSE(c.qpn);
    EXPECT_EQ(CommandName(c), "conn show");
    c = Parse({"path", "show", "qpn", "0x1234"});
    EXPECT_EQ(c.object, Object::kPath);
    EXPECT_EQ(c.qpn.value(), 0x1234u);
    EXPECT_EQ(CommandName(c), "path show");
    c = Parse({"conn", "qpn", "17"});  // "show" is the default verb
    EXPECT_EQ(c.qpn.value(), 17u);
    EXPECT_THROW(Parse({"conn", "show", "qpn"}), UsageError);
    EXPECT_THROW(Parse({"conn", "show", "qpn", "x"}), UsageError);
    EXPECT_THROW(Parse({"conn", "show", "qpn", "1", "qpn", "2"}), UsageError);
    EXPECT_THROW(Parse({"path", "show", "id", "1"}), UsageError);
    EXPECT_THROW(Parse({"conn", "add"}), UsageError);
}

}  // namespace
}  // namespace mrcctl
