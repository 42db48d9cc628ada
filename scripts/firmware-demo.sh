#!/usr/bin/env bash
# The firmware half of the README's main job: runs the model written by
# The demo (crates/kpca-cli/examples/demo.rs) on the emulated Cortex-M4F (C firmware + libkpca.a under QEMU
# mps2-an386) and checks every coordinate and score against the host's.
#
#   scripts/firmware-demo.sh [DEMO_DIR]      (default kpca-demo in the current directory, as scripts/demo.sh)
set -euo pipefail
. "$(dirname "$0")/common.sh"
root=$ROOT
dir=${1:-$CALLER_DIR/kpca-demo}
case "$dir" in /*) ;; *) dir=$CALLER_DIR/$dir ;; esac
# Host and firmware run the same f32 code; 1e-5 of each column's scale.
REL_TOL=1e-5
"$root/scripts/install-firmware-deps.sh" >/dev/null
rustup target list --installed | grep -qx thumbv7em-none-eabihf || rustup target add thumbv7em-none-eabihf
"$root/scripts/firmware-run.sh" "$dir/demo_model.kpca" "$dir/test_vectors.csv" "$dir/firmware"
echo "firmware vs host (expected_scores.csv):"
"$root/scripts/compare-scores.sh" "$dir/firmware/firmware_scores.csv" "$dir/expected_scores.csv" "$REL_TOL"
echo "on-device learning: the firmware fits the same model to train_vectors.csv (kpca_fit) and scores the test windows:"
"$root/scripts/firmware-learn.sh" "$dir" "$dir/firmware-learn"
