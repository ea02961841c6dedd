#!/usr/bin/env bash
# Config injection through stdin: the cluster's objects (.expected/in-cluster.yaml, as
# `kubectl get ... -o yaml | kubectl annotate --local -f - -o yaml
# config.porch.kpt.dev/in-cluster=true config.kubernetes.io/local-config=true` writes them) join the package's items on the way to the
# function. kpt fn source writes the items last, so each document becomes one more entry of
# that list: a line "-" and the document indented below it. Objects without a path are
# context, not package: kpt fn sink does not write them.
#
# kpt's test runner runs this script in a copy of the package; so that the expected diff shows
# what changed, the copy's resource files are then replaced by what sink wrote.
set -euo pipefail
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
{
  kpt fn source .
  echo "-"
  sed -e '/^#/d' -e 's/^---$/-/' -e '/^-$/!s/^/  /' .expected/in-cluster.yaml
} | kpt fn eval - --exec package-variant --fn-config .expected/fn-config.yaml \
  | kpt fn sink "$out/variant"
find . \( -name .expected -o -name .git \) -prune -o -type f \( -name Kptfile -o -name '*.yaml' \) ! -name fn-config.yaml -exec rm {} +
cp -R "$out/variant/." .
