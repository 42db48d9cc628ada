#!/usr/bin/env bash
# Link check for the firmware targets that are not run in QEMU: builds the C
# static library (libkpca.a, crate kpca-staticlib) for Cortex-M0+ and RV32IMAC
# and links a minimal C firmware (firmware/link-check: main.c calls
# kpca_model_from_bytes, kpca_project, kpca_anomaly_score and kpca_status_str on
# a small embedded model) against it with --gc-sections.
#
#   scripts/link-check.sh
#
# Per target, two links, both must succeed with no undefined symbol left:
#   bare  -nostdlib: the firmware + libkpca.a + libgcc only (libkpca.a needs no C library);
#   libc  the same with the toolchain's C library (newlib-nano / picolibc) on
#         the link line, as a firmware project would link (no clashes).
# Linking is the proof; the ELFs are not run (QEMU 7.2 has no Cortex-M0+ board).
#
#   thumbv6m-none-eabi            arm-none-eabi-gcc -mcpu=cortex-m0plus -mthumb -mfloat-abi=soft
#   riscv32imac-unknown-none-elf  riscv64-unknown-elf-gcc -march=rv32imac -mabi=ilp32
#                                 (Debian gcc-riscv64-unknown-elf, picolibc-riscv64-unknown-elf)
#
# Needs both toolchains and rustup targets: `cargo xtask firmware link-check`
# installs them first (scripts/install-firmware-deps.sh --riscv, rustup target
# add). Prints one summary line per target. Outputs in build/link-check/<target>/.
set -euo pipefail
. "$(dirname "$0")/common.sh"
root=$ROOT
src=$root/firmware/link-check
out=$root/build/link-check

die() { echo "link-check: FAIL: $*" >&2; exit 1; }
step() { printf '\n=== link-check: %s\n' "$*"; }

step "dependencies"
need_tools link-check arm-none-eabi-gcc arm-none-eabi-nm arm-none-eabi-size \
    riscv64-unknown-elf-gcc riscv64-unknown-elf-nm riscv64-unknown-elf-size
targets=(thumbv6m-none-eabi riscv32imac-unknown-none-elf)
installed=$(rustup target list --installed)
for t in "${targets[@]}"; do
    if ! grep -qx "$t" <<<"$installed"; then
        echo "link-check: the rustup target $t is not installed; run \`cargo xtask deps\`" >&2
        exit 1
    fi
done
# picolibc has no binary to look for: check that its specs file is found.
if ! riscv64-unknown-elf-gcc --specs=picolibc.specs -print-file-name=picolibc.specs >/dev/null 2>&1; then
    echo "link-check: picolibc for riscv64-unknown-elf not installed; run \`cargo xtask deps\`" >&2
    exit 1
fi
arm-none-eabi-gcc --version | head -n1
riscv64-unknown-elf-gcc --version | head -n1

# Compiler flags common to both targets.
CFLAGS_COMMON=(-std=c99 -Os -Wall -Wextra -Wpedantic -Werror -Wdouble-promotion
               -ffreestanding -ffunction-sections -fdata-sections -I"$root/include")

# link_target TARGET TOOL_PREFIX "ARCH FLAGS" LINKER_SCRIPT LIBC_SPECS
link_target() {
    local t=$1 prefix=$2 arch=$3 ld=$4 libc_specs=$5
    local cc=${prefix}gcc
    local dir=$out/$t lib=$TARGET_DIR/$t/release/libkpca.a
    local -a archflags
    read -r -a archflags <<<"$arch"

    step "$t: libkpca.a"
    cargo build -q -p kpca-staticlib --release --target "$t"
    [ -f "$lib" ] || die "$lib was not built"

    step "$t: model and firmware"
    rm -rf "$dir"
    mkdir -p "$dir"
    # A small model (RBF, m=16 stored points, d=4, k=2) with host results.
    cargo xtask gen-model bench rbf 16 4 2 "$dir"
    local objs=()
    for c in "$src/main.c" "$src/startup.c" "$dir/bench_model.c"; do
        local o
        o=$dir/$(basename "${c%.c}").o
        "$cc" "${archflags[@]}" "${CFLAGS_COMMON[@]}" -I"$dir" -c -o "$o" "$c"
        objs+=("$o")
    done

    local variant elf text
    for variant in bare libc; do
        elf=$dir/link_check_$variant.elf
        local -a extra
        if [ "$variant" = bare ]; then
            extra=(-nostdlib "$lib" -lgcc)
        else
            extra=(-nostartfiles "$libc_specs" "$lib" -lc -lm -lgcc)
        fi
        "$cc" "${archflags[@]}" -T "$src/$ld" -Wl,--gc-sections -Wl,-z,noexecstack -Wl,--fatal-warnings \
            -Wl,-Map="$dir/link_check_$variant.map" -o "$elf" "${objs[@]}" "${extra[@]}" \
            || die "$t ($variant): link failed"
        # A static link fails on a strong undefined symbol; a weak one would
        # silently resolve to 0, so list every undefined symbol (nm -u).
        local undefined
        undefined=$("${prefix}nm" -u "$elf")
        [ -z "$undefined" ] || die "$t ($variant): undefined symbols in $elf:
$undefined"
        for sym in kpca_model_from_bytes kpca_project kpca_anomaly_score kpca_status_str main; do
            "${prefix}nm" "$elf" | grep -q " [Tt] $sym\$" || die "$t ($variant): $sym missing from $elf"
        done
    done
    text=$("${prefix}size" -A "$dir/link_check_bare.elf" | awk '$1==".text"{print $2}')
    local text_libc
    text_libc=$("${prefix}size" -A "$dir/link_check_libc.elf" | awk '$1==".text"{print $2}')
    summary+=("$(printf '%-29s linked  .text %6s bytes  %s %s, -nostdlib (libkpca.a + libgcc); also with %s (.text %s)' \
        "$t" "$text" "$cc" "$arch" "$libc_specs" "$text_libc")")
}

summary=()
link_target thumbv6m-none-eabi arm-none-eabi- \
    "-mcpu=cortex-m0plus -mthumb -mfloat-abi=soft" cortex-m0plus.ld --specs=nano.specs
link_target riscv32imac-unknown-none-elf riscv64-unknown-elf- \
    "-march=rv32imac -mabi=ilp32" rv32imac.ld --specs=picolibc.specs

step "summary (linked with --gc-sections, no undefined symbols; not run; .text includes rodata and the m=16 d=4 k=2 model)"
printf '%s\n' "${summary[@]}"
