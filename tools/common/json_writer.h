// SPDX-License-Identifier: GPL-2.0
// The JSON writer of every C++ tool (mrcctl -j, mrcperf --json, mrcstat -j).
// Selftests and scripts read that output with jq and with grep patterns
// such as '^{"event":"conn-up","qpn":17,', so its form is fixed:
//
//  - compact: no whitespace at all, members in the order they are written;
//  - strings: '"' and '\' escaped, the control characters \b \f \n \r \t in
//    their short form and every other byte below 0x20 as \u00xx (lower-case
//    hex); every other byte is copied as is: UTF-8 passes through untouched
//    (and is not validated: the tools print what the kernel or the user
//    gave them);
//  - integers: exact over the whole int64_t / uint64_t range;
//  - doubles: JsonNumber() below; NaN and +/-infinity, which JSON cannot
//    represent, are written as null.
//
// Misuse is a bug of the caller and throws std::logic_error: a value
// without a key inside an object, a key outside an object or after another
// key, a closing bracket that does not match, a second top-level value.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mrc {

// The inside of a JSON string literal for s (no quotes).
std::string JsonEscape(std::string_view s);
// s as a JSON string literal, quotes included.
std::string JsonQuote(std::string_view s);
// A double as the writer prints it: at most 3 decimals, trailing zeros and
// a trailing '.' dropped ("1.5", "100", "0.123"), "-0" printed as "0";
// |v| >= 1e15 with 17 significant digits; NaN and infinities as "null".
std::string JsonNumber(double v);

class JsonWriter {
  public:
    // Builds the document in memory: str().
    JsonWriter() = default;
    // Streams the document to os as it is written (str() stays empty);
    // os must outlive the writer.
    explicit JsonWriter(std::ostream& os) : os_(&os) {}

    JsonWriter(const JsonWriter&) = delete;
    JsonWriter& operator=(const JsonWriter&) = delete;
    JsonWriter(JsonWriter&&) = default;
    JsonWriter& operator=(JsonWriter&&) = default;

    JsonWriter& BeginObject();
    JsonWriter& EndObject();
    JsonWriter& BeginArray();
    JsonWriter& EndArray();
    JsonWriter& Key(std::string_view k);

    JsonWriter& String(std::string_view v);
    JsonWriter& Int(int64_t v);
    JsonWriter& Uint(uint64_t v);
    JsonWriter& Number(double v);
    JsonWriter& Bool(bool v);
    JsonWriter& Null();
    // A value already rendered as JSON (e.g. by another writer), inserted
    // as is: the caller vouches for it.
    JsonWriter& Raw(std::string_view json);

    // A value picked by its C++ type: integers signed or unsigned as such,
    // floating point as Number(), bool, strings, nullptr as null.
    JsonWriter& Value(std::string_view v) { return String(v); }
    JsonWriter& Value(const char* v) { return String(v); }
    JsonWriter& Value(bool v) { return Bool(v); }
    JsonWriter& Value(std::nullptr_t) { return Null(); }
    template <std::integral T>
    JsonWriter& Value(T v) {
        if constexpr (std::is_signed_v<T>)
            return Int(v);
        else
            return Uint(v);
    }
    template <std::floating_point T>
    JsonWriter& Value(T v) {
        return Number(static_cast<double>(v));
    }

    // Key(k) then Value(v).
    template <typename T>
    JsonWriter& Field(std::string_view k, const T& v) {
        Key(k);
        return Value(v);
    }

    // Pretty-printed (like jq, "-p" of the tools): each member and element
    // on its own line, indented by two spaces per level. Set before writing.
    JsonWriter& Pretty(bool on = true) {
        pretty_ = on;
        return *this;
    }

    // One complete top-level value written, every bracket closed.
    bool Complete() const { return done_ && stack_.empty(); }
    // The document so far (in-memory writer only).
    const std::string& str() const { return out_; }

  private:
    struct Level {
        bool object;
        bool empty;
    };

    void BeforeValue();
    void AfterValue();
    void Close(bool object);
    void Put(std::string_view s);
    void Indent(size_t depth);
    void Put(char c) { Put(std::string_view(&c, 1)); }

    std::string out_;
    std::ostream* os_ = nullptr;  // not owned; null: write into out_
    std::vector<Level> stack_;    // one per open object / array
    bool after_key_ = false;      // a key waits for its value
    bool done_ = false;           // the top-level value is complete
    bool pretty_ = false;         // newlines and indentation
};

}  // namespace mrc
