#!/usr/bin/env bash
# Two binaries side by side, interleaved on the same inputs (issue 43: untouched items at
# copying speed): `cat` of W1, then OLD and NEW on W1 at 1k, 10k, 40k and 160k resources, W2 at
# 10k repositories, examples/pvs-fleet and W3 (20 resources, one call). Prints the medians of
# CPU (user + system) and wall clock, peak RSS, NEW against OLD, W1 against `cat`, and W1's
# peak RSS against its input, whole and less W3's (the program's own).
#
#   benches/side_by_side.sh OLD NEW [-n N] [--keep DIR]
#
#   OLD, NEW  release binaries (e.g. one built from main, one from this tree)
#   -n N      repetitions (median of N; default 5)
#   --keep D  write the workloads to D and keep them (default: a temporary dir)
#
# Needs cargo (workloads from benches/gen.rs), kpt (the pvs-fleet input) and Linux.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n '2,14p' "$0"; exit 2; }
OLD=$(realpath "$1"); NEW=$(realpath "$2"); shift 2
N=5; KEEP=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n) N=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    *) echo "side_by_side.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
WORK=${KEEP:-$(mktemp -d)}
mkdir -p "$WORK"
[ -n "$KEEP" ] || trap 'rm -rf "$WORK"' EXIT
RUSAGE=$WORK/rusage
rustc -O --edition 2021 -o "$RUSAGE" benches/support/rusage.rs
gen() { cargo bench --quiet --profile dev --bench gen -- "$@"; }
W1_SIZES="1000 10000 40000 160000"
for n in $W1_SIZES; do [ -f "$WORK/w1-$n.yaml" ] || gen w1 "$n" "$WORK/w1-$n.yaml"; done
[ -f "$WORK/w2-10000.yaml" ] || gen w2 10000 "$WORK/w2-10000.yaml"
[ -f "$WORK/w3.yaml" ] || gen w3 "$WORK/w3.yaml"
[ -f "$WORK/fleet.yaml" ] \
  || kpt fn source examples/pvs-fleet --fn-config examples/pvs-fleet/.expected/fn-config.yaml \
    > "$WORK/fleet.yaml"
INPUTS="w1-1000 w1-10000 w1-40000 w1-160000 w2-10000 fleet w3"

# run NAME INPUT CMD...: CPU us, wall us and peak RSS KB of one run, appended to NAME.*.
run() {
  local name=$1 input=$2; shift 2
  local t0=$EPOCHREALTIME
  "$RUSAGE" "$WORK/usage" "$@" < "$input" > "$WORK/$name.out" 2> /dev/null || true
  local t1=$EPOCHREALTIME
  echo $(( ${t1/./} - ${t0/./} )) >> "$WORK/$name.us"
  awk '{ print $1 + $2 }' "$WORK/usage" >> "$WORK/$name.cpu"
  awk '{ print $3 }' "$WORK/usage" >> "$WORK/$name.rss"
}
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

rm -f "$WORK"/*.us "$WORK"/*.cpu "$WORK"/*.rss
for ((rep = 1; rep <= N; rep++)); do
  run cat "$WORK/w1-10000.yaml" cat
  for i in $INPUTS; do
    run "old-$i" "$WORK/$i.yaml" "$OLD"
    run "new-$i" "$WORK/$i.yaml" "$NEW"
  done
done
for i in $INPUTS; do
  cmp -s "$WORK/old-$i.out" "$WORK/new-$i.out" || echo "WARNING: $i: the outputs differ"
done

echo "## Side by side ($(date -u +%Y-%m-%d), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), median of $N)"
echo
printf '| %-10s | %9s | %9s | %9s | %9s | %9s | %9s | %9s | %9s |\n' input "input MB" "old CPU" "new CPU" "new/old" "old wall" "new wall" "old RSS" "new RSS"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' ------------ ----------- ----------- ----------- ----------- ----------- ----------- ----------- -----------
for i in $INPUTS; do
  awk -v name="$i" -v b="$(stat -c %s "$WORK/$i.yaml")" \
    -v oc="$(median "$WORK/old-$i.cpu")" -v nc="$(median "$WORK/new-$i.cpu")" \
    -v ow="$(median "$WORK/old-$i.us")" -v nw="$(median "$WORK/new-$i.us")" \
    -v orss="$(median "$WORK/old-$i.rss")" -v nrss="$(median "$WORK/new-$i.rss")" 'BEGIN {
      printf "| %-10s | %9.2f | %7.1fms | %7.1fms | %8.2fx | %7.1fms | %7.1fms | %7.1fMB | %7.1fMB |\n",
        name, b / 1048576, oc / 1000, nc / 1000, nc / oc, ow / 1000, nw / 1000, orss / 1024, nrss / 1024 }'
done
echo
awk -v c="$(median "$WORK/cat.us")" -v cc="$(median "$WORK/cat.cpu")" \
  -v o="$(median "$WORK/old-w1-10000.us")" -v n="$(median "$WORK/new-w1-10000.us")" \
  -v b="$(stat -c %s "$WORK/w1-10000.yaml")" -v nrss="$(median "$WORK/new-w1-10000.rss")" 'BEGIN {
    printf "cat of W1 10k: %.2f ms wall (%.2f ms CPU); W1 10k against cat (wall): old %.1fx, new %.1fx\n", c / 1000, cc / 1000, o / c, n / c
    printf "W1 10k peak RSS against its input: new %.2fx\n", nrss * 1024 / b }'
# A run's own peak (the program's code and libraries, mapped from the page cache) is W3's: what
# a W1 run holds beyond it grows with the input.
w3rss=$(median "$WORK/new-w3.rss")
for n in $W1_SIZES; do
  awk -v n="$n" -v b="$(stat -c %s "$WORK/w1-$n.yaml")" -v rss="$(median "$WORK/new-w1-$n.rss")" \
    -v w3="$w3rss" 'BEGIN {
      printf "W1 %s peak RSS against its input (new): %.2fx; less the peak of W3 (%.1f MiB): %.2fx\n",
        n, rss * 1024 / b, w3 / 1024, (rss - w3) * 1024 / b }'
done
awk -v a="$(median "$WORK/new-w1-10000.cpu")" -v b="$(median "$WORK/new-w1-160000.cpu")" 'BEGIN {
  printf "W1 160k against 16 x W1 10k (CPU, new): %.2f (1.00 is linear)\n", b / (16 * a) }'
echo "command: benches/side_by_side.sh OLD NEW -n $N"
