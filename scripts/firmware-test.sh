#!/usr/bin/env bash
# Firmware checks of the test command (scripts/test-all.sh): the bare-metal
# harness, the Rust no_std firmware, link checks for Cortex-M0+ and RISC-V, the
# no-panic check of the firmware library, and a quick cost measurement.
# (The C firmware against host results runs as tests/firmware_qemu.rs.)
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n--- %s\n' "$*"; }

step "bare-metal harness self-test (QEMU mps2-an386)"
make -s -C c-examples/firmware check

step "Rust no_std firmware with an owned fixed-capacity model (QEMU mps2-an386)"
scripts/firmware-rust.sh

step "link checks: thumbv6m-none-eabi (Cortex-M0+) and riscv32imac-unknown-none-elf"
scripts/link-check.sh

step "the firmware library has no reachable panic path"
scripts/no-panic-check.sh

step "cost on the emulated Cortex-M4F (m=128, d=8, k=4)"
scripts/firmware-cost.sh --quick
