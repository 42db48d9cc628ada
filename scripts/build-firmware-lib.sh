#!/usr/bin/env bash
# Builds the firmware static library for a bare-metal target and hides every
# symbol except the C API:
#
#   scripts/build-firmware-lib.sh [TARGET [FEATURES]]   (default thumbv7em-none-eabihf)
#   -> build/firmware/TARGET/libkpca.a   (build/firmware/TARGET-FEATURES/ with features;
#      FEATURES are test-only features of the kpca-staticlib crate)
#   Prints the library's absolute path. Also `cargo xtask firmware build [TARGET]`.
#
# Rust's static library carries its own copies of compiler runtime routines
# (__aeabi_memcpy*, __aeabi_memclr*, integer division, ...). Linked as they are,
# they would replace the toolchain's for the whole firmware. Here all objects are
# partially linked into one relocatable object (ld -r keeps every function in its
# own section, so --gc-sections still drops what a firmware does not call) and
# every global symbol but kpca_* is made local: the firmware's own memcpy, expf
# and division calls keep resolving to newlib/libgcc, and the library exports
# exactly the functions of include/kpca.h (checked below).
set -euo pipefail
. "$(dirname "$0")/common.sh"
target=${1:-thumbv7em-none-eabihf}
features=${2:-}
case "$target" in
  thumb*) tools=arm-none-eabi- ;;
  riscv32*) tools=riscv64-unknown-elf- ;;
  *) echo "unsupported target $target" >&2; exit 2 ;;
esac
need_tools build-firmware-lib "${tools}ld" "${tools}objcopy" "${tools}ar" "${tools}nm"
if [ -n "$features" ]; then
  cargo build -q -p kpca-staticlib --profile firmware --target "$target" --features "$features" \
    --target-dir "$TARGET_DIR/firmware-$features"
  src=$TARGET_DIR/firmware-$features/$target/firmware/libkpca.a
  out=$ROOT/build/firmware/$target-$features
else
  cargo build -q -p kpca-staticlib --profile firmware --target "$target"
  src=$TARGET_DIR/$target/firmware/libkpca.a
  out=$ROOT/build/firmware/$target
fi
mkdir -p "$out"
rm -f "$out/libkpca.a" "$out/kpca.o"
"${tools}ld" -r -z noexecstack --whole-archive "$src" -o "$out/kpca.o"
# .llvmbc/.llvmcmd: embedded bitcode of the runtime objects; concatenated by
# ld -r it is no longer valid and would trip LLVM-based binutils plugins.
"${tools}objcopy" --wildcard --keep-global-symbol='kpca_*' \
  --remove-section=.llvmbc --remove-section=.llvmcmd "$out/kpca.o"
"${tools}ar" rcs "$out/libkpca.a" "$out/kpca.o"
exported=$("${tools}nm" -g --defined-only "$out/libkpca.a" | awk 'NF==3 {print $3}' | sort)
declared=$(grep -oE '\bkpca_[a-z_]+\(' include/kpca.h | tr -d '(' | sort -u)
if [ -z "$features" ] && [ "$exported" != "$declared" ]; then
  echo "exported symbols differ from include/kpca.h:" >&2
  diff <(echo "$exported") <(echo "$declared") >&2 || true
  exit 1
fi
echo "$out/libkpca.a"
