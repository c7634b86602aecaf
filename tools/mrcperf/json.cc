#include "json.h"

#include <cctype>
#include <charconv>
#include <cstdlib>

namespace mrcperf {

// ---- parser ----------------------------------------------------------------

namespace {

class Parser {
  public:
    explicit Parser(std::string_view t) : t_(t) {}

    std::optional<JsonValue> ParseDocument(std::string* error) {
        JsonValue v;
        bool ok = ParseValue(v, 0);
        if (ok) {
            SkipWs();
            if (i_ != t_.size()) ok = Fail("trailing characters");
        }
        if (!ok) {
            if (error) *error = "offset " + std::to_string(err_at_) + ": " + err_;
            return std::nullopt;
        }
        return v;
    }

  private:
    bool Fail(const char* what) {
        if (err_.empty()) {
            err_ = what;
            err_at_ = i_;
        }
        return false;
    }

    void SkipWs() {
        while (i_ < t_.size() &&
               (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\t' || t_[i_] == '\r'))
            ++i_;
    }

    bool Literal(std::string_view word) {
        if (t_.substr(i_, word.size()) != word) return Fail("bad literal");
        i_ += word.size();
        return true;
    }

    bool ParseValue(JsonValue& v, int depth) {
        if (depth > 64) return Fail("nested too deep");
        SkipWs();
        if (i_ >= t_.size()) return Fail("unexpected end");
        char c = t_[i_];
        if (c == '{') return ParseObject(v, depth);
        if (c == '[') return ParseArray(v, depth);
        if (c == '"') {
            v.kind = JsonValue::Kind::kString;
            return ParseString(v.text);
        }
        if (c == 't' || c == 'f') {
            v.kind = JsonValue::Kind::kBool;
            v.boolean = c == 't';
            return Literal(c == 't' ? "true" : "false");
        }
        if (c == 'n') {
            v.kind = JsonValue::Kind::kNull;
            return Literal("null");
        }
        return ParseNumber(v);
    }

    bool ParseNumber(JsonValue& v) {
        size_t start = i_;
        if (i_ < t_.size() && t_[i_] == '-') ++i_;
        size_t int_start = i_;
        while (i_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[i_]))) ++i_;
        if (i_ == int_start) return Fail("bad number");
        if (t_[int_start] == '0' && i_ - int_start > 1) return Fail("leading zero");
        if (i_ < t_.size() && t_[i_] == '.') {
            size_t f = ++i_;
            while (i_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[i_]))) ++i_;
            if (i_ == f) return Fail("bad fraction");
        }
        if (i_ < t_.size() && (t_[i_] == 'e' || t_[i_] == 'E')) {
            ++i_;
            if (i_ < t_.size() && (t_[i_] == '+' || t_[i_] == '-')) ++i_;
            size_t e = i_;
            while (i_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[i_]))) ++i_;
            if (i_ == e) return Fail("bad exponent");
        }
        v.kind = JsonValue::Kind::kNumber;
        v.text = std::string(t_.substr(start, i_ - start));
        v.number = std::strtod(v.text.c_str(), nullptr);
        return true;
    }

    bool ParseString(std::string& out) {
        ++i_;  // opening quote
        while (i_ < t_.size()) {
            char c = t_[i_++];
            if (c == '"') return true;
            if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (i_ >= t_.size()) break;
            char e = t_[i_++];
            switch (e) {
                case '"':
                case '\\':
                case '/':
                    out += e;
                    break;
                case 'b':
                    out += '\b';
                    break;
                case 'f':
                    out += '\f';
                    break;
                case 'n':
                    out += '\n';
                    break;
                case 'r':
                    out += '\r';
                    break;
                case 't':
                    out += '\t';
                    break;
                case 'u': {
                    unsigned cp = 0;
                    if (i_ + 4 > t_.size()) return Fail("short \\u escape");
                    auto r = std::from_chars(t_.data() + i_, t_.data() + i_ + 4, cp, 16);
                    if (r.ptr != t_.data() + i_ + 4) return Fail("bad \\u escape");
                    i_ += 4;
                    // UTF-8 of the BMP code point (surrogates are kept as is).
                    if (cp < 0x80) {
                        out += static_cast<char>(cp);
                    } else if (cp < 0x800) {
                        out += static_cast<char>(0xc0 | (cp >> 6));
                        out += static_cast<char>(0x80 | (cp & 0x3f));
                    } else {
                        out += static_cast<char>(0xe0 | (cp >> 12));
                        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
                        out += static_cast<char>(0x80 | (cp & 0x3f));
                    }
                    break;
                }
                default:
                    return Fail("bad escape");
            }
        }
        return Fail("unterminated string");
    }

    bool ParseArray(JsonValue& v, int depth) {
        v.kind = JsonValue::Kind::kArray;
        ++i_;
        SkipWs();
        if (i_ < t_.size() && t_[i_] == ']') {
            ++i_;
            return true;
        }
        for (;;) {
            JsonValue item;
            if (!ParseValue(item, depth + 1)) return false;
            v.items.push_back(std::move(item));
            SkipWs();
            if (i_ >= t_.size()) return Fail("unterminated array");
            if (t_[i_] == ',') {
                ++i_;
                continue;
            }
            if (t_[i_] == ']') {
                ++i_;
                return true;
            }
            return Fail("expected , or ]");
        }
    }

    bool ParseObject(JsonValue& v, int depth) {
        v.kind = JsonValue::Kind::kObject;
        ++i_;
        SkipWs();
        if (i_ < t_.size() && t_[i_] == '}') {
            ++i_;
            return true;
        }
        for (;;) {
            SkipWs();
            if (i_ >= t_.size() || t_[i_] != '"') return Fail("expected a key");
            std::string key;
            if (!ParseString(key)) return false;
            SkipWs();
            if (i_ >= t_.size() || t_[i_] != ':') return Fail("expected :");
            ++i_;
            JsonValue item;
            if (!ParseValue(item, depth + 1)) return false;
            v.keys.push_back(std::move(key));
            v.items.push_back(std::move(item));
            SkipWs();
            if (i_ >= t_.size()) return Fail("unterminated object");
            if (t_[i_] == ',') {
                ++i_;
                continue;
            }
            if (t_[i_] == '}') {
                ++i_;
                return true;
            }
            return Fail("expected , or }");
        }
    }

    std::string_view t_;
    size_t i_ = 0;
    std::string err_;
    size_t err_at_ = 0;
};

}  // namespace

