#!/usr/bin/env bash
# The fleet, end to end under kpt (README.md says the same step by step).
#
# 1. The set, from the fleet package's own Kptfile pipeline: kpt fn render runs
#    package-variant with pvs.yaml over the namespace's Repositories and the upstream
#    PackageRevision, and writes one PackageVariant per production Repository to
#    fleet/packagevariants/.
# 2. Each PackageVariant on its own package (the lifecycle example's loop): a copy of the
#    blueprint under deployments/, and kpt fn eval with the variant. The cluster's copies
#    (in-cluster/: the endpoints, and the shared/databases package revision) come through
#    stdin, appended to kpt fn source's items; items without a path are never written by
#    kpt fn sink.
#
# kpt's test runner runs this script twice in a copy of the example: the second run renders
# the set on its own output and applies each variant again to its package, and must change
# nothing.
set -euo pipefail
kpt fn render fleet --allow-exec
mkdir -p deployments
for pv in fleet/packagevariants/*.yaml; do
  pkg=deployments/$(basename "$pv" .yaml)
  [ -d "$pkg" ] || cp -R blueprint/web "$pkg"
  {
    kpt fn source "$pkg"
    for f in in-cluster/*.yaml; do
      echo "-"
      sed -e '/^#/d' -e 's/^---$/-/' -e '/^-$/!s/^/  /' "$f"
    done
  } | kpt fn eval - --exec package-variant --fn-config "$pv" | kpt fn sink "$pkg.out"
  cp -R "$pkg.out/." "$pkg" && rm -rf "$pkg.out"
done
