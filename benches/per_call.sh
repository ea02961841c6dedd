#!/usr/bin/env bash
# Per call: what the function costs each time a runner starts it, and its share of what the
# runner makes a user wait for. Prints
#   1. the release binary's CPU (user + system) and wall time per call on W1 at 20 items (a
#      PackageVariant over a 20-resource package), RUNS calls;
#   2. the runners: `kpt fn eval --exec` of the README's quick start (examples/injection) and
#      `kpt fn render --allow-exec` of examples/render-pipeline (two calls of the function, each
#      counted at the first one's CPU),
#      KPT_RUNS runs each (a copy of the package each time, as the README does): the runner's
#      median wall time, the function's CPU for the calls it makes there (timed on the
#      ResourceList the runner hands it, `kpt fn source`), and that CPU as a share of the
#      runner's wall time. Target: under 1% for each runner.
#   3. a call through the image (`kpt fn eval --image`), when a container engine runs here:
#      otherwise the line says it was not measured.
#
#   benches/per_call.sh [-n RUNS] [-k KPT_RUNS] [--vs BINARY]
#
#   -n RUNS     calls of the binary, interleaved with --vs's (default 400); CPU is the mean
#   -k KPT_RUNS runs of each runner (default 20); the wall time is the median
#   --vs BIN    also time BIN (another build, e.g. an earlier commit's) per call, interleaved
#
# Needs: cargo and rustc, Linux, kpt on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=400; KPT_RUNS=20; VS=
while [ $# -gt 0 ]; do
  case "$1" in
    -n) RUNS=$2; shift 2 ;;
    -k) KPT_RUNS=$2; shift 2 ;;
    --vs) VS=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "per_call.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v kpt >/dev/null || { echo "per_call.sh: kpt is not on PATH" >&2; exit 1; }
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
fail() { echo "per_call.sh: $*" >&2; exit 1; }
. .ci/binaries.sh

cargo build --release --locked --bin package-variant
check_hardened target/release/package-variant
# Timed from a copy, as installed binaries are (`cargo install` copies the binary): a file just
# written by the linker sits in the page cache in small pieces, and mapping it costs more.
BIN=$WORK/package-variant
cp target/release/package-variant "$BIN"
BINS=("$BIN"); NAMES=("release")
if [ -n "$VS" ]; then cp "$VS" "$WORK/vs"; BINS+=("$WORK/vs"); NAMES+=("--vs $VS"); fi
rustc -O -o "$WORK/per_call" benches/support/per_call.rs
ms() { printf '%.2f' "$(echo "$1 / 1000" | bc -l)"; }

# 1. Per call.
cargo bench --quiet --profile dev --bench gen -- w1 20 "$WORK/w1-20.yaml"
"$WORK/per_call" "$RUNS" "$WORK/w1-20.yaml" "${BINS[@]}" > "$WORK/times"
echo "per call: W1 at 20 items, $(wc -c < "$WORK/w1-20.yaml") bytes, $RUNS calls of each, interleaved"
printf '  %-40s %8s %8s\n' binary "cpu ms" "wall ms"
i=0
while read -r wall cpu; do
  printf '  %-40s %8s %8s\n' "${NAMES[$i]}" "$(ms "$cpu")" "$(ms "$wall")"
  i=$((i + 1))
done < "$WORK/times"

# 2. The runners. Each runner's command is a script (the per_call helper runs a command without
# arguments); the function's CPU is timed on the ResourceList that runner hands it.
cat > "$WORK/eval.sh" <<SH
#!/bin/sh
set -e
rm -rf "$WORK/pkg" && cp -r examples/injection "$WORK/pkg"
exec kpt fn eval "$WORK/pkg" --exec "$BIN" --fn-config examples/injection/fn-config.yaml >/dev/null 2>&1
SH
# kpt resolves `exec: package-variant` on PATH: the binary timed comes first there.
mkdir "$WORK/path" && cp "$BIN" "$WORK/path/package-variant"
cat > "$WORK/render.sh" <<SH
#!/bin/sh
set -e
rm -rf "$WORK/pkg" && cp -r examples/render-pipeline "$WORK/pkg"
PATH="$WORK/path:\$PATH" exec kpt fn render "$WORK/pkg" --allow-exec >/dev/null 2>&1
SH
chmod +x "$WORK/eval.sh" "$WORK/render.sh"
kpt fn source examples/injection --fn-config examples/injection/fn-config.yaml > "$WORK/eval-input.yaml"
kpt fn source examples/render-pipeline --fn-config examples/render-pipeline/variant.yaml > "$WORK/render-input.yaml"
"$BIN" < "$WORK/eval-input.yaml" > /dev/null || fail "the quick start's input fails"
"$BIN" < "$WORK/render-input.yaml" > /dev/null || fail "render-pipeline's input fails"
: > "$WORK/empty"
echo "runners: $KPT_RUNS runs of each (median wall); the function's CPU over $RUNS calls on the runner's input"
printf '  %-46s %10s %10s %9s %7s\n' runner "wall ms" "fn calls" "fn cpu ms" share
met=1
runner() {
  local name=$1 script=$2 input=$3 calls=$4 wall fn share
  read -r wall _ < <("$WORK/per_call" "$KPT_RUNS" "$WORK/empty" "$script")
  read -r _ fn < <("$WORK/per_call" "$RUNS" "$input" "$BIN")
  share=$(echo "100 * $calls * $fn / $wall" | bc -l)
  printf '  %-46s %10s %10s %9s %6.2f%%\n' "$name" "$(ms "$wall")" "$calls" "$(ms $((calls * fn)))" "$share"
  if [ "$(echo "$share >= 1" | bc -l)" = 1 ]; then met=0; fi
}
runner "kpt fn eval --exec (quick start)" "$WORK/eval.sh" "$WORK/eval-input.yaml" 1
runner "kpt fn render (examples/render-pipeline)" "$WORK/render.sh" "$WORK/render-input.yaml" 2
# 3. Through the image.
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  echo "  kpt fn eval --image: a container engine runs here, but this script does not time it yet"
else
  echo "  kpt fn eval --image: not measured (no container engine runs on this machine)"
fi
echo "target: the function under 1% of each runner's wall time"
if [ "$met" = 1 ]; then echo "target met by each runner measured"; else echo "target NOT met by each runner measured"; fi
