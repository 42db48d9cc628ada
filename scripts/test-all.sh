#!/usr/bin/env bash
# Runs every test of the project on a fresh machine (installs what it needs).
# This is the README's test command and what CI runs (.ci/run).
#
#   scripts/test-all.sh [STEP...] [--skip STEP]...
#
# The steps, their order and what each runs are in xtask/src/test.rs
# (`cargo xtask test --list`): deps lint no-std unit examples firmware sanitize
# miri fuzz. The first (deps) installs the rustup components and targets and the
# Debian packages (scripts/install-firmware-deps.sh --riscv --plugin); the nightly
# toolchain, Miri and cargo-fuzz are installed by their steps. Nothing is
# skipped unless asked for with --skip, and the summary says so. Ends with
# `test: N passed, N failed` (steps).
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo xtask test "$@"
