#!/usr/bin/env bash
# The README's main job, on a fresh machine: fit a kernel PCA anomaly detector
# on the bundled BasicMotions smartwatch recordings (data/README.md), report its
# ROC AUC against the peers, export it as C, and run it on the emulated
# Cortex-M4F firmware, checking every score against the host.
#
#   scripts/demo.sh [OUT_DIR]     (default demo-out at the repository root)
#
# Works from any directory and honours CARGO_TARGET_DIR; installs the rustup
# target and the Debian packages of the firmware run only when they are missing.
set -euo pipefail
. "$(dirname "$0")/common.sh"
out=${1:-$ROOT/demo-out}
case "$out" in /*) ;; *) out=$CALLER_DIR/$out ;; esac
if ! rustup target list --installed | grep -qx thumbv7em-none-eabihf; then
  rustup target add thumbv7em-none-eabihf
fi
scripts/install-firmware-deps.sh
cargo run -q --release -p kpca-cli --example demo -- --output-dir "$out"
scripts/firmware-demo.sh "$out"
