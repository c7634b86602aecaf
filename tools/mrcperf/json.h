// A small JSON writer for mrcperf's report and a small parser used by
// "mrcperf json" (the selftests read figures with it; the guest has no jq).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mrcperf {

class JsonWriter {
  public:
    JsonWriter& BeginObject();
    JsonWriter& EndObject();
    JsonWriter& BeginArray();
    JsonWriter& EndArray();
    JsonWriter& Key(std::string_view k);
    JsonWriter& String(std::string_view v);
    JsonWriter& Number(double v);  // NaN/inf become null
    JsonWriter& Int(int64_t v);
    JsonWriter& Uint(uint64_t v);
    JsonWriter& Bool(bool v);
    JsonWriter& Null();

    template <typename T>
    JsonWriter& Field(std::string_view k, const T& v) {
        Key(k);
        return Value(v);
    }

    // Complete once every object/array is closed.
    bool Complete() const { return stack_.empty() && !out_.empty(); }
    const std::string& str() const { return out_; }

  private:
    JsonWriter& Value(std::string_view v) { return String(v); }
    JsonWriter& Value(const std::string& v) { return String(v); }
    JsonWriter& Value(const char* v) { return String(v); }
    JsonWriter& Value(double v) { return Number(v); }
    JsonWriter& Value(bool v) { return Bool(v); }
    JsonWriter& Value(int v) { return Int(v); }
    JsonWriter& Value(long v) { return Int(v); }
    JsonWriter& Value(long long v) { return Int(v); }
    JsonWriter& Value(unsigned v) { return Uint(v); }
    JsonWriter& Value(unsigned long v) { return Uint(v); }
    JsonWriter& Value(unsigned long long v) { return Uint(v); }

    void BeforeValue();
    std::string out_;
    // One entry per open container: true while it has no element yet.
    std::vector<bool> stack_;
    bool after_key_ = false;
};

std::string JsonEscape(std::string_view s);
// Shortest readable form: up to 3 decimals, trailing zeros dropped.
std::string JsonNumber(double v);

struct JsonValue {
    enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
    Kind kind = Kind::kNull;
    bool boolean = false;
    double number = 0;
    std::string text;               // kString; also the literal of a kNumber
    std::vector<std::string> keys;  // kObject: keys[i] names items[i]
    std::vector<JsonValue> items;   // kArray, kObject

    // Member of an object or element of an array ("3"); nullptr if absent.
    const JsonValue* Get(std::string_view key) const;
    // Dotted path: "result.latency.p50_us", "intervals.0.mbps".
    const JsonValue* Path(std::string_view path) const;
    // Compact text of the value (strings unquoted).
    std::string ToText() const;
};

// Parses exactly one JSON value (surrounding whitespace allowed).
// On error returns nullopt and sets *error to "offset N: what".
std::optional<JsonValue> ParseJson(std::string_view text, std::string* error);

}  // namespace mrcperf
