// mrcperf: message throughput and latency over AF_MRC, TCP and MPTCP.
// Documentation/man/mrcperf.1 is the manual.
#include <signal.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "json.h"
#include "net.h"
#include "options.h"
#include "run.h"

using namespace mrcperf;

namespace {

int JsonMode(const Config& c) {
    std::string text;
    if (c.json_file == "-") {
        text.assign(std::istreambuf_iterator<char>(std::cin), {});
    } else {
        std::ifstream f(c.json_file);
        if (!f) {
            std::cerr << "mrcperf: cannot read " << c.json_file << "\n";
            return kExitFail;
        }
        text.assign(std::istreambuf_iterator<char>(f), {});
    }
    std::string error;
    auto v = ParseJson(text, &error);
    if (!v) {
        std::cerr << "mrcperf: " << c.json_file << ": not valid JSON: " << error << "\n";
        return kExitFail;
    }
    if (c.json_paths.empty()) {
        std::cout << "ok\n";
        return kExitOk;
    }
    int rc = kExitOk;
    for (const auto& path : c.json_paths) {
        const JsonValue* x = v->Path(path);
        if (!x) {
            std::cerr << "mrcperf: " << c.json_file << ": no " << path << "\n";
            rc = kExitFail;
            continue;
        }
        std::cout << x->ToText() << "\n";
    }
    return rc;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    ParseResult pr = ParseArgs(args);
    if (!pr.error.empty()) {
        std::cerr << "mrcperf: " << pr.error << "\n" << UsageText();
        return kExitUsage;
    }
    const Config& c = pr.cfg;
    ::signal(SIGPIPE, SIG_IGN);
    try {
        switch (c.mode) {
            case Mode::kHelp:
                std::cout << UsageText();
                return kExitOk;
            case Mode::kVersion:
                std::cout << "mrcperf " MRC_VERSION "\n";
                return kExitOk;
            case Mode::kJson:
                return JsonMode(c);
            case Mode::kServer:
                return RunServer(c, std::cout, std::cerr);
            case Mode::kBulk:
            case Mode::kPingpong:
            case Mode::kRpc:
                return RunClient(c, std::cout, std::cerr);
        }
    } catch (const Error& e) {
        std::cerr << "mrcperf: " << e.what() << "\n";
        return e.code();
    } catch (const std::exception& e) {
        std::cerr << "mrcperf: " << e.what() << "\n";
        return kExitFail;
    }
    return kExitFail;
}
