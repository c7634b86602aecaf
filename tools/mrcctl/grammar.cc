// SPDX-License-Identifier: GPL-2.0
// mrcctl command-line grammar, see grammar.h and Documentation/man/mrcctl.8.
#include "grammar.h"

#include <arpa/inet.h>
#include <linux/mrc.h>

#include <array>
#include <charconv>

namespace mrcctl {
namespace {

constexpr std::string_view kUsage =
    "Usage: mrcctl [-j | -p] [-n NETNS] OBJECT COMMAND [ARGS]\n"
    "       mrcctl [-j] [-n NETNS] [-force] -b FILE\n"
    "  mrcctl plane add id ID (dev NAME | ifindex N) addr ADDR [up | down]\n"
    "  mrcctl plane set id ID [up | down] [dev NAME | ifindex N] [addr ADDR]\n"
    "  mrcctl plane del id ID\n"
    "  mrcctl plane show [id ID]\n"
    "  mrcctl plane flush\n"
    "  mrcctl route { add | replace } PREFIX [encap { none | srh | usid }]\n"
    "                 [plane ID [segs SID[,SID]... | usid ADDR]]...\n"
    "  mrcctl route del PREFIX\n"
    "  mrcctl route show [PREFIX]\n"
    "  mrcctl route get ADDR\n"
    "  mrcctl route flush\n"
    "  mrcctl profile { add | set } id ID [ev-count N] [ev-active N] [ev-min-active N] [burst N]\n"
    "                 [dscp N] [dscp-ctl N]\n"
    "                 [cc-algo { nscc | fixed | uec }] [target-delay PM] [gamma PM]\n"
    "                 [max-md PM] [max-wnd PM] [init-wnd PM] [link-rate RATE]\n"
    "                 [init-wnd-shared { on | off }]\n"
    "  mrcctl profile del id ID\n"
    "  mrcctl profile show [id ID]\n"
    "  mrcctl profile flush\n"
    "  mrcctl conn show [qpn QPN]\n"
    "  mrcctl path show [qpn QPN]\n"
    "  mrcctl stats\n"
    "  mrcctl probe ADDR [evs N] [timeout MS]  (MRC 1.0 EV probes on every path to ADDR)\n"
    "  mrcctl save                      (the configuration as a -b batch file)\n"
    "  mrcctl monitor [all | plane | route | conn]\n"
    "  mrcctl help [OBJECT]            (or: mrcctl OBJECT help)\n"
    "Options: -j, --json  JSON output;  -p, --pretty  indented JSON;  -t, --timestamp\n"
    "  monitor: time of each event;  -n, --netns NETNS  act in a named namespace;\n"
    "  -b, --batch FILE  one command per line (\"-\": standard input), stop at the first\n"
    "  error unless -force;  -V, --version  print the version\n"
    "Keywords may be abbreviated as in ip(8): \"mrcctl r s\" is \"mrcctl route show\".\n"
    "Exit: 0 ok, 1 rejected by the kernel, 2 usage error, 3 mrc.ko not loaded,\n"
    "  4 probe: a probe went unanswered or could not be sent\n";

constexpr std::array<std::string_view, 3> kEncapNames = {"none", "srh", "usid"};
constexpr std::array<std::string_view, 3> kCcAlgoNames = {"nscc", "fixed", "uec"};

static_assert(kEncapNames.size() == __MRC_ENCAP_CNT);
static_assert(kCcAlgoNames.size() == __MRC_CC_ALGO_CNT);

// A cursor over the arguments with iproute2-style helpers.
class Args {
  public:
    explicit Args(const std::vector<std::string>& v) : v_(v) {}
    bool Done() const { return i_ >= v_.size(); }
    const std::string& Peek() const { return v_[i_]; }
    const std::string& Next() { return v_[i_++]; }
    // The value after a keyword: "id 3" -> "3".
    const std::string& Value(std::string_view keyword) {
        if (Done()) throw UsageError("\"" + std::string(keyword) + "\" needs a value");
        return Next();
    }

