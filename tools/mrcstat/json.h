// SPDX-License-Identifier: GPL-2.0
// A minimal streaming JSON writer (commas, escaping, nesting checked).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mrcstat {

class Json {
  public:
    Json& Begin();  // {
    Json& End();    // }
    Json& BeginArray();
    Json& EndArray();
    Json& Key(std::string_view k);
    Json& Str(std::string_view v);
    Json& Uint(uint64_t v);
    Json& Int(int64_t v);
    Json& Num(double v);  // NaN/inf -> null
    Json& Bool(bool v);
    Json& Null();
    template <typename T>
    Json& Field(std::string_view k, T v) {
        Key(k);
        if constexpr (std::is_same_v<T, bool>) {
            return Bool(v);
        } else if constexpr (std::is_floating_point_v<T>) {
            return Num(v);
        } else if constexpr (std::is_signed_v<T>) {
            return Int(v);
        } else {
            return Uint(v);
        }
    }
    Json& Field(std::string_view k, std::string_view v) { return Key(k).Str(v); }
    Json& Field(std::string_view k, const char* v) { return Key(k).Str(v); }
    Json& Field(std::string_view k, const std::string& v) { return Key(k).Str(v); }

    bool Complete() const { return stack_.empty() && !out_.empty(); }
    const std::string& str() const { return out_; }
    static std::string Escape(std::string_view s);

  private:
    void Sep();
    std::string out_;
    std::vector<char> stack_;  // '{' or '['
    bool first_ = true;
    bool after_key_ = false;
};

}  // namespace mrcstat
