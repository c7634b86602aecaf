// SPDX-License-Identifier: GPL-2.0
#include "json.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace mrcstat {

std::string Json::Escape(std::string_view s) {
    std::string o;
    o.reserve(s.size() + 2);
    for (unsigned char c : s) {
        switch (c) {
            case '"':
                o += "\\\"";
                break;
            case '\\':
                o += "\\\\";
                break;
            case '\n':
                o += "\\n";
                break;
            case '\r':
                o += "\\r";
                break;
            case '\t':
                o += "\\t";
                break;
            case '\b':
                o += "\\b";
                break;
            case '\f':
                o += "\\f";
                break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof(buf), "\\u%04x", c);
                    o += buf;
                } else {
                    o += static_cast<char>(c);
                }
        }
    }
    return o;
}

void Json::Sep() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (!stack_.empty() && stack_.back() == '{') throw std::logic_error("json: value without key");
    if (!first_) out_ += ',';
    first_ = false;
}

Json& Json::Begin() {
    Sep();
    out_ += '{';
    stack_.push_back('{');
    first_ = true;
    return *this;
}

Json& Json::End() {
    if (stack_.empty() || stack_.back() != '{' || after_key_) throw std::logic_error("json: bad }");
    stack_.pop_back();
    out_ += '}';
    first_ = false;
    return *this;
}

Json& Json::BeginArray() {
    Sep();
    out_ += '[';
    stack_.push_back('[');
    first_ = true;
    return *this;
}

Json& Json::EndArray() {
    if (stack_.empty() || stack_.back() != '[') throw std::logic_error("json: bad ]");
    stack_.pop_back();
    out_ += ']';
    first_ = false;
    return *this;
}

Json& Json::Key(std::string_view k) {
    if (stack_.empty() || stack_.back() != '{' || after_key_)
        throw std::logic_error("json: bad key");
    if (!first_) out_ += ',';
    first_ = false;
    out_ += '"';
    out_ += Escape(k);
    out_ += "\":";
    after_key_ = true;
    return *this;
}

Json& Json::Str(std::string_view v) {
    Sep();
    out_ += '"';
    out_ += Escape(v);
    out_ += '"';
    return *this;
}

Json& Json::Uint(uint64_t v) {
    Sep();
    out_ += std::to_string(v);
    return *this;
}

Json& Json::Int(int64_t v) {
    Sep();
    out_ += std::to_string(v);
    return *this;
}

Json& Json::Num(double v) {
    Sep();
    if (!std::isfinite(v)) {
        out_ += "null";
        return *this;
    }
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%.6g", v);
    out_ += buf;
    return *this;
}

Json& Json::Bool(bool v) {
    Sep();
    out_ += v ? "true" : "false";
    return *this;
}

Json& Json::Null() {
    Sep();
    out_ += "null";
    return *this;
}

}  // namespace mrcstat