  private:
    const std::vector<std::string>& v_;
    size_t i_ = 0;
};

[[noreturn]] void Unknown(std::string_view what, std::string_view word) {
    throw UsageError("unknown " + std::string(what) + " \"" + std::string(word) + "\"");
}

template <typename T>
void SetOnce(std::optional<T>& slot, T value, std::string_view keyword) {
    if (slot) throw UsageError("\"" + std::string(keyword) + "\" given twice");
    slot = value;
}

void ParsePlane(Args& a, Command& c) {
    auto& p = c.plane;
    while (!a.Done()) {
        const std::string& w = a.Next();
        if (w == "id") {
            SetOnce(p.id, ParseU32(a.Value(w), "plane id"), w);
        } else if (c.verb == Verb::kShow) {
            Unknown("argument", w);
        } else if (c.verb == Verb::kDel) {
            Unknown("argument", w);
        } else if (w == "dev") {
            SetOnce(p.dev, a.Value(w), w);
        } else if (w == "ifindex") {
            SetOnce(p.ifindex, ParseU32(a.Value(w), "ifindex"), w);
        } else if (w == "addr") {
            SetOnce(p.addr, ParseAddr(a.Value(w), "address"), w);
        } else if (w == "up" || w == "down") {
            SetOnce(p.up, w == "up", "up/down");
        } else {
            Unknown("argument", w);
        }
    }
    if (c.verb != Verb::kShow && !p.id)
        throw UsageError(CommandName(c) + ": \"id ID\" is required");
    if (p.dev && p.ifindex) throw UsageError("give either dev or ifindex, not both");
    if (c.verb == Verb::kAdd) {
        if (!p.dev && !p.ifindex) throw UsageError("plane add: \"dev NAME\" is required");
        if (!p.addr) throw UsageError("plane add: \"addr ADDR\" is required");
    }
    if (c.verb == Verb::kSet && !p.up && !p.dev && !p.ifindex && !p.addr)
        throw UsageError("plane set: nothing to change");
}

void ParseRoute(Args& a, Command& c) {
    auto& r = c.route;
    if (c.verb == Verb::kShow && a.Done()) return;
    if (a.Done()) throw UsageError(CommandName(c) + ": PREFIX is required");
    const std::string& pfx = a.Next();
    if (c.verb == Verb::kGet) {
        if (pfx.find('/') != std::string::npos)
            throw UsageError("route get takes an address, not a prefix");
        r.dst = ParseAddr(pfx, "address");
        r.has_len = false;
    } else {
        ParsePrefix(pfx, r.dst, r.len);
    }
    r.has_prefix = true;
    if (c.verb != Verb::kAdd) {
        if (!a.Done()) Unknown("argument", a.Peek());
        return;
    }
    PathArgs* cur = nullptr;
    while (!a.Done()) {
        const std::string& w = a.Next();
        if (w == "encap") {
            const std::string& v = a.Value(w);
            auto e = EncapFromName(v);
            if (!e) Unknown("encap", v);
            SetOnce(r.encap, *e, w);
        } else if (w == "plane") {
            r.paths.push_back(PathArgs{ParseU32(a.Value(w), "plane id"), {}, {}});
            cur = &r.paths.back();
        } else if (w == "segs") {
            if (!cur) throw UsageError("\"segs\" must follow \"plane ID\"");
            if (!cur->segs.empty()) throw UsageError("\"segs\" given twice for one path");
            cur->segs = ParseAddrList(a.Value(w), "SID");
        } else if (w == "usid") {
            if (!cur) throw UsageError("\"usid\" must follow \"plane ID\"");
            SetOnce(cur->usid, ParseAddr(a.Value(w), "uSID container"), w);
        } else if (w == "replace") {
            r.replace = true;
        } else {
            Unknown("argument", w);
        }
    }
}

void ParseProfile(Args& a, Command& c) {
    auto& p = c.profile;
    while (!a.Done()) {
        const std::string& w = a.Next();
        if (w == "id") {
            SetOnce(p.id, ParseU32(a.Value(w), "profile id"), w);
        } else if (c.verb != Verb::kAdd && c.verb != Verb::kSet) {
            Unknown("argument", w);
        } else if (w == "ev-count") {
            SetOnce(p.ev_count, ParseU32(a.Value(w), w), w);
        } else if (w == "ev-active") {
            SetOnce(p.ev_active, ParseU32(a.Value(w), w), w);
        } else if (w == "ev-min-active") {
            SetOnce(p.ev_min_active, ParseU32(a.Value(w), w), w);
        } else if (w == "burst") {
            SetOnce(p.burst, ParseU32(a.Value(w), w), w);
        } else if (w == "dscp") {
            SetOnce(p.dscp, ParseU32(a.Value(w), w), w);
        } else if (w == "dscp-ctl") {
            SetOnce(p.dscp_ctl, ParseU32(a.Value(w), w), w);
        } else if (w == "cc-algo") {
            const std::string& v = a.Value(w);
            auto algo = CcAlgoFromName(v);
            if (!algo) Unknown("cc-algo", v);
            SetOnce(p.cc_algo, *algo, w);
        } else if (w == "target-delay") {
            SetOnce(p.target_delay, ParseU32(a.Value(w), w), w);
        } else if (w == "gamma") {
            SetOnce(p.gamma, ParseU32(a.Value(w), w), w);
        } else if (w == "max-md") {
            SetOnce(p.max_md, ParseU32(a.Value(w), w), w);
        } else if (w == "max-wnd") {
            SetOnce(p.max_wnd, ParseU32(a.Value(w), w), w);
        } else if (w == "init-wnd") {
            SetOnce(p.init_wnd, ParseU32(a.Value(w), w), w);
        } else if (w == "link-rate") {
            SetOnce(p.link_mbps, ParseLinkRate(a.Value(w)), w);
        } else if (w == "init-wnd-shared") {
            const std::string& v = a.Value(w);
            if (v != "on" && v != "off") Unknown("init-wnd-shared", v);
            SetOnce(p.init_wnd_shared, v == "on", w);
        } else {
            Unknown("argument", w);
        }
    }
    if (c.verb != Verb::kShow && !p.id)
        throw UsageError(CommandName(c) + ": \"id ID\" is required");
    if (c.verb == Verb::kSet && !p.has_ev() && !p.has_cc())
        throw UsageError("profile set: nothing to change");
}

// iproute2's matches(): an argument abbreviates every keyword it is a prefix
// of, and the first keyword of a list in its order wins ("mrcctl r s" is
// route show, as "ip r s" is).
bool Matches(std::string_view arg, std::string_view word) {
    return !arg.empty() && word.substr(0, arg.size()) == arg;
}

struct VerbName {
    std::string_view name;
    Verb verb;
    bool route_only;
    bool not_route;
};

// Order decides abbreviations: "s" is show (not set), "d" del, "r" replace.
constexpr std::array<VerbName, 9> kVerbs = {{
    {"show", Verb::kShow, false, false},
    {"list", Verb::kShow, false, false},
    {"add", Verb::kAdd, false, false},
    {"del", Verb::kDel, false, false},
    {"delete", Verb::kDel, false, false},
    {"set", Verb::kSet, false, true},
    {"get", Verb::kGet, true, false},
    {"replace", Verb::kAdd, true, false},
    {"flush", Verb::kFlush, false, false},
}};

// The verb after an object ("OBJECT help" is taken before, in Parse()).
Verb ParseVerb(Args& a, Command& c) {
    if (a.Done()) return Verb::kShow;  // "mrcctl plane" lists, like ip
    const std::string& w = a.Next();
    const bool route = c.object == Object::kRoute;
    if (w == "ls") return Verb::kShow;
    for (const VerbName& v : kVerbs) {
        if ((v.route_only && !route) || (v.not_route && route) || !Matches(w, v.name)) continue;
        if (v.name == "replace") c.route.replace = true;
        return v.verb;
    }
    Unknown("command", w);
}

struct ObjectName {
    std::string_view name;
    Object object;
};

// Order decides abbreviations: "r" route, "p" plane, "pr" profile, "pa" path,
// "pro" profile, "prob" probe.
constexpr std::array<ObjectName, 10> kObjects = {{
    {"route", Object::kRoute},
    {"plane", Object::kPlane},
    {"profile", Object::kProfile},
    {"path", Object::kPath},
    {"conn", Object::kConn},
    {"stats", Object::kStats},
    {"save", Object::kSave},
    {"monitor", Object::kMonitor},
    {"help", Object::kHelp},
    {"probe", Object::kProbe},
}};

std::optional<Object> ObjectFromWord(std::string_view w) {
    for (const ObjectName& o : kObjects)
        if (Matches(w, o.name)) return o.object;
    return std::nullopt;
}

std::string ObjectWord(Object o) {
    for (const ObjectName& n : kObjects)
        if (n.object == o) return std::string(n.name);
    return {};
}

}  // namespace

uint32_t ParseU32(std::string_view s, std::string_view what) {
    uint32_t v = 0;
    int base = 10;
    std::string_view digits = s;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        digits.remove_prefix(2);
        base = 16;
    }
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
    if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size())
        throw UsageError("invalid " + std::string(what) + " \"" + std::string(s) + "\"");
    return v;
}

