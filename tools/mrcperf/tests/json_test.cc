#include "json.h"

#include <gtest/gtest.h>

namespace mrcperf {
namespace {

// The writer's own tests (commas, nesting, escaping, numbers) are in
// tools/common/tests; the parser's are here.

TEST(Json, ParsesWhatTheWriterWrites) {
    JsonWriter w;
    w.BeginObject().Field("tool", "mrcperf").Key("result").BeginObject();
    w.Field("goodput_mbps", 191.25).Field("msgs", 12345u).EndObject();
    w.Key("intervals").BeginArray();
    w.BeginObject().Field("t_s", 0.1).Field("mbps", 10.5).EndObject();
    w.BeginObject().Field("t_s", 0.2).Field("mbps", 0.0).EndObject();
    w.EndArray().Field("ok", true).EndObject();
    std::string err;
    auto v = ParseJson(w.str(), &err);
    ASSERT_TRUE(v) << err;
    ASSERT_TRUE(v->Path("result.goodput_mbps"));
    EXPECT_DOUBLE_EQ(v->Path("result.goodput_mbps")->number, 191.25);
    EXPECT_EQ(v->Path("result.msgs")->ToText(), "12345");
    EXPECT_EQ(v->Path("intervals.1.t_s")->ToText(), "0.2");
    EXPECT_EQ(v->Path("tool")->ToText(), "mrcperf");
    EXPECT_EQ(v->Path("ok")->ToText(), "true");
    EXPECT_EQ(v->Path("intervals.2"), nullptr);
    EXPECT_EQ(v->Path("result.nope"), nullptr);
    EXPECT_EQ(v->Path("intervals")->items.size(), 2u);
}

TEST(Json, ParserAcceptsStandardForms) {
    std::string err;
    auto v = ParseJson(" {\"a\" : [ -1.5e3 , 0, \"\\u00e9\\/\" ] , \"b\":null}\n", &err);
    ASSERT_TRUE(v) << err;
    EXPECT_DOUBLE_EQ(v->Path("a.0")->number, -1500);
    EXPECT_EQ(v->Path("a.2")->text, "\xc3\xa9/");
    EXPECT_EQ(v->Path("b")->kind, JsonValue::Kind::kNull);
    EXPECT_EQ(v->Path("a")->ToText(), R"([-1.5e3,0,"é/"])");
}

TEST(Json, ParserRejectsMalformed) {
    for (const char* bad : {"", "{", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "01", "1.", "tru", "\"abc",
                            "{\"a\":1} x", "[\"\x01\"]", "{a:1}", "-", "1e"}) {
        std::string err;
        EXPECT_FALSE(ParseJson(bad, &err)) << bad;
        EXPECT_FALSE(err.empty()) << bad;
    }
    std::string deep(100, '[');
    std::string err;
    EXPECT_FALSE(ParseJson(deep + std::string(100, ']'), &err));
}

}  // namespace
}  // namespace mrcperf
