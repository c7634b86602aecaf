// SPDX-License-Identifier: GPL-2.0
#include "json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace mrcstat {
namespace {

TEST(Json, NestingAndCommas) {
    Json j;
    j.Begin().Field("a", 1u).Field("b", -2).Field("c", true).Field("d", "x");
    j.Key("e").BeginArray().Uint(1).Uint(2).Begin().End().EndArray();
    j.Key("f").Begin().Key("g").Null().End();
    j.End();
    EXPECT_TRUE(j.Complete());
    EXPECT_EQ(j.str(), R"({"a":1,"b":-2,"c":true,"d":"x","e":[1,2,{}],"f":{"g":null}})");
}

TEST(Json, Escaping) {
    EXPECT_EQ(Json::Escape("a\"b\\c\n\t\x01"), "a\\\"b\\\\c\\n\\t\\u0001");
    Json j;
    j.Begin().Field("k\"", "v\n").End();
    EXPECT_EQ(j.str(), R"({"k\"":"v\n"})");
}

TEST(Json, NumbersAndLimits) {
    Json j;
    j.BeginArray().Num(1.5).Num(std::nan("")).Num(std::numeric_limits<double>::infinity());
    j.Uint(18446744073709551615ull).Int(-9223372036854775807ll).EndArray();
    EXPECT_EQ(j.str(), "[1.5,null,null,18446744073709551615,-9223372036854775807]");
}

TEST(Json, MisuseIsAnError) {
    Json a;
    a.Begin();
    EXPECT_THROW(a.Uint(1), std::logic_error);  // value without a key
    Json b;
    b.BeginArray();
    EXPECT_THROW(b.End(), std::logic_error);
    EXPECT_FALSE(b.Complete());
    Json c;
    c.Begin().Key("x");
    EXPECT_THROW(c.End(), std::logic_error);  // key without a value
}

}  // namespace
}  // namespace mrcstat
