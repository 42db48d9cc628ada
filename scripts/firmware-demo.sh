#!/usr/bin/env bash
# The firmware half of the README's main job: runs the model written by
# The demo (crates/kpca-cli/examples/demo.rs) on the emulated Cortex-M4F (C firmware + libkpca.a under QEMU
# mps2-an386) and checks every coordinate and score against the host's.
#
#   scripts/firmware-demo.sh [DEMO_DIR]      (default demo-out)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-demo-out}
# Host and firmware run the same f32 code; 1e-5 of each column's scale.
REL_TOL=1e-5
"$root/scripts/install-firmware-deps.sh" >/dev/null
rustup target add thumbv7em-none-eabihf >/dev/null 2>&1 || true
"$root/scripts/firmware-run.sh" "$dir/demo_model.kpca" "$dir/test_vectors.csv" "$dir/firmware"
echo "firmware vs host (expected_scores.csv):"
"$root/scripts/compare-scores.sh" "$dir/firmware/firmware_scores.csv" "$dir/expected_scores.csv" "$REL_TOL"
