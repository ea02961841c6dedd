#!/usr/bin/env bash
# Writes THIRD-PARTY-LICENSES: the licence texts of the crates linked into the shipped binary
# (the image copies the file), from the crates' sources cargo unpacked. tests/licenses.rs
# makes the file and checks it is current; this runs that test in its writing mode. Run it
# after a change to Cargo.lock, then commit the file.
#
#   scripts/third-party-licenses.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fetch --locked
UPDATE_THIRD_PARTY_LICENSES=1 cargo test --locked --test licenses -- --exact third_party_licenses_are_current
echo "THIRD-PARTY-LICENSES: $(grep -c '^-- ' THIRD-PARTY-LICENSES) licence texts, $(wc -c < THIRD-PARTY-LICENSES) bytes"