uint32_t ParseLinkRate(std::string_view s) {
    static constexpr std::array<std::pair<std::string_view, uint64_t>, 3> kUnits = {
        {{"mbit", 1}, {"gbit", 1000}, {"tbit", 1000000}}};
    std::string_view digits = s;
    uint64_t scale = 1;
    for (const auto& [unit, mult] : kUnits) {
        if (digits.size() > unit.size() && digits.ends_with(unit)) {
            digits.remove_suffix(unit.size());
            scale = mult;
            break;
        }
    }
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() ||
        v > UINT32_MAX || v * scale > UINT32_MAX)
        throw UsageError("invalid link-rate \"" + std::string(s) +
                         "\" (a rate in mbit, gbit or tbit, or Mbit/s)");
    return static_cast<uint32_t>(v * scale);
}

std::string LinkRate(uint32_t mbps) {
    if (mbps && mbps % 1000000 == 0) return std::to_string(mbps / 1000000) + "tbit";
    if (mbps && mbps % 1000 == 0) return std::to_string(mbps / 1000) + "gbit";
    return std::to_string(mbps) + "mbit";
}

in6_addr ParseAddr(std::string_view s, std::string_view what) {
    in6_addr a{};
    std::string str(s);
    if (inet_pton(AF_INET6, str.c_str(), &a) != 1)
        throw UsageError("invalid " + std::string(what) + " \"" + str + "\"");
    return a;
}

