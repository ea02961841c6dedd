#!/usr/bin/env bash
# package-revisions-from-git.sh GIT REPO [NAMESPACE]
#
# Writes to stdout what a PackageVariantSet reads of a blueprint repository, as Porch would
# serve it, made from the repository's git tags (no Porch needed):
#   - the Repository REPO (config.porch.kpt.dev/v1alpha1), spec.git.repo GIT;
#   - one Published PackageRevision (porch.kpt.dev/v1alpha1) per tag PACKAGE/vN (kpt's tag
#     convention for a package in a subdirectory; N a whole number from 1, no leading zero),
#     named REPO.PACKAGE.vN ("/" in PACKAGE becomes "."), spec.revision N.
# Other tags are left out. GIT is anything `git ls-remote` reads: a path or a URL. NAMESPACE is
# the set's (default: default). Example:
#   scripts/package-revisions-from-git.sh https://git.example.com/blueprints.git blueprints > fleet/blueprints.yaml
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 GIT REPO [NAMESPACE]" >&2
  exit 2
fi
git=$1 repo=$2 namespace=${3:-default}
name_re='^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'
for v in "$repo" "$namespace"; do
  [[ $v =~ $name_re ]] || { echo "$0: '$v' is not a Kubernetes name (lower case letters, digits, '-')" >&2; exit 2; }
done
tags=$(git ls-remote --tags --refs "$git") || { echo "$0: git ls-remote cannot read $git" >&2; exit 1; }

cat <<YAML
apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: $repo
  namespace: $namespace
spec:
  type: git
  git:
    repo: '${git//\'/\'\'}'
YAML
# "HASH<tab>refs/tags/PACKAGE/vN", in package then revision order.
printf '%s\n' "$tags" | sed -n 's#^[0-9a-f]*\trefs/tags/##p' | while IFS= read -r tag; do
  package=${tag%/v*} n=${tag##*/v}
  # A package path of Kubernetes names, a revision from 1 without a leading zero.
  [[ $tag == */v* && $n =~ ^[1-9][0-9]*$ ]] || continue
  ok=1
  IFS=/ read -ra parts <<< "$package"
  for part in "${parts[@]}"; do [[ $part =~ $name_re ]] || ok=0; done
  [ "$ok" = 1 ] || continue
  printf '%s\t%s\n' "$package" "$n"
done | sort -t "$(printf '\t')" -k1,1 -k2,2n | while IFS="$(printf '\t')" read -r package n; do
  cat <<YAML
---
apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: $repo.${package//\//.}.v$n
  namespace: $namespace
spec:
  repository: $repo
  packageName: $package
  workspaceName: v$n
  revision: $n
  lifecycle: Published
YAML
done
