#!/bin/sh
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
# path, so the function counts them as cluster objects and kpt never writes them.
#
# The package is read with kpt fn source and run through the function binary itself (not
# kpt fn eval -, which shows "resource at path "." and index "" already exists" instead of
# the function's errors when objects without a path are among the items). On a refusal the
# function's errors are printed, PKG is left as it was, and the script exits 1.
# Needs kpt and package-variant on PATH (PACKAGE_VARIANT names another binary).
# Example:
#   scripts/apply-variant.sh variants/packagevariants/fleet-edge1-web.yaml deployments/edge1 in-cluster.yaml
set -eu
if [ $# -lt 2 ]; then
  echo "usage: $0 PV PKG [OBJECTS...]" >&2
  exit 2
fi
pv=$1 pkg=$2
shift 2
[ -f "$pv" ] || { echo "$0: $pv is not a file" >&2; exit 2; }
[ -d "$pkg" ] || { echo "$0: $pkg is not a directory" >&2; exit 2; }
for f in "$@"; do
  [ -f "$f" ] || { echo "$0: $f is not a file" >&2; exit 2; }
done
bin=${PACKAGE_VARIANT:-package-variant}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# kpt fn source writes the items last, so each object becomes one more entry of that list: a
# line "-" and the document indented below it; then the PackageVariant, as functionConfig.
kpt fn source "$pkg" > "$work/in.yaml"
for f in "$@"; do
  awk '/^#/ { next }
       /^---/ { pending = 1; next }
       { if (!started || pending) print "-"; started = 1; pending = 0; print "  " $0 }' "$f"
done >> "$work/in.yaml"
{ echo "functionConfig:"; awk '/^---/ { next } { print "  " $0 }' "$pv"; } >> "$work/in.yaml"
if ! "$bin" < "$work/in.yaml" > "$work/out.yaml"; then
  echo "$0: the PackageVariant was refused; $pkg is unchanged" >&2
  exit 1
fi
kpt fn sink "$work/variant" < "$work/out.yaml"
# The files kpt read replaced by what the function wrote (a file it removed goes; a file kpt
# does not read, such as one .krmignore names, stays).
sed -n "s/^ *internal.config.kubernetes.io\/path: '\(.*\)'$/\1/p" "$work/in.yaml" | sort -u |
  while IFS= read -r file; do rm -f "$pkg/$file"; done
cp -R "$work/variant/." "$pkg"
