#!/usr/bin/env bash
# mark-ready.sh PV PKG [KEY]
#
# The deploy step's half of readiness without a controller: once the package PKG (a downstream
# package scripts/apply-fleet.sh wrote) runs on its cluster and passed its checks, write on the
# PackageVariant in the file PV the annotation KEY (default fleet.example.com/ready-revision)
# with the blueprint revision PKG is on, read from its Kptfile (upstream.git.ref
# PACKAGE/vN gives N). A set's spec.rollout.readyExpr compares it with the variant's
# spec.upstream.revision (docs/fleet-without-porch.md): keyed to the revision, an annotation
# written for revision 1 says nothing about revision 2, although it survives the upgrade.
# The file is rewritten by yq (the jq wrapper for YAML), one PackageVariant in it. Example:
#   scripts/mark-ready.sh fleet/packagevariants/edge-edge-east-base.yaml ../deployments/edge-east/base
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 PV PKG [KEY]" >&2
  exit 2
fi
pv=$1 pkg=$2 key=${3:-fleet.example.com/ready-revision}
[ -f "$pv" ] || { echo "$0: $pv is not a file" >&2; exit 2; }
[ -f "$pkg/Kptfile" ] || { echo "$0: $pkg has no Kptfile" >&2; exit 2; }
case $(yq --help 2>&1) in
  *"jq wrapper"*) ;;
  *) echo "$0: needs yq, the jq wrapper for YAML (apt-get install yq or pip install yq) on PATH" >&2; exit 2 ;;
esac
ref=$(yq -r '.upstream.git.ref // ""' "$pkg/Kptfile")
revision=${ref##*/v}
if [[ $ref != */v* || ! $revision =~ ^[1-9][0-9]*$ ]]; then
  echo "$0: $pkg/Kptfile: upstream.git.ref '$ref' is not a tag PACKAGE/vN" >&2
  exit 1
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
yq -y --indentless-lists --arg key "$key" --arg rev "$revision" '
  if .kind != "PackageVariant" then error("not a PackageVariant") else . end
  | .metadata.annotations = ((.metadata.annotations // {}) + {($key): $rev})' "$pv" > "$tmp"
[ "$(yq -s 'length' "$pv")" = 1 ] || { echo "$0: $pv holds more than one document" >&2; exit 1; }
cat "$tmp" > "$pv"
echo "$pv: $key: \"$revision\"" >&2
