// SPDX-License-Identifier: GPL-2.0
// The shared JSON writer. The first tests are the writer tests the tools
// had for their own writers (mrcctl, mrcperf, mrcstat), kept as they were.
#include "json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace mrc {
namespace {

// ---- from mrcctl's output_test.cc -------------------------------------------

TEST(JsonWriter, MrcctlEscape) { EXPECT_EQ(JsonEscape("a\"b\\c\n\x01"), "a\\\"b\\\\c\\n\\u0001"); }

TEST(JsonWriter, MrcctlNesting) {
    std::ostringstream os;
    JsonWriter j(os);
    j.BeginObject().Key("a").Uint(1).Key("b").BeginArray().String("x").Bool(true).EndArray();
    j.Key("c").BeginObject().EndObject().EndObject();
    EXPECT_EQ(os.str(), R"({"a":1,"b":["x",true],"c":{}})");
}

// ---- from mrcperf's json_test.cc --------------------------------------------

TEST(JsonWriter, MrcperfCommasAndNesting) {
    JsonWriter w;
    w.BeginObject();
    w.Field("a", 1).Field("b", "x").Key("c").BeginArray();
    w.Int(1).Uint(2).BeginObject().Field("d", true).EndObject().Null().EndArray();
    w.Key("e").BeginObject().EndObject();
    w.EndObject();
    EXPECT_TRUE(w.Complete());
    EXPECT_EQ(w.str(), R"({"a":1,"b":"x","c":[1,2,{"d":true},null],"e":{}})");
}

TEST(JsonWriter, MrcperfEscapesStrings) {
    EXPECT_EQ(JsonQuote("a\"b\\c\nd\x01"), R"("a\"b\\c\nd\u0001")");
}

TEST(JsonWriter, MrcperfNumbers) {
    EXPECT_EQ(JsonNumber(1.5), "1.5");
    EXPECT_EQ(JsonNumber(100), "100");
    EXPECT_EQ(JsonNumber(0.1234), "0.123");
    EXPECT_EQ(JsonNumber(-0.0001), "0");
    EXPECT_EQ(JsonNumber(std::nan("")), "null");
    EXPECT_EQ(JsonNumber(std::numeric_limits<double>::infinity()), "null");
    EXPECT_EQ(JsonNumber(2e15), "2000000000000000");
}

// ---- from mrcstat's json_test.cc --------------------------------------------

TEST(JsonWriter, MrcstatNestingAndCommas) {
    JsonWriter j;
    j.BeginObject().Field("a", 1u).Field("b", -2).Field("c", true).Field("d", "x");
    j.Key("e").BeginArray().Uint(1).Uint(2).BeginObject().EndObject().EndArray();
    j.Key("f").BeginObject().Key("g").Null().EndObject();
    j.EndObject();
    EXPECT_TRUE(j.Complete());
    EXPECT_EQ(j.str(), R"({"a":1,"b":-2,"c":true,"d":"x","e":[1,2,{}],"f":{"g":null}})");
}

TEST(JsonWriter, MrcstatEscaping) {
    EXPECT_EQ(JsonEscape("a\"b\\c\n\t\x01"), "a\\\"b\\\\c\\n\\t\\u0001");
    JsonWriter j;
    j.BeginObject().Field("k\"", "v\n").EndObject();
    EXPECT_EQ(j.str(), R"({"k\"":"v\n"})");
}

TEST(JsonWriter, MrcstatNumbersAndLimits) {
    JsonWriter j;
    j.BeginArray().Number(1.5).Number(std::nan("")).Number(std::numeric_limits<double>::infinity());
    j.Uint(18446744073709551615ull).Int(-9223372036854775807ll).EndArray();
    EXPECT_EQ(j.str(), "[1.5,null,null,18446744073709551615,-9223372036854775807]");
}

TEST(JsonWriter, MrcstatMisuseIsAnError) {
    JsonWriter a;
    a.BeginObject();
    EXPECT_THROW(a.Uint(1), std::logic_error);  // value without a key
    JsonWriter b;
    b.BeginArray();
    EXPECT_THROW(b.EndObject(), std::logic_error);
    EXPECT_FALSE(b.Complete());
    JsonWriter c;
    c.BeginObject().Key("x");
    EXPECT_THROW(c.EndObject(), std::logic_error);  // key without a value
}

// ---- escaping ---------------------------------------------------------------

TEST(JsonWriter, EveryControlCharacterIsEscaped) {
    const char* const expect[0x20] = {
        "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
        "\\b",     "\\t",     "\\n",     "\\u000b", "\\f",     "\\r",     "\\u000e", "\\u000f",
        "\\u0010", "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017",
        "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
    };
    for (int c = 0; c < 0x20; c++) {
        const std::string in(1, static_cast<char>(c));
        EXPECT_EQ(JsonEscape(in), expect[c]) << "byte " << c;
    }
}

