#!/usr/bin/env bash
# The per-call floor: Porch starts one process per call, and most packages are small. Times a
# call of the release binary on a 20-resource ResourceList (W1 at 20 items: a PackageVariant
# over a package) against a tiny Rust program that reads stdin and writes it to stdout, and
# prints the ratios. Target: at most 1.5x the read-and-write program built the default way
# (`rustc -O`, dynamic glibc), for every shipped binary timed; the ratio to the read-and-write program
# built the same way as each binary is printed beside it. The release binary is static-pie
# on x86_64 glibc (build.rs), so a read-and-write program linked statically is timed too.
#
#   benches/per_call.sh [-n RUNS] [--dynamic] [--musl] [--no-pie]
#
#   -n RUNS    runs of each program, interleaved (default 200); the wall clock is the median
#   --dynamic  also the release binary linked dynamically against glibc, position-independent
#              (PACKAGE_VARIANT_STATIC=0: a second release build, in target/dynamic), as
#              before it was static
#   --musl     also the image's binary: the Dockerfile's x86_64 musl build (static-pie,
#              rust-lld), and the read-and-write program built the same way
#   --no-pie   also the release binary linked dynamically at a fixed address, as before issue
#              30 (a second release build, in target/no-pie): what position independence cost
#
# Needs: cargo and rustc, Linux; --musl needs the x86_64-unknown-linux-musl target.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=200; MUSL=0; NOPIE=0; DYNAMIC=0; MUSL_REF=; STATIC_REF=
while [ $# -gt 0 ]; do
  case "$1" in
    -n) RUNS=$2; shift 2 ;;
    --musl) MUSL=1; shift ;;
    --no-pie) NOPIE=1; shift ;;
    --dynamic) DYNAMIC=1; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "per_call.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT

