#!/usr/bin/env bash
# apply-variant.sh PV PKG [OBJECTS...]
#
# Applies the PackageVariant in the file PV (one a PackageVariantSet emitted, say) to the
# package directory PKG in place, with the cluster objects in the files OBJECTS as the
# variant's in-cluster items: what a variant without the annotation
# package-variant.fn.kpt.dev/cluster-objects needs to inject from copies kept outside the
# package (docs/reference.md, "Objects from the cluster").
#
# Each OBJECTS file holds YAML documents separated by "---", one object each, annotated
# config.porch.kpt.dev/in-cluster: "true" (what
#   kubectl get configmaps NAME -n NS -o yaml | kubectl annotate --local -f - -o yaml config.porch.kpt.dev/in-cluster=true config.kubernetes.io/local-config=true
# writes); lines starting with "#" are left out. They join the package's items without a file
# path, so the function counts them as cluster objects and kpt never writes them; an object
# that carries kpt's file annotations (internal.config.kubernetes.io/..., config.kubernetes.io/
# path or index) is refused, as it would be written into the package.
#
# The files replaced are the ones kpt read: the paths of the package's own items, read as YAML
# from `kpt fn source PKG` (never from the cluster objects or the functionConfig). Every path,
# read or written, must stay inside PKG: an absolute path, a ".." component or a directory that
# is a symbolic link refuses the run before anything changes.
#
# The package is read with kpt fn source and run through the function binary itself (not
# kpt fn eval -, which shows "resource at path "." and index "" already exists" instead of
# the function's errors when objects without a path are among the items). On success the
# function's info and warning results are printed to stderr as kpt fn eval prints them; on a
# refusal its errors are printed, PKG is left as it was, and the script exits 1.
# Needs bash, kpt, yq (the jq wrapper for YAML: apt-get install yq, or pip install yq) and
# package-variant on PATH (PACKAGE_VARIANT names another binary).
# Example:
#   scripts/apply-variant.sh variants/packagevariants/fleet-edge1-web.yaml deployments/edge1 in-cluster.yaml
set -euo pipefail
me=$0
die() { echo "$me: $*" >&2; exit "${rc:-1}"; }
if [ $# -lt 2 ]; then
  echo "usage: $0 PV PKG [OBJECTS...]" >&2
  exit 2
fi
pv=$1 pkg=$2
shift 2
rc=2
[ -f "$pv" ] || die "$pv is not a file"
[ -d "$pkg" ] || die "$pkg is not a directory"
for f in "$@"; do
  [ -f "$f" ] || die "$f is not a file"
done
# mikefarah's yq (Go) reads other expressions than kislyuk's jq wrapper, which this script uses.
case $(yq --help 2>&1) in
  *"jq wrapper"*) ;;
  *) die "needs yq, the jq wrapper for YAML (https://github.com/kislyuk/yq: apt-get install yq or pip install yq) on PATH" ;;
esac
rc=1
bin=${PACKAGE_VARIANT:-package-variant}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The file paths of a ResourceList's items (kpt's annotation and its legacy one, both checked
# when they differ), each ended by a NUL (a file name may hold a line break); an item without
# one is skipped (a cluster object, which kpt does not write).
paths() {
  yq -j '.items[]? | .metadata.annotations // {}
    | [.["internal.config.kubernetes.io/path"], .["config.kubernetes.io/path"]]
    | map(select(. != null)) | unique | .[]
    | if type == "string" then ., "\u0000" else error("a file path that is not a string") end' "$1"
}

# Refuses a path (relative to PKG) that is empty, absolute, has a ".." component or passes
# through a symbolic link inside PKG.
check_path() {
  local path=$1 what=$2 rest prefix=""
  case $path in
    "") die "$what: an empty file path; nothing was changed" ;;
    /*) die "$what: file path '$path' is absolute; nothing was changed" ;;
  esac
  rest=$path
  while :; do
    local part=${rest%%/*}
    [ "$part" != ".." ] || die "$what: file path '$path' leaves the package; nothing was changed"
    prefix=${prefix:+$prefix/}$part
    [ ! -L "$pkg/$prefix" ] || die "$what: file path '$path' goes through the symbolic link '$prefix'; nothing was changed"
    [ "$rest" != "${rest#*/}" ] || break
    rest=${rest#*/}
  done
}

kpt fn source "$pkg" > "$work/pkg.yaml"
paths "$work/pkg.yaml" > "$work/read" || die "cannot read the items of $pkg; nothing was changed"
while IFS= read -r -d '' file; do
  check_path "$file" "$pkg"
done < "$work/read"

for f in "$@"; do
  # Only the annotations are read here; the documents reach the function as written.
  bad=$(yq -r 'select(. != null) | .metadata.annotations // {} | keys[]
      | select(startswith("internal.config.kubernetes.io/") or . == "config.kubernetes.io/path" or . == "config.kubernetes.io/index")' "$f") ||
    die "$f is not YAML kpt can read; nothing was changed"
  [ -z "$bad" ] || die "$f: a cluster object carries the file annotation '${bad%%$'\n'*}' and would be written into the package; remove it"
done

# kpt fn source writes the items last, so each object becomes one more entry of that list: a
# line "-" and the document indented below it; then the PackageVariant, as functionConfig.
cp "$work/pkg.yaml" "$work/in.yaml"
for f in "$@"; do
  awk '/^#/ { next }
       /^---/ { pending = 1; next }
       { if (!started || pending) print "-"; started = 1; pending = 0; print "  " $0 }' "$f"
done >> "$work/in.yaml"
{ echo "functionConfig:"; awk '/^---/ { next } { print "  " $0 }' "$pv"; } >> "$work/in.yaml"
if ! "$bin" < "$work/in.yaml" > "$work/out.yaml"; then
  die "the PackageVariant was refused; $pkg is unchanged"
fi
paths "$work/out.yaml" > "$work/written" || die "cannot read the function's output; $pkg is unchanged"
while IFS= read -r -d '' file; do
  check_path "$file" "the function's output"
done < "$work/written"
kpt fn sink "$work/variant" < "$work/out.yaml"
# The files kpt read replaced by what the function wrote (a file it removed goes; a file kpt
# does not read, such as one .krmignore names, stays).
while IFS= read -r -d '' file; do
  rm -f -- "$pkg/$file"
done < "$work/read"
cp -R "$work/variant/." "$pkg"
# The function's info and warning results, as kpt fn eval prints them.
yq -r '.results[]? | select(.severity == "info" or .severity == "warning")
  | (.resourceRef // {}) as $r
  | ([$r.apiVersion, $r.kind, $r.namespace, $r.name] | map(select(. != null and . != "")) | join("/")) as $id
  | "[\(.severity)]" + (if $id != "" then " " + $id else "" end)
    + (if .field.path then " " + .field.path else "" end) + ": " + .message' "$work/out.yaml" >&2
