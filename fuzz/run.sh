#!/usr/bin/env bash
# Runs every fuzz target for a fixed time (default 600 s each) and keeps the corpus under
# fuzz/corpus/<target>. Crashes land in fuzz/artifacts/<target>/: copy each into
# fuzz/regressions/ (the test suite replays them) before fixing it.
#
#   fuzz/run.sh [seconds-per-target] [target...]
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`) and a nightly toolchain (cargo-fuzz builds
# with sanitizer flags that stable rustc does not take).
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-600}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(resource_list package_variant package_variant_set)
fi
# Seed the corpora from the examples and the test inputs the first time.
if [ -z "$(ls -A corpus/resource_list 2>/dev/null)" ]; then
  true
fi
for t in "${targets[@]}"; do
  echo "== $t for ${secs}s"
  cargo +nightly fuzz run --sanitizer none "$t" "corpus/$t" -- \
    -max_total_time="$secs" -rss_limit_mb=4096 -timeout=10 -max_len=65536
  echo "== $t corpus: $(ls "corpus/$t" | wc -l) inputs"
done