cargo build --release --locked --bin package-variant
# Shipped binaries are position-independent with full RELRO and packed relocations.
fail() { echo "per_call.sh: $*" >&2; exit 1; }
. .ci/binaries.sh
is_static() { ! readelf -l "$1" | grep -q INTERP; }
check_hardened target/release/package-variant
RELEASE_STATIC=0; is_static target/release/package-variant && RELEASE_STATIC=1
BINS=(target/release/package-variant)
if [ "$RELEASE_STATIC" = 1 ]; then NAMES=("release (glibc, static-pie)"); else NAMES=("release (glibc, PIE)"); fi
cat > "$WORK/read_write.rs" <<'RS'
use std::io::{Read, Write};
fn main() {
    let mut buf = Vec::new();
    std::io::stdin().read_to_end(&mut buf).unwrap();
    std::io::stdout().write_all(&buf).unwrap();
}
RS
rustc -C opt-level=3 -C panic=abort -o "$WORK/read_write" "$WORK/read_write.rs"
BINS+=("$WORK/read_write"); NAMES+=("read-and-write (glibc)")
if [ "$RELEASE_STATIC" = 1 ]; then
  rustc -C opt-level=3 -C panic=abort -C target-feature=+crt-static \
    -o "$WORK/read_write_static" "$WORK/read_write.rs"
  STATIC_REF=${#BINS[@]}
  BINS+=("$WORK/read_write_static"); NAMES+=("read-and-write (glibc, static)")
fi

if [ "$DYNAMIC" = 1 ]; then
  CARGO_TARGET_DIR=target/dynamic PACKAGE_VARIANT_STATIC=0 \
    cargo build --release --locked --bin package-variant
  check_hardened target/dynamic/release/package-variant
  BINS+=(target/dynamic/release/package-variant); NAMES+=("release (glibc, dynamic PIE)")
fi
if [ "$NOPIE" = 1 ]; then
  CARGO_TARGET_DIR=target/no-pie PACKAGE_VARIANT_NO_PIE=1 \
    cargo build --release --locked --bin package-variant
  BINS+=(target/no-pie/release/package-variant); NAMES+=("release (glibc, fixed)")
fi
if [ "$MUSL" = 1 ]; then
  # As the Dockerfile's build stage and .ci/image-targets build it.
  CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_LINKER=rust-lld \
    RUSTFLAGS="-C target-feature=+crt-static" \
    CARGO_TARGET_DIR=target/image \
    cargo build --release --locked --bin package-variant --target x86_64-unknown-linux-musl
  BINS+=(target/image/x86_64-unknown-linux-musl/release/package-variant); NAMES+=("image (musl, static)")
  check_hardened target/image/x86_64-unknown-linux-musl/release/package-variant
  rustc -C opt-level=3 -C panic=abort --target x86_64-unknown-linux-musl -C linker=rust-lld \
    -C target-feature=+crt-static \
    -o "$WORK/read_write_musl" "$WORK/read_write.rs"
  MUSL_REF=${#BINS[@]}
  BINS+=("$WORK/read_write_musl"); NAMES+=("read-and-write (musl)")
fi

# Each program timed from a copy, as installed ones are (`cargo install` copies the binary,
# an image's layers are unpacked): a file just written by the linker sits in the page cache in
# small pieces, and mapping it at every start cost the release binary ~0.5 ms more per call.
for i in "${!BINS[@]}"; do
  cp "${BINS[$i]}" "$WORK/bin$i"; BINS[$i]="$WORK/bin$i"
done
cargo bench --quiet --profile dev --bench gen -- w1 20 "$WORK/w1-20.yaml"
rustc -O -o "$WORK/per_call" benches/support/per_call.rs
for b in "${BINS[@]}"; do
  "$b" < "$WORK/w1-20.yaml" > /dev/null || { echo "per_call.sh: $b fails on the input" >&2; exit 1; }
  case "$b" in "$WORK/bin1"|"$WORK/bin$STATIC_REF"|"$WORK/bin$MUSL_REF") continue ;; esac
  # CEL's time-zone functions still work in a binary linked at a fixed address.
  "$b" < benches/support/time_zone.yaml > "$WORK/tz.out"
  grep -q 'hours-ny: "5"' "$WORK/tz.out" && grep -q 'hours-tokyo: "19"' "$WORK/tz.out" \
    || { echo "per_call.sh: $b: CEL time zones are wrong" >&2; exit 1; }
done
echo "CEL time zones (America/New_York, Asia/Tokyo) right in every binary timed"
echo "input: W1 at 20 items, $(wc -c < "$WORK/w1-20.yaml") bytes; $RUNS runs of each, interleaved"
"$WORK/per_call" "$RUNS" "$WORK/w1-20.yaml" "${BINS[@]}" > "$WORK/times"

mapfile -t T < "$WORK/times"
# Each binary against the issue's reference, the read-and-write program built the default way
# (dynamic glibc: what `cargo build --release` gives), and against the one built the same way.
ref_of() { case "${NAMES[$1]}" in *musl*) echo "$MUSL_REF" ;; *static-pie\)) echo "$STATIC_REF" ;; *) echo 1 ;; esac; }
ratio() { echo "$1/$2" | bc -l; }
read -r dw dc <<< "${T[1]}"
printf '%-28s %8s %8s %14s %14s %16s\n' program "wall ms" "cpu ms" "cpu / default" "wall / default" "cpu / same build"
met=1
for i in "${!BINS[@]}"; do
  read -r w c <<< "${T[$i]}"
  case "${NAMES[$i]}" in
    read-and-write*)
      printf '%-28s %8.2f %8.2f\n' "${NAMES[$i]}" "$(ratio "$w" 1000)" "$(ratio "$c" 1000)" ;;
    *)
      read -r _ sc <<< "${T[$(ref_of "$i")]}"
      printf '%-28s %8.2f %8.2f %13.2fx %13.2fx %15.2fx\n' "${NAMES[$i]}" "$(ratio "$w" 1000)" \
        "$(ratio "$c" 1000)" "$(ratio "$c" "$dc")" "$(ratio "$w" "$dw")" "$(ratio "$c" "$sc")"
      # The comparison builds (--dynamic, --no-pie) are printed, not judged: not shipped.
      case "${NAMES[$i]}" in *dynamic*|*fixed*) ;; *)
        if [ "$(echo "$c > 1.5 * $dc" | bc -l)" = 1 ]; then met=0; fi ;;
      esac ;;
  esac
done
echo "target: at most 1.50x the read-and-write program built the default way (cpu / default)"
if [ "$met" = 1 ]; then echo "target met by every shipped binary timed"; else echo "target NOT met by every shipped binary timed"; fi
