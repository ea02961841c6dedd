# Checks of a built binary that .ci/release-binary, .ci/image-targets and benches/per_call.sh
# share. Sourced, not run; the caller defines `fail MESSAGE` (its own prefix, then exit 1).

# check_hardened BIN: fails unless BIN is position-independent with full RELRO (BIND_NOW and
# a RELRO segment) (docs/design.md, "Start and allocation").
check_hardened() {
  readelf -h "$1" | grep -q 'DYN (' || fail "$1: not position-independent"
  readelf -d "$1" | grep -Eq 'BIND_NOW|FLAGS_1.*NOW' || fail "$1: no BIND_NOW (partial RELRO)"
  readelf -l "$1" | grep -q 'GNU_RELRO' || fail "$1: no RELRO segment"
}

# is_packed BIN: whether BIN's relative relocations are packed (DT_RELR).
is_packed() { readelf -d "$1" | grep '(RELR)' >/dev/null; }

# outputs IN OUT COMMAND...: COMMAND's stdout on each input file of IN into OUT/<input>, its
# exit status into OUT/<input>.status (stderr dropped).
outputs() {
  local in=$1 out=$2 input status; shift 2
  mkdir -p "$out"
  for input in "$in"/*; do
    status=0
    "$@" < "$input" > "$out/${input##*/}" 2> /dev/null || status=$?
    echo "$status" > "$out/${input##*/}.status"
  done
}

# same_outputs IN EXPECTED ACTUAL NAME WHOSE: fails at the first input of IN whose exit status
# or output in ACTUAL (NAME's, from `outputs`) is not the one in EXPECTED (WHOSE's); sets
# `compared` to the number of inputs.
same_outputs() {
  local in=$1 expected=$2 actual=$3 name=$4 whose=$5 input f want got
  compared=0
  for input in "$in"/*; do
    f=${input##*/}
    want=$(cat "$expected/$f.status"); got=$(cat "$actual/$f.status")
    [ "$got" = "$want" ] || fail "$name, $f: exit $got, $whose $want"
    cmp -s "$expected/$f" "$actual/$f" || fail "$name, $f: other output than $whose"
    compared=$((compared + 1))
  done
}