void ParsePrefix(std::string_view s, in6_addr& addr, uint8_t& len) {
    auto slash = s.find('/');
    addr = ParseAddr(s.substr(0, slash), "prefix");
    if (slash == std::string_view::npos) {
        len = 128;
        return;
    }
    uint32_t l = ParseU32(s.substr(slash + 1), "prefix length");
    if (l > 128) throw UsageError("invalid prefix length \"" + std::string(s) + "\"");
    len = static_cast<uint8_t>(l);
}

std::vector<in6_addr> ParseAddrList(std::string_view s, std::string_view what) {
    std::vector<in6_addr> out;
    size_t start = 0;
    while (true) {
        size_t comma = s.find(',', start);
        out.push_back(ParseAddr(s.substr(start, comma - start), what));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

std::string_view EncapName(uint8_t encap) {
    return encap < kEncapNames.size() ? kEncapNames[encap] : "unknown";
}

std::optional<uint8_t> EncapFromName(std::string_view name) {
    for (size_t i = 0; i < kEncapNames.size(); i++)
        if (kEncapNames[i] == name) return static_cast<uint8_t>(i);
    return std::nullopt;
}

std::string_view CcAlgoName(uint8_t algo) {
    return algo < kCcAlgoNames.size() ? kCcAlgoNames[algo] : "unknown";
}

std::optional<uint8_t> CcAlgoFromName(std::string_view name) {
    for (size_t i = 0; i < kCcAlgoNames.size(); i++)
        if (kCcAlgoNames[i] == name) return static_cast<uint8_t>(i);
    return std::nullopt;
}

std::string AddrToString(const in6_addr& a) {
    char buf[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, &a, buf, sizeof(buf));
    return buf;
}

std::string_view ConnStateName(uint8_t state) {
    static constexpr std::array<std::string_view, 5> kNames = {"closed", "listen", "connecting",
                                                               "established", "failed"};
    static_assert(MRC_INFO_FAILED + 1 == kNames.size());
    return state < kNames.size() ? kNames[state] : "unknown";
}

std::string_view PathStateName(uint8_t state) {
    static constexpr std::array<std::string_view, 4> kNames = {"good", "skip", "assumed_bad",
                                                               "denied"};
    static_assert(MRC_PATH_DENIED + 1 == kNames.size());
    return state < kNames.size() ? kNames[state] : "unknown";
}

std::string_view UsageText() { return kUsage; }

std::string UsageText(std::string_view topic) {
    if (topic.empty()) return std::string(kUsage);
    // The object's lines of the full usage (with their continuation lines),
    // then the options.
    std::string out =
        "Usage: mrcctl [-j | -p] [-n NETNS] " + std::string(topic) + " COMMAND [ARGS]\n";
    const std::string head = "  mrcctl " + std::string(topic);
    std::string_view u = kUsage;
    bool in = false;
    while (!u.empty()) {
        size_t nl = u.find('\n');
        std::string_view line = u.substr(0, nl + 1);
        u.remove_prefix(line.size());
        if (line.substr(0, 9) == "  mrcctl ")
            in = line.substr(0, head.size()) == head &&
                 (line.size() == head.size() || line[head.size()] == ' ' ||
                  line[head.size()] == '\n');
        else if (line.substr(0, 4) != "    ")
            in = false;
        if (in) out += line;
    }
    out += "Keywords may be abbreviated as in ip(8): \"mrcctl r s\" is \"mrcctl route show\".\n";
    return out;
}

std::vector<std::string> SplitBatchLine(std::string_view line) {
    std::vector<std::string> words;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
        if (i == line.size() || line[i] == '#') break;
        std::string w;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') {
            const char q = line[i];
            if (q != '\'' && q != '"') {
                w += line[i++];
                continue;
            }
            const size_t end = line.find(q, i + 1);
            if (end == std::string_view::npos)
                throw UsageError(std::string("unterminated ") + q + " quote");
            w.append(line.substr(i + 1, end - i - 1));
            i = end + 1;
        }
        words.push_back(std::move(w));
    }
    return words;
}

