#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fuzz: long libFuzzer runs of every target (ctest runs only a short
# smoke run of each). Corpora grow under tools/fuzz/corpus/<target>
# (git-ignored); crashes land in build/fuzz-artifacts/.
#   FUZZ_SECONDS=600 make fuzz      seconds per target (default 300)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
secs=${FUZZ_SECONDS:-300}
bin=build/cmake/tools/fuzz
art=build/fuzz-artifacts
mkdir -p "$art"
"$bin/mrc_fuzz_seedgen" tools/fuzz/corpus
status=0
for t in "$bin"/fuzz_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	mkdir -p "tools/fuzz/corpus/$name"
	echo "fuzz: $name for ${secs}s"
	"$t" "tools/fuzz/corpus/$name" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art/$name-" || status=1
done
exit $status
