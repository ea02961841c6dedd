#!/usr/bin/env bash
# The workload benchmarks: generates the workloads, runs W1, W1-floor, the Go peer, W2 and W3
# interleaved N times, and prints the medians (wall clock and CPU, user + system), peak RSS,
# the ratios against every target, the scaling rows and W2 at fleet scale (1k, 10k, 100k
# repositories: CPU and peak RSS per target).
#
#   benches/run.sh [-n N] [--quick] [--keep DIR]
#
#   -n N      repetitions (median of N; default 5)
#   --quick   tiny sizes and a debug build, one repetition: a smoke test for CI (targets are
#             printed but not judged)
#   --keep D  write the workloads and outputs to D and keep them (default: a temporary dir)
#
# PV_BIN=FILE runs that binary instead of building one.
# Needs: cargo and rustc, Linux (getrusage). Optional: go + golang-gopkg-yaml.v3-dev (the Go
# peer), kpt (W3 through `kpt fn eval --exec`), hyperfine (W3 process timing; else a shell loop).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

N=5
QUICK=0
KEEP=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n) N=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --keep) KEEP=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

if [ -n "$KEEP" ]; then
  mkdir -p "$KEEP"; WORK=$(cd "$KEEP" && pwd)
else
  WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
fi

if [ "$QUICK" = 1 ]; then
  N=1
  W1_N=60; W2_N=60; W1_SCALE="30 60 120"; W2_SCALE="30 60 120"; W3_RUNS=5
  PROFILE=dev; BIN=$ROOT/target/debug/package-variant
else
  W1_N=10000; W2_N=10000; W1_SCALE="1000 10000 50000"; W2_SCALE="1000 10000 100000"; W3_RUNS=30
  PROFILE=release; BIN=$ROOT/target/release/package-variant
fi


if [ -n "${PV_BIN:-}" ]; then
  BIN=$(realpath "$PV_BIN")   # compare a saved binary: PV_BIN=/tmp/old benches/run.sh
else
  echo "== build ($PROFILE)"
  cargo build --quiet --profile "$PROFILE" --bin package-variant
fi
gen() { cargo bench --quiet --profile dev --bench gen -- "$@"; }
RUSAGE=$WORK/rusage
rustc -O --edition 2021 -o "$RUSAGE" benches/support/rusage.rs

echo "== workloads in $WORK"
for n in $W1_SCALE $W1_N; do [ -f "$WORK/w1-$n.yaml" ] || gen w1 "$n" "$WORK/w1-$n.yaml"; done
for n in $W2_SCALE $W2_N; do [ -f "$WORK/w2-$n.yaml" ] || gen w2 "$n" "$WORK/w2-$n.yaml"; done
# W2 following a tag, and under revisionActivationPolicy: Manual (activated: the same output;
# not activated: the revision offered, the fleet kept).
for w in w2-tag w2-tag-manual w2-tag-offer; do
  [ -f "$WORK/$w-$W2_N.yaml" ] || gen "$w" "$W2_N" "$WORK/$w-$W2_N.yaml"
done
gen w3 "$WORK/w3.yaml"
gen w3-config "$WORK/w3-pv.yaml"

# W1-floor: the same items in the state where the PackageVariant has nothing left to do: W1's
# own output (plus the in-cluster objects, which the function does not write back) fed to the
# same PackageVariant. Its run must leave the items as they are.
"$BIN" < "$WORK/w1-$W1_N.yaml" > "$WORK/w1.first.out"
gen w1-floor "$W1_N" "$WORK/w1.first.out" "$WORK/w1-floor.yaml"
"$BIN" < "$WORK/w1-floor.yaml" > "$WORK/w1-floor.out"
FLOOR_NOTE=""
if ! cmp -s <(sed '/^functionConfig:/,$d' "$WORK/w1.first.out") <(sed '/^functionConfig:/,$d' "$WORK/w1-floor.out"); then
  FLOOR_NOTE="W1-floor: the PackageVariant changed items of its own output (not a fixed point)"
fi

GO_PEER=""
if command -v go >/dev/null 2>&1 && [ -d /usr/share/gocode/src/gopkg.in/yaml.v3 ]; then
  (cd benches/go-peer && GO111MODULE=off GOPATH=/usr/share/gocode go build -o "$WORK/go-peer" .) \
    && GO_PEER=$WORK/go-peer
else
  echo "   (no Go peer: apt-get install -y golang-go golang-gopkg-yaml.v3-dev)"
fi