std::string CommandName(const Command& cmd) {
    std::string obj;
    switch (cmd.object) {
        case Object::kHelp:
            return "help";
        case Object::kVersion:
            return "version";
        case Object::kBatch:
            return "batch";
        case Object::kStats:
            return "stats";
        case Object::kMonitor:
            return "monitor";
        case Object::kPlane:
            obj = "plane";
            break;
        case Object::kRoute:
            obj = "route";
            break;
        case Object::kProfile:
            obj = "profile";
            break;
        case Object::kConn:
            return "conn show";
        case Object::kPath:
            return "path show";
        case Object::kSave:
            return "save";
        case Object::kProbe:
            return "probe";
    }
    switch (cmd.verb) {
        case Verb::kAdd:
            return obj + (cmd.route.replace ? " replace" : " add");
        case Verb::kDel:
            return obj + " del";
        case Verb::kSet:
            return obj + " set";
        case Verb::kGet:
            return obj + " get";
        case Verb::kFlush:
            return obj + " flush";
        case Verb::kShow:
        case Verb::kNone:
            break;
    }
    return obj + " show";
}

Command Parse(const std::vector<std::string>& argv) {
    Command c;
    Args a(argv);
    // Options come before the object, as with ip(8).
    while (!a.Done() && !a.Peek().empty() && a.Peek()[0] == '-') {
        const std::string& o = a.Next();
        if (o == "-j" || o == "--json" || o == "-json") {
            c.json = true;
        } else if (o == "-p" || o == "--pretty" || o == "-pretty") {
            c.json = c.pretty = true;
        } else if (o == "-t" || o == "--timestamp" || o == "-timestamp") {
            c.timestamp = true;
        } else if (o == "-n" || o == "--netns" || o == "-netns") {
            c.netns = a.Value(o);
            if (c.netns.empty() || c.netns.find('/') != std::string::npos)
                throw UsageError("invalid namespace name \"" + c.netns + "\"");
        } else if (o == "-b" || o == "--batch" || o == "-batch") {
            c.batch = a.Value(o);
            if (c.batch.empty()) throw UsageError("empty batch file name");
        } else if (o == "-force" || o == "--force") {
            c.force = true;
        } else if (o == "-h" || o == "--help") {
            c.object = Object::kHelp;
            return c;
        } else if (o == "-V" || o == "--version" || o == "-version") {
            c.object = Object::kVersion;
            return c;
        } else {
            Unknown("option", o);
        }
    }
    if (!c.batch.empty()) {
        // As ip -b: the commands come from the file, none from argv.
        if (!a.Done()) throw UsageError("-b FILE takes no command, found \"" + a.Peek() + "\"");
        c.object = Object::kBatch;
        return c;
    }
    if (c.force) throw UsageError("-force applies to -b FILE only");
    if (a.Done()) throw UsageError("no object given");
    const std::string& obj = a.Next();
    std::optional<Object> o = ObjectFromWord(obj);
    if (!o) Unknown("object", obj);
    c.object = *o;
    // "OBJECT help": that object's usage, as "help OBJECT".
    if (c.object != Object::kHelp && !a.Done() && Matches(a.Peek(), "help")) {
        a.Next();
        c.help_topic = ObjectWord(c.object);
        c.object = Object::kHelp;
    }
    switch (c.object) {
        case Object::kHelp:
            // "mrcctl help [OBJECT]"
            if (c.help_topic.empty() && !a.Done()) {
                std::optional<Object> t = ObjectFromWord(a.Peek());
                if (!t || *t == Object::kHelp) Unknown("object", a.Peek());
                a.Next();
                c.help_topic = ObjectWord(*t);
            }
            break;
        case Object::kPlane:
            c.verb = ParseVerb(a, c);
            if (c.verb != Verb::kFlush) ParsePlane(a, c);
            break;
        case Object::kRoute:
            c.verb = ParseVerb(a, c);
            if (c.verb != Verb::kFlush) ParseRoute(a, c);
            break;
        case Object::kProfile:
            c.verb = ParseVerb(a, c);
            if (c.verb != Verb::kFlush) ParseProfile(a, c);
            break;
        case Object::kStats:
            if (!a.Done() && Matches(a.Peek(), "show")) a.Next();
            break;
        case Object::kMonitor:
            if (!a.Done() && Matches(a.Peek(), "all")) {
                a.Next();
            } else if (!a.Done()) {
                // "monitor plane|route|conn" (path: conn's path-change too)
                std::optional<Object> t = ObjectFromWord(a.Peek());
                if (!t || (*t != Object::kPlane && *t != Object::kRoute && *t != Object::kConn &&
                           *t != Object::kPath))
                    Unknown("monitor object", a.Peek());
                a.Next();
                c.monitor_only = *t == Object::kPath ? Object::kConn : *t;
            }
            break;
        case Object::kSave:
            break;
        case Object::kProbe:
            if (a.Done()) throw UsageError("probe needs an address");
            c.probe.peer = ParseAddr(a.Next(), "probe address");
            while (!a.Done()) {
                const std::string& w = a.Next();
                if (Matches(w, "evs"))
                    SetOnce(c.probe.evs, ParseU32(a.Value(w), "evs"), w);
                else if (Matches(w, "timeout"))
                    SetOnce(c.probe.timeout_ms, ParseU32(a.Value(w), "timeout"), w);
                else
                    Unknown("argument", w);
            }
            break;
        case Object::kConn:
        case Object::kPath:
            c.verb = Verb::kShow;
            if (!a.Done() && Matches(a.Peek(), "show")) a.Next();
            while (!a.Done()) {
                const std::string& w = a.Next();
                if (!Matches(w, "qpn")) Unknown("argument", w);
                SetOnce(c.qpn, ParseU32(a.Value(w), "qpn"), w);
            }
            break;
        case Object::kVersion:
        case Object::kBatch:
            break;
    }
    if (!a.Done()) Unknown("argument", a.Peek());
    return c;
}

}  // namespace mrcctl
