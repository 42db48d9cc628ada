#!/usr/bin/env bash
# Runs every test of the project on a fresh machine (installs what it needs).
# This is the README's test command and what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n=== %s\n' "$*"; }

step "toolchain and packages"
rustup component add rustfmt clippy >/dev/null 2>&1 || true
rustup target add thumbv7em-none-eabihf thumbv6m-none-eabi riscv32imac-unknown-none-elf
scripts/install-firmware-deps.sh

step "format and lints"
cargo fmt --all -- --check
# Every crate of the workspace, then the static library on its own (it must
# not be built together with `std`, which brings its own panic handler).
cargo clippy --all-targets -- -D warnings
cargo clippy -p kpca-staticlib -- -D warnings

step "no_std core builds for every firmware target (no default features)"
for t in thumbv7em-none-eabihf thumbv6m-none-eabi riscv32imac-unknown-none-elf; do
  cargo build -p kpca -p kpca-capi --target "$t"
  cargo build -p kpca-staticlib --release --target "$t"
done

step "unit, integration, C and doc tests"
cargo test

step "firmware on the emulated Cortex-M4F and link checks"
scripts/firmware-test.sh

step "hostile input: C tests under ASan/UBSan, Miri, fuzz smoke run"
scripts/c-sanitize.sh
scripts/miri.sh
scripts/fuzz-smoke.sh