W3_PKG=""
if command -v kpt >/dev/null 2>&1; then
  rm -rf "$WORK/w3-pkg"
  if kpt fn sink "$WORK/w3-pkg" < "$WORK/w3.yaml" >/dev/null 2>&1; then
    W3_PKG=$WORK/w3-pkg
    # First run brings the package to its fixed point; the timed runs then all do the same work.
    kpt fn eval "$W3_PKG" --exec "$BIN" --fn-config "$WORK/w3-pv.yaml" >/dev/null 2>&1 || W3_PKG=""
  fi
fi

# run NAME INPUT CMD...: one timed run; appends wall-clock microseconds to NAME.us, CPU
# microseconds (user + system, what the process itself spent: steadier than the wall clock on a
# shared machine) to NAME.cpu and peak RSS in KB to NAME.rss (both from getrusage, through
# benches/support/rusage.rs).
run() {
  local name=$1 input=$2; shift 2
  local t0=$EPOCHREALTIME
  if ! "$RUSAGE" "$WORK/$name.usage1" "$@" < "$input" > "$WORK/$name.out" 2> "$WORK/$name.err"; then
    echo "run.sh: $name failed:" >&2; cat "$WORK/$name.err" >&2; exit 1
  fi
  local t1=$EPOCHREALTIME
  echo $(( (${t1/./} - ${t0/./}) )) >> "$WORK/$name.us"
  awk '{ print $1 + $2 }' "$WORK/$name.usage1" >> "$WORK/$name.cpu"
  awk '{ print $3 }' "$WORK/$name.usage1" >> "$WORK/$name.rss"
}
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ms() { awk -v us="$(median "$1")" 'BEGIN { printf "%.1f", us / 1000 }'; }
mb() { awk -v kb="$(median "$1")" 'BEGIN { printf "%.1f", kb / 1024 }'; }
size_mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { if (b < 1048576) printf "%.1f KB", b / 1024; else printf "%.1f MB", b / 1048576 }'; }

