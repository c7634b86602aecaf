// SPDX-License-Identifier: GPL-2.0
// What the kernel reports (decoded), and how mrcctl prints it: one text line
// per object, or JSON (an array per show, one object per line for monitor).
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mrcctl {

struct Plane {
    uint32_t id = 0;
    uint32_t ifindex = 0;
    std::string dev;  // empty: the device is gone
    in6_addr addr{};
    bool admin_up = false;
    bool oper_up = false;
};

struct Path {
    uint32_t plane = 0;
    std::vector<in6_addr> segs;
    std::optional<in6_addr> usid;
};

struct Route {
    in6_addr dst{};
    uint8_t len = 0;
    uint8_t encap = 0;
    std::vector<Path> paths;
};

struct Profile {
    uint32_t id = 0;
    uint32_t ev_count = 0, ev_active = 0, ev_min_active = 0;
    uint8_t cc_algo = 0;
    uint32_t target_delay = 0, gamma = 0, max_md = 0, max_wnd = 0, init_wnd = 0;
};

// Counter name -> value, in kernel attribute order.
using Stats = std::vector<std::pair<std::string, uint64_t>>;

// A minimal streaming JSON writer: commas and escaping handled here.
class JsonWriter {
  public:
    explicit JsonWriter(std::ostream& os) : os_(os) {}
    JsonWriter& BeginObject();
    JsonWriter& EndObject();
    JsonWriter& BeginArray();
    JsonWriter& EndArray();
    JsonWriter& Key(std::string_view k);
    JsonWriter& String(std::string_view s);
    JsonWriter& Uint(uint64_t v);
    JsonWriter& Bool(bool v);

    static std::string Escape(std::string_view s);

  private:
    void Separate();
    std::ostream& os_;
    std::vector<bool> first_;
    bool after_key_ = false;
};

void PrintPlane(std::ostream& os, const Plane& p);
void PrintRoute(std::ostream& os, const Route& r);
void PrintProfile(std::ostream& os, const Profile& p);
void PrintStats(std::ostream& os, const Stats& s);

void JsonPlane(JsonWriter& j, const Plane& p);
void JsonRoute(JsonWriter& j, const Route& r);
void JsonProfile(JsonWriter& j, const Profile& p);
void JsonStats(JsonWriter& j, const Stats& s);

}  // namespace mrcctl
