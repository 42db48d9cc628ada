#!/usr/bin/env bash
# The README's main job, on a fresh machine: fit a kernel PCA anomaly detector
# on the bundled BasicMotions smartwatch recordings (data/README.md), report its
# ROC AUC beside the peers' (computed here when the Python peers are installed,
# else as recorded in scripts/peers/demo_peers.json), export it as C, and run
# it on the emulated Cortex-M4F firmware, checking every score against the host.
#
#   scripts/demo.sh [OUT_DIR]     (default: kpca-demo in the current directory)
#
# Works from any directory; writes only into OUT_DIR (and cargo's target
# directory; honours CARGO_TARGET_DIR) and prints its absolute path. Installs
# the rustup target and the Debian packages of the firmware run only when they
# are missing. The first run builds the demo and the firmware (about 4 minutes
# on 2 cores, plus the packages); later runs take seconds.
set -euo pipefail
. "$(dirname "$0")/common.sh"
out=${1:-$CALLER_DIR/kpca-demo}
case "$out" in /*) ;; *) out=$CALLER_DIR/$out ;; esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
echo "demo: writing into $out"
if ! rustup target list --installed | grep -qx thumbv7em-none-eabihf; then
  rustup target add thumbv7em-none-eabihf
fi
scripts/install-firmware-deps.sh
cargo run -q --release -p kpca-cli --example demo -- --output-dir "$out" --firmware-follows
echo
scripts/firmware-demo.sh "$out"
echo
if python3 -c 'import numpy, scipy, sklearn, pyod' 2>/dev/null; then
  echo "peers: computing them now (scripts/peers/demo_peers.py, into $out/peers):"
  python3 scripts/peers/demo_peers.py --output-dir "$out/peers"
else
  echo "peers: the peers' AUCs the demo printed are as recorded in $ROOT/scripts/peers/demo_peers.json;" \
    "to compute them here: pip install -r $ROOT/scripts/peers/requirements.txt, then run this again"
fi
echo
echo "demo: done; everything it wrote is in $out (firmware run: $out/firmware, on-device fit: $out/firmware-learn)"
