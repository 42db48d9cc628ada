#!/usr/bin/env bash
# The library's code size as a downstream project gets it: built from a
# directory OUTSIDE the repository, so that the repository's .cargo/config.toml
# (and its Arm rustflags) does not apply.
#
#   scripts/downstream-size.sh
#
# 1. Rust: a copy of firmware/rust-m4f in a temporary directory, depending on
#    kpca by path, with its own ordinary release profile (opt-level 3, lto,
#    codegen-units 1), built twice: as it is, and with the runtime-unrolling
#    flag added (--config target.thumbv7em-none-eabihf.rustflags: LLVM's runtime
#    unrolling off). Both are run on QEMU mps2-an386 and must pass their own
#    checks (exit status 0).
# 2. C: libkpca.a (profile firmware, thumbv7em-none-eabihf) built from the
#    temporary directory with --manifest-path, so without the repository's
#    flags, against the same library built from the repository root.
# Prints the text sizes both ways and the sizes of kpca's functions, and fails
# if the projection (kpca_core::project::evaluate and kernel_value) is more than 2%
# larger without the flags than with them: its loops are written not to be
# runtime-unrolled (crates/kpca-core/src/codegen.rs, keep_rolled), whatever the build's flags.
# Outputs (targets) in $CARGO_TARGET_DIR/downstream/ (default target/).
# Also `cargo xtask firmware downstream` (part of `cargo xtask firmware test`).
set -euo pipefail
. "$(dirname "$0")/common.sh"
need_tools downstream-size arm-none-eabi-size arm-none-eabi-nm qemu-system-arm
target=thumbv7em-none-eabihf
FLAGS='-unroll-runtime=false'   # LLVM's runtime unrolling off, for comparison
out=$TARGET_DIR/downstream
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kpca-downstream.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
case "$tmp/" in
  "$ROOT"/*) echo "downstream-size: $tmp is inside the repository" >&2; exit 1 ;;
esac
# Whatever the caller's environment says, the builds below use only the
# config files they find (cargo gives RUSTFLAGS precedence over them).
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_RUSTFLAGS \
  CARGO_TARGET_THUMBV7EM_NONE_EABIHF_RUSTFLAGS CARGO_PROFILE_RELEASE_LTO

step() { printf '\n=== downstream-size: %s\n' "$*"; }
# sym_size FILE SYMBOL: the size of a (demangled) function, 0 when absent.
sym_size() {
  arm-none-eabi-nm -S -C "$1" 2>/dev/null | awk -v s="$2" '
    { name = $0; sub(/^[0-9a-f]+ [0-9a-f]+ [A-Za-z] /, "", name) }
    name == s && $3 ~ /^[tTW]$/ { n += ("0x" $2) + 0 }
    END { print n + 0 }' | tr -d '\n'
  echo
}
# core_size FILE: the functions of core (float formatting and the rest of
# core::fmt, which the firmware's hprintln! pulls in), in bytes.
core_size() {
  arm-none-eabi-nm -S -C "$1" 2>/dev/null | awk '
    { name = $0; sub(/^[0-9a-f]+ [0-9a-f]+ [A-Za-z] /, "", name) }
    $3 ~ /^[tTW]$/ && name ~ /^<?(&)?(core|<core)::/ { n += ("0x" $2) + 0 }
    END { print n + 0 }'
}
sz() { arm-none-eabi-size -A "$1" | awk -v s="$2" '$1 == s { print $2 }'; }

step "a copy of firmware/rust-m4f in $tmp (outside the repository)"
fw=$tmp/rust-m4f
mkdir -p "$fw"
cp -r firmware/rust-m4f/{Cargo.toml,Cargo.lock,build.rs,memory.x,src,.cargo} "$fw/"
sed -i "s#path = \"../..\"#path = \"$ROOT\"#" "$fw/Cargo.toml"
grep -q "path = \"$ROOT\"" "$fw/Cargo.toml" \
  || { echo "downstream-size: could not point the copy at $ROOT" >&2; exit 1; }
cargo xtask gen-model rust-fw rbf 32 8 4 "$fw/generated"

# build VARIANT [CARGO ARGS]: builds the copy into $out/VARIANT, prints the ELF.
build() {
  local variant=$1
  shift
  (cd "$fw" && cargo build -q --release --target-dir "$out/$variant" "$@")
  echo "$out/$variant/$target/release/kpca-fw-m4f"
}
plain=$(build plain)
flags=$(build flags --config "target.$target.rustflags=[\"-C\", \"llvm-args=$FLAGS\"]")
for elf in "$plain" "$flags"; do
  timeout 60 qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic \
    -semihosting-config enable=on,target=native -kernel "$elf" </dev/null >/dev/null 2>&1 \
    || { echo "downstream-size: FAIL: $elf did not pass on QEMU" >&2; exit 1; }
done

step "libkpca.a ($target, profile firmware) from outside and from inside the repository"
(cd "$tmp" && cargo build -q --manifest-path "$ROOT/Cargo.toml" -p kpca-staticlib \
  --profile firmware --target "$target" --target-dir "$out/staticlib")
cargo build -q -p kpca-staticlib --profile firmware --target "$target"
lib_out=$out/staticlib/$target/firmware/libkpca.a
lib_in=$TARGET_DIR/$target/firmware/libkpca.a

step "sizes (bytes)"
printf '%-44s %12s %12s\n' "" "default" "repo flags"
printf '%-44s %12s %12s\n' "rust-m4f copy: .text" "$(sz "$plain" .text)" "$(sz "$flags" .text)"
printf '%-44s %12s %12s\n' "rust-m4f copy: .rodata" "$(sz "$plain" .rodata)" "$(sz "$flags" .rodata)"
fail=0
check() { # LABEL DEFAULT FLAGS: prints, and fails when DEFAULT > FLAGS + 2%
  printf '%-44s %12s %12s\n' "$1" "$2" "$3"
  if [ "$2" -eq 0 ] || [ "$3" -eq 0 ]; then
    echo "downstream-size: $1 not found" >&2; fail=1
  elif [ $(( $2 * 100 )) -gt $(( $3 * 102 )) ]; then
    echo "downstream-size: FAIL: $1 is $2 B without the flags, $3 B with them" >&2; fail=1
  fi
}
for f in kpca_core::project::evaluate kpca_core::project::kernel_value; do
  check "rust-m4f copy: $f" "$(sym_size "$plain" "$f")" "$(sym_size "$flags" "$f")"
done
printf '%-44s %12s %12s\n' "rust-m4f copy: core's functions (core::fmt)" "$(core_size "$plain")" "$(core_size "$flags")"
printf '%-44s %12s %12s\n' "rust-m4f copy: main (inlines the loader)" \
  "$(sym_size "$plain" kpca_fw_m4f::__cortex_m_rt_main)" "$(sym_size "$flags" kpca_fw_m4f::__cortex_m_rt_main)"
printf '%-44s %12s %12s\n' "" "outside" "inside"
for f in kpca_core::project::evaluate kpca_core::project::kernel_value; do
  check "libkpca.a: $f" "$(sym_size "$lib_out" "$f")" "$(sym_size "$lib_in" "$f")"
done
for f in kpca_model_from_bytes kpca_core::model::check_consistency; do
  printf '%-44s %12s %12s\n' "libkpca.a: $f" "$(sym_size "$lib_out" "$f")" "$(sym_size "$lib_in" "$f")"
done
[ "$fail" -eq 0 ] || exit 1
echo "downstream-size: PASS: the projection's code is the same size with and without the repository's flags"
