// SPDX-License-Identifier: GPL-2.0
#include "json_writer.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace mrc {

std::string JsonEscape(std::string_view s) {
    std::string o;
    o.reserve(s.size());
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"':
                o += "\\\"";
                break;
            case '\\':
                o += "\\\\";
                break;
            case '\b':
                o += "\\b";
                break;
            case '\f':
                o += "\\f";
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
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
                    o += buf;
                } else {
                    o += ch;
                }
        }
    }
    return o;
}

std::string JsonQuote(std::string_view s) {
    std::string o = "\"";
    o += JsonEscape(s);
    o += '"';
    return o;
}

std::string JsonNumber(double v) {
    if (!std::isfinite(v)) return "null";
    char buf[64];
    if (std::fabs(v) >= 1e15) {
        std::snprintf(buf, sizeof(buf), "%.17g", v);
        return buf;
    }
    std::snprintf(buf, sizeof(buf), "%.3f", v);
    std::string s = buf;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    if (s == "-0") s = "0";
    return s;
}

void JsonWriter::Put(std::string_view s) {
    if (os_)
        os_->write(s.data(), static_cast<std::streamsize>(s.size()));
    else
        out_.append(s);
}

void JsonWriter::BeforeValue() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (stack_.empty()) {
        if (done_) throw std::logic_error("json: a second top-level value");
        return;
    }
    Level& l = stack_.back();
    if (l.object) throw std::logic_error("json: a value without a key in an object");
    if (!l.empty) Put(',');
    l.empty = false;
    Indent(stack_.size());
}

void JsonWriter::Indent(size_t depth) {
    if (!pretty_) return;
    Put('\n');
    for (size_t i = 0; i < depth; i++) Put("  ");
}

void JsonWriter::AfterValue() {
    if (stack_.empty()) done_ = true;
}

void JsonWriter::Close(bool object) {
    if (stack_.empty() || stack_.back().object != object)
        throw std::logic_error(object ? "json: } without its {" : "json: ] without its [");
    if (after_key_) throw std::logic_error("json: a key without a value");
    const bool empty = stack_.back().empty;
    stack_.pop_back();
    if (!empty) Indent(stack_.size());
    Put(object ? '}' : ']');
    AfterValue();
}

JsonWriter& JsonWriter::BeginObject() {
    BeforeValue();
    Put('{');
    stack_.push_back({.object = true, .empty = true});
    return *this;
}

JsonWriter& JsonWriter::EndObject() {
    Close(true);
    return *this;
}

JsonWriter& JsonWriter::BeginArray() {
    BeforeValue();
    Put('[');
    stack_.push_back({.object = false, .empty = true});
    return *this;
}

JsonWriter& JsonWriter::EndArray() {
    Close(false);
    return *this;
}

JsonWriter& JsonWriter::Key(std::string_view k) {
    if (stack_.empty() || !stack_.back().object)
        throw std::logic_error("json: a key outside an object");
    if (after_key_) throw std::logic_error("json: a key without a value");
    Level& l = stack_.back();
    if (!l.empty) Put(',');
    l.empty = false;
    Indent(stack_.size());
    Put(JsonQuote(k));
    Put(pretty_ ? ": " : ":");
    after_key_ = true;
    return *this;
}

JsonWriter& JsonWriter::String(std::string_view v) {
    BeforeValue();
    Put(JsonQuote(v));
    AfterValue();
    return *this;
}

JsonWriter& JsonWriter::Int(int64_t v) {
    BeforeValue();
    Put(std::to_string(v));
    AfterValue();
    return *this;
}

JsonWriter& JsonWriter::Uint(uint64_t v) {
    BeforeValue();
    Put(std::to_string(v));
    AfterValue();
    return *this;
}

JsonWriter& JsonWriter::Number(double v) {
    BeforeValue();
    Put(JsonNumber(v));
    AfterValue();
    return *this;
}

JsonWriter& JsonWriter::Bool(bool v) {
    BeforeValue();
    Put(v ? "true" : "false");
    AfterValue();
    return *this;
}

JsonWriter& JsonWriter::Null() {
    BeforeValue();
    Put("null");
    AfterValue();
    return *this;
}

JsonWriter& JsonWriter::Raw(std::string_view json) {
    BeforeValue();
    Put(json);
    AfterValue();
    return *this;
}

}  // namespace mrc
