#!/usr/bin/env bash
# The Rust firmware (firmware/rust-m4f) on the emulated Cortex-M4F: QEMU
# mps2-an386 with semihosting. It uses the kpca crate directly (no_std, owned
# fixed-capacity models) and checks its results against the host's.
#
#   scripts/firmware-rust.sh [KERNEL M D K]      (default: rbf 32 8 4)
#
# 1. generates the model blob, test vectors and the host's f32 results into
#    firmware/rust-m4f/generated/ (`cargo xtask gen-model rust-fw`, gitignored);
# 2. builds the firmware (release) and prints its section sizes;
# 3. runs it under `timeout` in QEMU; fails unless the firmware exits with 0
#    (every coordinate and score within 1e-5 of its component's scale).
# Needs arm-none-eabi-gcc's binutils, qemu-system-arm and the rustup target:
# `cargo xtask firmware rust [KERNEL M D K]` installs them first.
set -euo pipefail
. "$(dirname "$0")/common.sh"
root=$ROOT
fw=$root/firmware/rust-m4f
target=thumbv7em-none-eabihf
QEMU_TIMEOUT=${QEMU_TIMEOUT:-60}

kernel=${1:-rbf}
m=${2:-32}
d=${3:-8}
k=${4:-4}

step() { printf '\n=== firmware-rust: %s\n' "$*"; }

need_tools firmware-rust arm-none-eabi-size qemu-system-arm
if ! rustup target list --installed | grep -qx "$target"; then
    echo "firmware-rust: the rustup target $target is not installed; run \`cargo xtask deps\`" >&2
    exit 1
fi

step "generate model ($kernel, m=$m d=$d k=$k) into firmware/rust-m4f/generated"
rm -rf "$fw/generated"
cargo xtask gen-model rust-fw "$kernel" "$m" "$d" "$k" "$fw/generated"

step "build firmware/rust-m4f (release, $target)"
# Cargo reads firmware/rust-m4f/.cargo/config.toml (target, -Tlink.x, runner)
# only when started from that directory, hence the cd.
json=$(cd "$fw" && cargo build --release --manifest-path "$fw/Cargo.toml" \
    --message-format=json-render-diagnostics)
elf=$(printf '%s\n' "$json" | grep '"reason":"compiler-artifact"' \
    | grep '"name":"kpca-fw-m4f"' \
    | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n1)
if [ -z "$elf" ] || [ ! -f "$elf" ]; then
    echo "firmware-rust: could not find the firmware ELF in cargo's output" >&2
    exit 1
fi
echo "ELF: ${elf#"$root"/}"
arm-none-eabi-size -A "$elf" | awk '$1 ~ /^\.(vector_table|text|rodata|data|bss)$/ {print "  " $1, $2}'
text=$(arm-none-eabi-size -A "$elf" | awk '$1==".text"{print $2}')
flash=$(arm-none-eabi-size -A "$elf" | awk '$1==".vector_table"||$1==".text"||$1==".rodata"||$1==".data"{s+=$2} END{print s}')

step "run in QEMU mps2-an386 (timeout ${QEMU_TIMEOUT}s)"
status=0
timeout "$QEMU_TIMEOUT" qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic \
    -semihosting-config enable=on,target=native -kernel "$elf" </dev/null || status=$?
echo
if [ "$status" -ne 0 ]; then
    if [ "$status" -eq 124 ]; then
        echo "firmware-rust: FAIL: QEMU timed out after ${QEMU_TIMEOUT}s" >&2
    else
        echo "firmware-rust: FAIL: firmware exit status $status" >&2
    fi
    exit 1
fi
echo "firmware-rust: PASS ($kernel m=$m d=$d k=$k): exit status 0, .text $text bytes, flash $flash bytes (vector table + text + rodata + data)"