TEST(JsonWriter, QuotesAndBackslashes) {
    EXPECT_EQ(JsonEscape(R"("\)"), R"(\"\\)");
    EXPECT_EQ(JsonQuote(R"(C:\dir\"x")"), R"("C:\\dir\\\"x\"")");
    EXPECT_EQ(JsonQuote(""), R"("")");
    // '/' may be escaped in JSON but need not be: it is not.
    EXPECT_EQ(JsonEscape("fc00:b::/64"), "fc00:b::/64");
}

TEST(JsonWriter, PrintableAndNonAsciiPassThrough) {
    std::string printable;
    for (int c = 0x20; c < 0x7f; c++)
        if (c != '"' && c != '\\') printable += static_cast<char>(c);
    EXPECT_EQ(JsonEscape(printable), printable);
    // UTF-8 (2, 3 and 4 byte sequences) and DEL are copied byte for byte.
    const std::string utf8 =
        "\xc3\xa9t\xc3\xa9 \xe2\x86\x92 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80\x7f";
    EXPECT_EQ(JsonEscape(utf8), utf8);
    // Not validated either: a stray continuation or lead byte is kept.
    EXPECT_EQ(JsonEscape("a\x80\xff"), "a\x80\xff");
    // A NUL inside a string_view is data, not the end.
    EXPECT_EQ(JsonQuote(std::string_view("a\0b", 3)), "\"a\\u0000b\"");
}

TEST(JsonWriter, KeysAreEscapedLikeStrings) {
    JsonWriter j;
    j.BeginObject().Field("k\x01\xc3\xa9", "\t").Field("", "").EndObject();
    EXPECT_EQ(j.str(), "{\"k\\u0001\xc3\xa9\":\"\\t\",\"\":\"\"}");
}

// ---- numbers and literals ---------------------------------------------------

TEST(JsonWriter, IntegerLimits) {
    JsonWriter j;
    j.BeginArray();
    j.Uint(0).Uint(std::numeric_limits<uint64_t>::max());
    j.Int(0)
        .Int(-1)
        .Int(std::numeric_limits<int64_t>::min())
        .Int(std::numeric_limits<int64_t>::max());
    j.EndArray();
    EXPECT_EQ(j.str(), "[0,18446744073709551615,0,-1,-9223372036854775808,9223372036854775807]");
}

TEST(JsonWriter, DoubleFormatting) {
    EXPECT_EQ(JsonNumber(0), "0");
    EXPECT_EQ(JsonNumber(-0.0), "0");
    EXPECT_EQ(JsonNumber(-1.25), "-1.25");
    EXPECT_EQ(JsonNumber(0.1), "0.1");
    EXPECT_EQ(JsonNumber(191.25), "191.25");
    EXPECT_EQ(JsonNumber(2.0005), "2.001");  // %.3f rounding of the binary value
    EXPECT_EQ(JsonNumber(0.0004), "0");
    EXPECT_EQ(JsonNumber(-0.0006), "-0.001");
    EXPECT_EQ(JsonNumber(123456789.5), "123456789.5");
    EXPECT_EQ(JsonNumber(999999999999999.0), "999999999999999");
    EXPECT_EQ(JsonNumber(-1e15), "-1000000000000000");
    EXPECT_EQ(JsonNumber(1e300), "1.0000000000000001e+300");
    EXPECT_EQ(JsonNumber(std::numeric_limits<double>::quiet_NaN()), "null");
    EXPECT_EQ(JsonNumber(-std::numeric_limits<double>::infinity()), "null");
    JsonWriter j;
    j.BeginArray().Number(0.5).Number(-std::numeric_limits<double>::infinity()).EndArray();
    EXPECT_EQ(j.str(), "[0.5,null]");
}

TEST(JsonWriter, BooleansAndNull) {
    JsonWriter j;
    j.BeginArray().Bool(true).Bool(false).Null().Value(nullptr).EndArray();
    EXPECT_EQ(j.str(), "[true,false,null,null]");
}

TEST(JsonWriter, FieldPicksTheKindByType) {
    const std::string s = "str";
    const std::string_view sv = "sv";
    JsonWriter j;
    j.BeginObject();
    j.Field("u8", uint8_t{200}).Field("i8", int8_t{-5}).Field("u16", uint16_t{65535});
    j.Field("i32", int32_t{-7}).Field("u64", UINT64_MAX).Field("ll", -3ll);
    j.Field("d", 2.5).Field("f", 0.25f).Field("b", false);
    j.Field("lit", "x").Field("s", s).Field("sv", sv).Field("null", nullptr);
    j.EndObject();
    EXPECT_EQ(j.str(),
              R"({"u8":200,"i8":-5,"u16":65535,"i32":-7,"u64":18446744073709551615,"ll":-3,)"
              R"("d":2.5,"f":0.25,"b":false,"lit":"x","s":"str","sv":"sv","null":null})");
}

// ---- structure --------------------------------------------------------------

TEST(JsonWriter, TopLevelScalarsAndEmptyContainers) {
    JsonWriter a;
    EXPECT_FALSE(a.Complete());
    a.Uint(7);
    EXPECT_TRUE(a.Complete());
    EXPECT_EQ(a.str(), "7");
    JsonWriter b;
    b.BeginArray().BeginArray().EndArray().BeginObject().EndObject().EndArray();
    EXPECT_TRUE(b.Complete());
    EXPECT_EQ(b.str(), "[[],{}]");
}

TEST(JsonWriter, DeepNesting) {
    JsonWriter j;
    for (int i = 0; i < 100; i++) j.BeginArray();
    EXPECT_FALSE(j.Complete());
    for (int i = 0; i < 100; i++) j.EndArray();
    EXPECT_TRUE(j.Complete());
    EXPECT_EQ(j.str(), std::string(100, '[') + std::string(100, ']'));
    JsonWriter o;
    o.BeginObject().Key("a").BeginObject().Key("b").BeginArray().BeginObject().Field("c", 1);
    o.EndObject().Uint(2).EndArray().Field("d", 3).EndObject().Field("e", 4).EndObject();
    EXPECT_EQ(o.str(), R"({"a":{"b":[{"c":1},2],"d":3},"e":4})");
}

TEST(JsonWriter, RawValueIsInsertedAsIs) {
    JsonWriter inner;
    inner.BeginObject().Field("x", 1).EndObject();
    JsonWriter j;
    j.BeginObject().Field("a", 0).Key("info").Raw(inner.str()).EndObject();
    EXPECT_TRUE(j.Complete());
    EXPECT_EQ(j.str(), R"({"a":0,"info":{"x":1}})");
    JsonWriter arr;
    arr.BeginArray().Raw("1").Raw("[]").EndArray();
    EXPECT_EQ(arr.str(), "[1,[]]");
}

TEST(JsonWriter, StreamAndStringSinksAgree) {
    auto write = [](JsonWriter& j) {
        j.BeginObject().Field("s", "q\"\n\xc3\xa9").Field("n", -1.5).Key("a").BeginArray();
        j.Uint(1).Bool(false).Null().EndArray().EndObject();
    };
    JsonWriter mem;
    write(mem);
    std::ostringstream os;
    JsonWriter stream(os);
    write(stream);
    EXPECT_EQ(os.str(), mem.str());
    EXPECT_TRUE(stream.Complete());
    EXPECT_TRUE(stream.str().empty());
}

TEST(JsonWriter, StreamsAsItGoes) {
    std::ostringstream os;
    JsonWriter j(os);
    j.BeginArray().Uint(1);
    EXPECT_EQ(os.str(), "[1");  // nothing held back
    j.EndArray();
    EXPECT_EQ(os.str(), "[1]");
}

TEST(JsonWriter, MoreMisuse) {
    JsonWriter top;
    EXPECT_THROW(top.Key("k"), std::logic_error);  // key outside an object
    EXPECT_THROW(top.EndArray(), std::logic_error);
    EXPECT_THROW(top.EndObject(), std::logic_error);
    top.Uint(1);
    EXPECT_THROW(top.Uint(2), std::logic_error);  // second top-level value
    EXPECT_THROW(top.BeginObject(), std::logic_error);

    JsonWriter arr;
    arr.BeginArray();
    EXPECT_THROW(arr.Key("k"), std::logic_error);  // key in an array
    JsonWriter keys;
    keys.BeginObject().Key("a");
    EXPECT_THROW(keys.Key("b"), std::logic_error);  // two keys in a row
    JsonWriter obj;
    obj.BeginObject();
    EXPECT_THROW(obj.EndArray(), std::logic_error);
    EXPECT_THROW(obj.BeginArray(), std::logic_error);  // value without a key
}

}  // namespace
TEST(JsonWriter, Pretty) {
    JsonWriter j;
    j.Pretty();
    j.BeginArray().BeginObject().Field("id", 0u).Key("segs").BeginArray().String("fc00::1");
    j.EndArray().Key("none").BeginObject().EndObject().EndObject().BeginArray().EndArray();
    j.EndArray();
    EXPECT_EQ(j.str(),
              "[\n  {\n    \"id\": 0,\n    \"segs\": [\n      \"fc00::1\"\n    ],\n"
              "    \"none\": {}\n  },\n  []\n]");
    EXPECT_TRUE(j.Complete());
}

}  // namespace mrc