std::optional<JsonValue> ParseJson(std::string_view text, std::string* error) {
    return Parser(text).ParseDocument(error);
}

const JsonValue* JsonValue::Get(std::string_view key) const {
    if (kind == Kind::kObject) {
        for (size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key) return &items[i];
        return nullptr;
    }
    if (kind == Kind::kArray) {
        size_t idx = 0;
        auto r = std::from_chars(key.data(), key.data() + key.size(), idx);
        if (r.ec != std::errc() || r.ptr != key.data() + key.size() || idx >= items.size())
            return nullptr;
        return &items[idx];
    }
    return nullptr;
}

const JsonValue* JsonValue::Path(std::string_view path) const {
    const JsonValue* v = this;
    while (v && !path.empty()) {
        size_t dot = path.find('.');
        v = v->Get(path.substr(0, dot));
        path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    }
    return v;
}

std::string JsonValue::ToText() const {
    switch (kind) {
        case Kind::kNull:
            return "null";
        case Kind::kBool:
            return boolean ? "true" : "false";
        case Kind::kNumber:
        case Kind::kString:
            return text;
        case Kind::kArray:
        case Kind::kObject: {
            std::string o = kind == Kind::kArray ? "[" : "{";
            for (size_t i = 0; i < items.size(); ++i) {
                if (i) o += ',';
                if (kind == Kind::kObject) o += mrc::JsonQuote(keys[i]) + ":";
                o += items[i].kind == Kind::kString ? mrc::JsonQuote(items[i].text)
                                                    : items[i].ToText();
            }
            o += kind == Kind::kArray ? "]" : "}";
            return o;
        }
    }
    return {};
}

}  // namespace mrcperf
