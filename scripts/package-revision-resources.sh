#!/bin/sh
# package-revision-resources.sh DIR REPO PACKAGE REVISION [NAMESPACE]
#
# Writes to stdout the two objects Porch serves for a published package revision, built from a
# local package directory, so that a PackageVariant's spec.injection[].packageResource can read
# it without Porch (docs/extensions.md):
#   - a PackageRevision (spec.lifecycle: Published), which a packageResource without revision
#     floats to when it is the highest one given;
#   - its PackageRevisionResources: spec.resources maps each file of DIR (Kptfile, *.yaml,
#     *.yml; hidden files and directories left out) to its text.
# Both are annotated config.porch.kpt.dev/in-cluster: "true" (they stand for cluster objects)
# and config.kubernetes.io/local-config: "true" (kept with a package, they are never deployed).
# Example:
#   scripts/package-revision-resources.sh ../databases shared databases 3 default > in-cluster/databases.yaml
set -eu
if [ $# -lt 4 ] || [ $# -gt 5 ]; then
  echo "usage: $0 DIR REPO PACKAGE REVISION [NAMESPACE]" >&2
  exit 2
fi
dir=$1 repo=$2 package=$3 revision=$4 namespace=${5:-default}
case $revision in
  ''|*[!0-9]*) echo "$0: REVISION must be a number, got '$revision'" >&2; exit 2 ;;
esac
[ -d "$dir" ] || { echo "$0: $dir is not a directory" >&2; exit 2; }

metadata() {
  cat <<META
metadata:
  name: $repo.$package.v$revision
  namespace: $namespace
  annotations:
    config.porch.kpt.dev/in-cluster: "true"
    config.kubernetes.io/local-config: "true"
META
}

echo "apiVersion: porch.kpt.dev/v1alpha1"
echo "kind: PackageRevision"
metadata
cat <<SPEC
spec:
  repository: $repo
  packageName: $package
  revision: $revision
  lifecycle: Published
---
apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevisionResources
SPEC
metadata
cat <<SPEC
spec:
  repository: $repo
  packageName: $package
  revision: $revision
  resources:
SPEC
# Each file as a literal block scalar, its text exactly: `2` fixes the indentation (a file may
# start with spaces); `+` keeps the trailing newlines as they are, `-` says there is none.
(cd "$dir" && find . \( -name '.*' ! -name . -prune \) -o -type f \( -name Kptfile -o -name '*.yaml' -o -name '*.yml' \) -print | LC_ALL=C sort) |
while IFS= read -r f; do
  f=${f#./}
  if [ -z "$(tail -c 1 "$dir/$f")" ]; then
    printf '    "%s": |2+\n' "$f"
    sed 's/^/      /' "$dir/$f"
  else
    printf '    "%s": |2-\n' "$f"
    sed 's/^/      /' "$dir/$f"
    echo
  fi
done
