#!/usr/bin/env bash
# The README's main job, on a fresh machine: fit a kernel PCA anomaly detector
# on the bundled BasicMotions smartwatch recordings (data/README.md), report its
# ROC AUC against the peers, export it as C, and run it on the emulated
# Cortex-M4F firmware, checking every score against the host.
set -euo pipefail
cd "$(dirname "$0")/.."
rustup target add thumbv7em-none-eabihf >/dev/null
scripts/install-firmware-deps.sh
cargo run -q --release -p kpca-cli --example demo -- --output-dir demo-out
scripts/firmware-demo.sh demo-out
