// JSON of mrcperf: the report is written with the tools' shared writer
// (tools/common/json_writer.h); the small parser here serves "mrcperf json"
// (the selftests read figures with it; the guest has no jq).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json_writer.h"

namespace mrcperf {

// mrcperf's reports are written with the tools' shared writer.
using mrc::JsonWriter;

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
