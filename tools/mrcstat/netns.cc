// SPDX-License-Identifier: GPL-2.0
#include "netns.h"

#include <dirent.h>
#include <sys/stat.h>

#include <memory>

namespace mrcstat {

std::map<uint32_t, std::string> NetnsNames(const std::string& run_dir, const std::string& init_ns) {
    std::map<uint32_t, std::string> names;
    std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(run_dir.c_str()), closedir);
    if (d) {
        while (const dirent* e = readdir(d.get())) {
            const std::string n = e->d_name;
            if (n == "." || n == "..") continue;
            struct stat st {};
            // stat() follows the bind mount to the nsfs inode.
            if (stat((run_dir + "/" + n).c_str(), &st) == 0)
                names.emplace(static_cast<uint32_t>(st.st_ino), n);
        }
    }
    struct stat st {};
    if (stat(init_ns.c_str(), &st) == 0) names.emplace(static_cast<uint32_t>(st.st_ino), "init");
    return names;
}

}  // namespace mrcstat
