#!/usr/bin/env bash
# Builds libkpca.a for one target and hides every symbol except the C API:
#
#   scripts/build-firmware-lib.sh [--out DIR] [TARGET [FEATURES]]
#
#   TARGET    thumbv6m-none-eabi, thumbv7m-none-eabi, thumbv7em-none-eabi,
#             thumbv7em-none-eabihf (default), thumbv8m.main-none-eabihf,
#             riscv32imac-unknown-none-elf, or `host` (this machine's triple;
#             Linux hosts, GNU binutils)
#   FEATURES  features of the kpca-staticlib crate: `size` (the size-first
#             build, docs/COST.md) or test-only ones (output in
#             build/firmware/TARGET-FEATURES/)
#   --out DIR where to put libkpca.a (default build/firmware/TARGET)
#   Prints the library's absolute path. Also `cargo xtask firmware build [TARGET]`;
#   `cargo xtask release` runs it for every target.
#
# Rust's static library carries its own copies of compiler runtime routines
# (__aeabi_memcpy*, __aeabi_memclr*, integer division, ...; on the host
# __udivti3 and friends). Linked as they are, they would replace the
# toolchain's for the whole program. Here the library's own object (one, with
# LTO) and the runtime routines it calls are partially linked into one
# relocatable object (ld -r keeps every function in its own section, so
# --gc-sections still drops what a program does not call) and every global
# symbol but kpca_* is made local: the program's own memcpy, expf and division
# calls keep resolving to its C library and libgcc, and the library exports
# exactly the functions of include/kpca.h (scripts/check-lib-symbols.sh).
#
# Binutils: arm-none-eabi-* for thumb*, riscv64-unknown-elf-* for riscv32*, the
# host's for the host; KPCA_LD, KPCA_OBJCOPY, KPCA_AR and KPCA_NM override them
# (the CMake build passes its toolchain's). The cargo build runs from the
# repository root (its .cargo/config.toml applies) into CARGO_TARGET_DIR.
set -euo pipefail
. "$(dirname "$0")/common.sh"
out=
if [ "${1:-}" = --out ]; then
  [ $# -ge 2 ] || { echo "usage: $0 [--out DIR] [TARGET [FEATURES]]" >&2; exit 2; }
  case "$2" in /*) out=$2 ;; *) out=$CALLER_DIR/$2 ;; esac
  shift 2
fi
target=${1:-thumbv7em-none-eabihf}
# The RISC-V binutils are riscv64's: a 32-bit relocatable link names its emulation.
ld_emulation=()
features=${2:-}
host=$(rustc -vV | sed -n 's/^host: //p')
[ "$target" = host ] && target=$host
case "$target" in
  thumbv6m-none-eabi | thumbv7m-none-eabi | thumbv7em-none-eabi | thumbv7em-none-eabihf | \
  thumbv8m.main-none-eabihf) tools=arm-none-eabi- ;;
  riscv32imac-unknown-none-elf) tools=riscv64-unknown-elf- ld_emulation=(-m elf32lriscv) ;;
  "$host")
    case "$host" in
      *-linux-*) tools= ;;
      *) echo "build-firmware-lib: host $host: only Linux hosts (GNU ld -r, objcopy) are supported" >&2; exit 2 ;;
    esac ;;
  *) echo "build-firmware-lib: unsupported target $target" >&2; exit 2 ;;
esac
LD=${KPCA_LD:-${tools}ld}
OBJCOPY=${KPCA_OBJCOPY:-${tools}objcopy}
AR=${KPCA_AR:-${tools}ar}
NM=${KPCA_NM:-${tools}nm}
need_tools build-firmware-lib "$LD" "$OBJCOPY" "$AR" "$NM" rustc
# The size-first build is compiled for size too (opt-level "s": through the
# rbf entry points, M4F, 160 B less flash and 8% fewer instructions than
# opt-level 3; docs/COST.md).
opt=()
[ "$features" = size ] && opt=(--config 'profile.firmware.opt-level="s"')
if [ -n "$features" ]; then
  cargo build -q -p kpca-staticlib --profile firmware --target "$target" --features "$features" \
    "${opt[@]}" --target-dir "$TARGET_DIR/firmware-$features"
  src=$TARGET_DIR/firmware-$features/$target/firmware/libkpca.a
  out=${out:-$ROOT/build/firmware/$target-$features}
else
  cargo build -q -p kpca-staticlib --profile firmware --target "$target"
  src=$TARGET_DIR/$target/firmware/libkpca.a
  out=${out:-$ROOT/build/firmware/$target}
fi
mkdir -p "$out"
lib=$out/libkpca.a
# Nothing to do when the library is newer than cargo's (a no-op build keeps
# the file, so that programs linking it are not relinked).
if [ -f "$lib" ] && [ "$lib" -nt "$src" ]; then
  echo "$lib"
  exit 0
fi
tmp=$(mktemp -d "$out/.kpca.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Debug sections first: the runtime objects' (the library itself has none)
# carry relocations that the RISC-V binutils 2.40 cannot process (ULEB128).
cp "$src" "$tmp/cargo.a"
"$OBJCOPY" --strip-debug "$tmp/cargo.a"
# The library's object(s), named after the crate (lib name kpca); the archive
# then supplies only the runtime members they need (not all of them: on the
# host some refer to rust_eh_personality, which a no_std library lacks).
mapfile -t own < <("$AR" t "$tmp/cargo.a" | grep -E '^kpca-.*\.o$')
[ "${#own[@]}" -ge 1 ] || { echo "build-firmware-lib: no kpca object in $src" >&2; exit 1; }
(cd "$tmp" && "$AR" x cargo.a "${own[@]}")
"$LD" "${ld_emulation[@]}" -r -z noexecstack "${own[@]/#/$tmp/}" "$tmp/cargo.a" -o "$tmp/kpca.o"
# .llvmbc/.llvmcmd: embedded bitcode of the runtime objects; concatenated by
# ld -r it is no longer valid and would trip LLVM-based binutils plugins.
"$OBJCOPY" --wildcard --keep-global-symbol='kpca_*' \
  --remove-section=.llvmbc --remove-section=.llvmcmd "$tmp/kpca.o"
"$AR" rcs "$tmp/libkpca.a" "$tmp/kpca.o"
if [ -n "$features" ] && [ "$features" != size ]; then
  NM=$NM scripts/check-lib-symbols.sh --prefix-only "$tmp/libkpca.a" >/dev/null
else
  NM=$NM scripts/check-lib-symbols.sh "$tmp/libkpca.a" >/dev/null
fi
mv -f "$tmp/libkpca.a" "$lib"
rm -f "$out/kpca.o"
echo "$lib"
