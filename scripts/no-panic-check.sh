#!/usr/bin/env bash
# Fails if any panic machinery is reachable from the C API in the firmware
# library: links c-examples/firmware/all_calls.c (every function of kpca.h)
# against the thumbv7em-none-eabihf libkpca.a with --gc-sections and looks for
# core::panicking and the library's panic handler in the final ELF. A change
# that introduces a reachable panic (an unwrap, a panicking index, an overflow
# check) keeps those symbols alive and fails here. Also `cargo xtask firmware no-panic`.
set -euo pipefail
. "$(dirname "$0")/common.sh"
need_tools no-panic-check arm-none-eabi-gcc arm-none-eabi-nm arm-none-eabi-size
out=build/no-panic
mkdir -p "$out"
fw=c-examples/firmware
ARCH="-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard"
link() { # output.elf libkpca.a [extra cflags]
  arm-none-eabi-gcc $ARCH -O2 -std=c99 -Wall -Wextra -Wpedantic -Werror -ffunction-sections -fdata-sections \
    -Iinclude -I"$fw" ${3:-} -nostartfiles --specs=nano.specs -T "$fw/mps2_an386.ld" \
    -Wl,--gc-sections -Wl,--no-warn-execstack -o "$1" \
    "$fw/all_calls.c" "$fw/startup.c" "$fw/semihost.c" "$fw/stack.c" "$2" -lm
}
pattern='panicking|panic_fmt|panic_bounds|panic_const|rust_begin_unwind|on_panic|unwrap_failed|expect_failed|slice_index|slice_end_index|slice_start_index'

# Control: the same library plus one entry point with a reachable panic
# (feature panic-probe) must be caught, or the check proves nothing.
probe_lib=$(scripts/build-firmware-lib.sh thumbv7em-none-eabihf panic-probe)
link "$out/all_calls_probe.elf" "$probe_lib" -DKPCA_PANIC_PROBE
probe_syms=$(arm-none-eabi-nm -C "$out/all_calls_probe.elf")
if ! grep -Eq "$pattern" <<<"$probe_syms"; then
  echo "no-panic check: the control with a reachable panic was not detected" >&2
  exit 1
fi

# Both builds of the library: the fast one and the size-first one.
for build in "" size; do
  lib=$(scripts/build-firmware-lib.sh thumbv7em-none-eabihf $build)
  elf=$out/all_calls${build:+-$build}.elf
  link "$elf" "$lib"
  elf_syms=$(arm-none-eabi-nm -C "$elf")
  if grep -E "$pattern" <<<"$elf_syms"; then
    echo "no-panic check FAILED (${build:-fast} build): panic machinery is reachable from the C API (symbols above)" >&2
    exit 1
  fi
  echo "no-panic check (${build:-fast} build): every C API function linked ($(arm-none-eabi-size "$elf" | awk 'NR==2{print $1}') B text), no panic symbol reachable"
done
echo "no-panic check: the control with one panicking entry point was caught"
