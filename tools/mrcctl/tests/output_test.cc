// SPDX-License-Identifier: GPL-2.0
#include "output.h"

#include <gtest/gtest.h>
#include <linux/mrc.h>

#include <sstream>

#include "grammar.h"

namespace mrcctl {
namespace {

TEST(Json, Escape) { EXPECT_EQ(JsonWriter::Escape("a\"b\\c\n\x01"), "a\\\"b\\\\c\\n\\u0001"); }

TEST(Json, Nesting) {
    std::ostringstream os;
    JsonWriter j(os);
    j.BeginObject().Key("a").Uint(1).Key("b").BeginArray().String("x").Bool(true).EndArray();
    j.Key("c").BeginObject().EndObject().EndObject();
    EXPECT_EQ(os.str(), R"({"a":1,"b":["x",true],"c":{}})");
}

Route SampleRoute() {
    Route r;
    r.dst = ParseAddr("fc00:b::", "t");
    r.len = 64;
    r.encap = MRC_ENCAP_SRH;
    r.paths.push_back(Path{0, ParseAddrList("fc00:1::,fc00:2::", "t"), {}});
    return r;
}

TEST(Output, RouteTextIsValidInput) {
    std::ostringstream os;
    PrintRoute(os, SampleRoute());
    EXPECT_EQ(os.str(), "fc00:b::/64 encap srh plane 0 segs fc00:1::,fc00:2::\n");
    // The line parses back as "route add LINE".
    std::vector<std::string> args{"route", "add"};
    std::istringstream in(os.str());
    for (std::string w; in >> w;) args.push_back(w);
    Command c = Parse(args);
    EXPECT_EQ(c.route.paths.size(), 1u);
}

TEST(Output, RouteJson) {
    std::ostringstream os;
    JsonWriter j(os);
    JsonRoute(j, SampleRoute());
    EXPECT_EQ(os.str(), R"({"dst":"fc00:b::/64","encap":"srh","paths":[{"plane":0,)"
                        R"("segs":["fc00:1::","fc00:2::"]}]})");
}

TEST(Output, PlaneJsonAndText) {
    Plane p{3, 7, "pl3", ParseAddr("2001:db8::3", "t"), true, false};
    std::ostringstream js;
    JsonWriter j(js);
    JsonPlane(j, p);
    EXPECT_EQ(
        js.str(),
        R"({"id":3,"ifindex":7,"dev":"pl3","addr":"2001:db8::3","admin":"up","oper":"down"})");
    std::ostringstream ts;
    PrintPlane(ts, p);
    EXPECT_EQ(ts.str(), "plane 3 dev pl3 ifindex 7 addr 2001:db8::3 up oper down\n");
    p.dev.clear();
    std::ostringstream gone;
    JsonWriter g(gone);
    JsonPlane(g, p);
    EXPECT_EQ(gone.str().find("dev"), std::string::npos);
}

TEST(Output, ProfileAndStats) {
    Profile p{0, 128, 0, 0, MRC_CC_ALGO_NSCC, 750, 800, 500, 1500, 1500};
    std::ostringstream ts;
    PrintProfile(ts, p);
    EXPECT_EQ(ts.str(),
              "profile 0 ev-count 128 ev-active 0 ev-min-active 0 cc-algo nscc target-delay 750 "
              "gamma 800 max-md 500 max-wnd 1500 init-wnd 1500\n");
    std::ostringstream js;
    JsonWriter j(js);
    JsonStats(j, Stats{{"planes", 2}, {"routes", 0}});
    EXPECT_EQ(js.str(), R"({"planes":2,"routes":0})");
}

}  // namespace
}  // namespace mrcctl
