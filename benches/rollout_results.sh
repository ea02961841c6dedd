#!/usr/bin/env bash
# One result per target (issue 42) at fleet scale: W2 with the extension's rollout (waves by
# region, a quarter per run, Ready required; W2's existing variants at an older revision, so
# the run creates, upgrades, holds back and deletes, each with a result of its own) at 1,000
# and 10,000 targets (and 100,000 without --quick). Prints, per size, the median CPU (user + system) and peak
# RSS, both per target, the number of per-target results and the output's size per target,
# then the ratio of the CPU per target at the largest size to the smallest: linear is ~1.
#
#   benches/rollout_results.sh [-n N] [--quick]
#
#   -n N      repetitions (median of N; default 5)
#   --quick   1,000 and 10,000 only, one repetition, the debug build
#
# PV_BIN=FILE runs that binary instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

N=5
QUICK=0
while [ $# -gt 0 ]; do
  case "$1" in
    -n) N=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "rollout_results.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ "$QUICK" = 1 ]; then
  N=1; SIZES="1000 10000"; PROFILE=dev; BIN=$ROOT/target/debug/package-variant
else
  SIZES="1000 10000 100000"; PROFILE=release; BIN=$ROOT/target/release/package-variant
fi
if [ -n "${PV_BIN:-}" ]; then
  BIN=$(realpath "$PV_BIN"); PROFILE="given by PV_BIN"
else
  cargo build --quiet --profile "$PROFILE" --bin package-variant
fi
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
RUSAGE=$WORK/rusage
rustc -O --edition 2021 -o "$RUSAGE" benches/support/rusage.rs
for n in $SIZES; do
  cargo bench --quiet --profile dev --bench gen -- w2-rollout "$n" "$WORK/in-$n.yaml"
done

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for ((rep = 1; rep <= N; rep++)); do
  for n in $SIZES; do
    "$RUSAGE" "$WORK/usage" "$BIN" < "$WORK/in-$n.yaml" > "$WORK/out-$n.yaml"
    awk '{ print $1 + $2 }' "$WORK/usage" >> "$WORK/$n.cpu"
    awk '{ print $3 }' "$WORK/usage" >> "$WORK/$n.rss"
  done
done

printf '| %7s | %9s | %11s | %13s | %13s | %15s |\n' targets "CPU ms" "CPU us/tgt" "RSS KiB/tgt" "results/tgt" "output B/tgt"
printf '|%s|%s|%s|%s|%s|%s|\n' "---------" "-----------" "-------------" "---------------" "---------------" "-----------------"
FIRST=""; LAST=""
for n in $SIZES; do
  cpu=$(median "$WORK/$n.cpu"); rss=$(median "$WORK/$n.rss")
  results=$(grep -c '^- message: .\{0,2\}PackageVariant \\\?"' "$WORK/out-$n.yaml" || true)
  bytes=$(stat -c %s "$WORK/out-$n.yaml")
  per=$(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.2f", c / n }')
  printf '| %7s | %9.1f | %11s | %13.2f | %13.2f | %15.0f |\n' "$n" "$(awk -v c="$cpu" 'BEGIN { print c / 1000 }')" "$per" \
    "$(awk -v r="$rss" -v n="$n" 'BEGIN { print r / n }')" "$(awk -v r="$results" -v n="$n" 'BEGIN { print r / n }')" \
    "$(awk -v b="$bytes" -v n="$n" 'BEGIN { print b / n }')"
  [ -n "$FIRST" ] || FIRST=$per
  LAST=$per
done
echo "CPU per target, largest size / smallest: $(awk -v a="$LAST" -v b="$FIRST" 'BEGIN { printf "%.2f", a / b }')x (linear: ~1)"
echo "binary: $BIN ($PROFILE); command: benches/rollout_results.sh -n $N$([ "$QUICK" = 1 ] && echo ' --quick')"
