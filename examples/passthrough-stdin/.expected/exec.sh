#!/usr/bin/env bash
# The stdin route: kpt fn source reads the package into a ResourceList, the function reads it
# on stdin and writes its output on stdout, and nothing on disk changes until kpt fn sink writes
# the result into a new directory. kpt's test runner runs this script in a copy of the package;
# so that the expected diff shows what changed, the copy's resource files are then replaced by
# what sink wrote.
set -euo pipefail
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
kpt fn source . \
  | kpt fn eval - --exec package-variant --fn-config .expected/fn-config.yaml \
  | kpt fn sink "$out/variant"
find . \( -name .expected -o -name .git \) -prune -o -type f \( -name Kptfile -o -name '*.yaml' \) ! -name fn-config.yaml -exec rm {} +
cp -R "$out/variant/." .