rm -f "$WORK"/*.us "$WORK"/*.cpu "$WORK"/*.rss
echo "== main runs (N=$N, interleaved)"
for ((rep = 1; rep <= N; rep++)); do
  run w1 "$WORK/w1-$W1_N.yaml" "$BIN"
  run w1floor "$WORK/w1-floor.yaml" "$BIN"
  [ -z "$GO_PEER" ] || run gopeer "$WORK/w1-$W1_N.yaml" "$GO_PEER"
  run w2 "$WORK/w2-$W2_N.yaml" "$BIN"
  run w2tag "$WORK/w2-tag-$W2_N.yaml" "$BIN"
  run w2tagmanual "$WORK/w2-tag-manual-$W2_N.yaml" "$BIN"
  run w2tagoffer "$WORK/w2-tag-offer-$W2_N.yaml" "$BIN"
  if [ -n "$W3_PKG" ]; then
    t0=$EPOCHREALTIME
    kpt fn eval "$W3_PKG" --exec "$BIN" --fn-config "$WORK/w3-pv.yaml" >/dev/null 2>&1
    t1=$EPOCHREALTIME
    echo $(( ${t1/./} - ${t0/./} )) >> "$WORK/w3kpt.us"
  fi
  # W3 process: the binary alone on the same 20 resources, several runs per repetition.
  # hyperfine (shell spawn cost measured and subtracted) when present, else a shell loop.
  if command -v hyperfine >/dev/null 2>&1 \
    && hyperfine --style none --warmup 3 --runs "$W3_RUNS" --output null \
      --export-json "$WORK/w3.json" "'$BIN' < '$WORK/w3.yaml'" >/dev/null 2>&1; then
    tr -d ' \n' < "$WORK/w3.json" | grep -o '"times":\[[^]]*\]' | tr -dc '0-9.e,\n-' | tr ',' '\n' \
      | awk 'NF { printf "%d\n", $1 * 1000000 }' >> "$WORK/w3.us"
  else
    for ((i = 0; i < W3_RUNS; i++)); do
      t0=$EPOCHREALTIME; "$BIN" < "$WORK/w3.yaml" > /dev/null; t1=$EPOCHREALTIME
      echo $(( ${t1/./} - ${t0/./} )) >> "$WORK/w3.us"
    done
  fi
done

echo "== scaling runs (N=$N, interleaved)"
for ((rep = 1; rep <= N; rep++)); do
  for n in $W1_SCALE; do
    if [ "$n" = "$W1_N" ]; then continue; fi
    run "w1s$n" "$WORK/w1-$n.yaml" "$BIN"
  done
  for n in $W2_SCALE; do
    if [ "$n" = "$W2_N" ]; then continue; fi
    run "w2s$n" "$WORK/w2-$n.yaml" "$BIN"
  done
done
for f in us cpu rss; do cp "$WORK/w1.$f" "$WORK/w1s$W1_N.$f"; cp "$WORK/w2.$f" "$WORK/w2s$W2_N.$f"; done

BIN_SIZE=$(stat -c %s "$BIN")
if command -v strip >/dev/null 2>&1; then
  cp "$BIN" "$WORK/stripped" && strip "$WORK/stripped" && BIN_SIZE=$(stat -c %s "$WORK/stripped")
fi

W1_IN=$(stat -c %s "$WORK/w1-$W1_N.yaml")
W1_MS=$(ms "$WORK/w1.us"); FLOOR_MS=$(ms "$WORK/w1floor.us"); W2_MS=$(ms "$WORK/w2.us")
W1_CPU=$(ms "$WORK/w1.cpu"); FLOOR_CPU=$(ms "$WORK/w1floor.cpu")
W3_MS=$(awk -v us="$(median "$WORK/w3.us")" 'BEGIN { printf "%.2f", us / 1000 }')
W1_RSS_KB=$(median "$WORK/w1.rss")
W2_BIG=${W2_SCALE##* }   # the largest W2: the fleet-scale goals are judged there
per_item_us() { awk -v us="$(median "$1")" -v n="$2" 'BEGIN { printf "%.2f", us / n }'; }
per_item_kib() { awk -v kb="$(median "$1")" -v n="$2" 'BEGIN { printf "%.2f", kb / n }'; }

echo
echo "## Results ($(date -u +%Y-%m-%d), $(nproc) CPUs, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg), median of $N)"
echo
printf '| %-36s | %9s | %9s | %9s | %11s |\n' workload input "median ms" "CPU ms" "peak RSS MB"
printf '|%s|%s|%s|%s|%s|\n' "--------------------------------------" "-----------" "-----------" "-----------" "-------------"
row() { printf '| %-36s | %9s | %9s | %9s | %11s |\n' "$1" "$2" "$3" "$4" "$5"; }
row "W1 PackageVariant, $W1_N resources" "$(size_mb "$WORK/w1-$W1_N.yaml")" "$W1_MS" "$W1_CPU" "$(mb "$WORK/w1.rss")"
row "W1-floor (same PV, nothing to do)" "$(size_mb "$WORK/w1-floor.yaml")" "$FLOOR_MS" "$FLOOR_CPU" "$(mb "$WORK/w1floor.rss")"
if [ -n "$GO_PEER" ]; then
  row "Go peer: yaml.v3 Node round trip W1" "$(size_mb "$WORK/w1-$W1_N.yaml")" "$(ms "$WORK/gopeer.us")" "$(ms "$WORK/gopeer.cpu")" "$(mb "$WORK/gopeer.rss")"
fi
row "W2 PackageVariantSet, $W2_N repos" "$(size_mb "$WORK/w2-$W2_N.yaml")" "$W2_MS" "$(ms "$WORK/w2.cpu")" "$(mb "$WORK/w2.rss")"
row "W2 with a tag" "$(size_mb "$WORK/w2-tag-$W2_N.yaml")" "$(ms "$WORK/w2tag.us")" "$(ms "$WORK/w2tag.cpu")" "$(mb "$WORK/w2tag.rss")"
row "W2 with a tag, Manual, activated" "$(size_mb "$WORK/w2-tag-manual-$W2_N.yaml")" "$(ms "$WORK/w2tagmanual.us")" "$(ms "$WORK/w2tagmanual.cpu")" "$(mb "$WORK/w2tagmanual.rss")"
row "W2 with a tag, Manual, offered" "$(size_mb "$WORK/w2-tag-offer-$W2_N.yaml")" "$(ms "$WORK/w2tagoffer.us")" "$(ms "$WORK/w2tagoffer.cpu")" "$(mb "$WORK/w2tagoffer.rss")"
if [ -n "$W3_PKG" ]; then
  row "W3 kpt fn eval --exec, 20 resources" "-" "$(ms "$WORK/w3kpt.us")" "-" "-"
fi
row "W3 process alone, 20 resources" "$(awk -v b="$(stat -c %s "$WORK/w3.yaml")" 'BEGIN { printf "%.1f KB", b / 1024 }')" "$W3_MS" "-" "-"

echo
printf '| %-40s | %-26s | %-7s |\n' target measured verdict
printf '|%s|%s|%s|\n' "------------------------------------------" "----------------------------" "---------"
verdict() { # verdict NAME MEASURED OK(0/1)
  local v
  if [ "$QUICK" = 1 ]; then v="(quick)"; elif [ "$3" = 1 ]; then v="met"; else v="NOT MET"; fi
  printf '| %-40s | %-26s | %-7s |\n' "$1" "$2" "$v"
}
ok() { awk "BEGIN { exit !($1) }" && echo 1 || echo 0; }
R=$(awk -v a="$W1_CPU" -v b="$FLOOR_CPU" 'BEGIN { printf "%.2f", a / b }')
verdict "W1 <= 1.05x W1-floor (CPU)" "${R}x" "$(ok "$R <= 1.05")"
if [ -n "$GO_PEER" ]; then
  R=$(awk -v a="$W1_MS" -v b="$(ms "$WORK/gopeer.us")" 'BEGIN { printf "%.3f", a / b }')
  verdict "W1 <= 0.3x Go peer" "${R}x" "$(ok "$R <= 0.3")"
else
  verdict "W1 <= 0.3x Go peer" "no Go toolchain" 0
fi
verdict "W2 < 0.5 s" "$(awk -v m="$W2_MS" 'BEGIN { printf "%.3f s", m / 1000 }')" "$(ok "$W2_MS < 500")"
R=$(per_item_us "$WORK/w2s$W2_BIG.cpu" "$W2_BIG")
verdict "W2 $W2_BIG: CPU <= 25 us per target" "$R us ($(awk -v us="$(median "$WORK/w2s$W2_BIG.cpu")" 'BEGIN { printf "%.2f s", us / 1e6 }'))" "$(ok "$R <= 25")"
R=$(per_item_kib "$WORK/w2s$W2_BIG.rss" "$W2_BIG")
verdict "W2 $W2_BIG: peak RSS <= 3 KiB per target" "$R KiB ($(mb "$WORK/w2s$W2_BIG.rss") MB)" "$(ok "$R <= 3")"
R=$(awk -v a="$(ms "$WORK/w2tagmanual.cpu")" -v b="$(ms "$WORK/w2tag.cpu")" 'BEGIN { printf "%.3f", a / b }')
verdict "W2 tag Manual <= 1.1x W2 tag (CPU)" "${R}x" "$(ok "$R <= 1.1")"
verdict "W3 process < 5 ms" "$W3_MS ms" "$(ok "$W3_MS < 5")"
R=$(awk -v r="$W1_RSS_KB" -v i="$W1_IN" 'BEGIN { printf "%.2f", r * 1024 / i }')
verdict "W1 peak RSS <= 5x input" "${R}x ($(mb "$WORK/w1.rss") MB)" "$(ok "$R <= 5")"
verdict "stripped release binary <= 8 MB" "$(awk -v b="$BIN_SIZE" 'BEGIN { printf "%.2f MB", b / 1048576 }')" "$(ok "$BIN_SIZE <= 8 * 1048576")"
[ -z "$FLOOR_NOTE" ] || echo "WARNING: $FLOOR_NOTE"

echo
printf '| %-7s | %7s | %9s | %9s | %9s | %12s | %11s | %13s |\n' scaling size input "median ms" "CPU ms" "CPU us/item" "peak RSS MB" "RSS KiB/item"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' "---------" "---------" "-----------" "-----------" "-----------" "--------------" "-------------" "---------------"
scale_row() { # scale_row NAME SIZE PREFIX
  printf '| %-7s | %7s | %9s | %9s | %9s | %12s | %11s | %13s |\n' "$1" "$2" "$(size_mb "$WORK/$(echo "$1" | tr 'A-Z' 'a-z')-$2.yaml")" \
    "$(ms "$WORK/$3$2.us")" "$(ms "$WORK/$3$2.cpu")" "$(per_item_us "$WORK/$3$2.cpu" "$2")" "$(mb "$WORK/$3$2.rss")" "$(per_item_kib "$WORK/$3$2.rss" "$2")"
}
for n in $W1_SCALE; do scale_row W1 "$n" w1s; done
for n in $W2_SCALE; do scale_row W2 "$n" w2s; done
echo "(an item: a resource of W1, a repository of W2, which is one target of its set)"
echo
echo "binary: $BIN ($PROFILE); command: benches/run.sh -n $N$([ "$QUICK" = 1 ] && echo ' --quick')"
