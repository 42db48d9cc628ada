#!/usr/bin/env bash
# The C library as a C project gets it: a release folder (`cargo xtask release`)
# and the source tree, through CMake, pkg-config and make.
#
#   scripts/clib-test.sh RELEASE_DIR
#
# 1. every lib/<target>/libkpca.a exports exactly the kpca_* functions of
#    include/kpca.h (scripts/check-lib-symbols.sh); the package's version check;
# 2. host: c-examples/host/kpca_project.c (the run-time blob route: it reads
#    model.kpca) built with CMake through
#    find_package(kpca CONFIG) (CMAKE_PREFIX_PATH and kpca_DIR), through
#    add_subdirectory(<repository>) (libkpca.a built by cargo), and with
#    pkg-config; each run on a generated model (`cargo xtask gen-model clib`),
#    its output compared with the f64 formulas (1e-5 of each column's scale);
# 3. firmware: c-examples/firmware/kpca_fw.c built twice, kpca_fw (the
#    generated model of model.c, model_model, through the kernel's entry
#    points; checked with nm to link no loader) and kpca_fw_blob (the run-time
#    blob route: model_blob through kpca_model_from_bytes; nm must find the
#    loader), with CMake and
#    arm-none-eabi-gcc (cmake/toolchains/arm-none-eabi.cmake) and run on QEMU:
#    Cortex-M4F hard float (thumbv7em-none-eabihf), softfp and soft
#    (thumbv7em-none-eabi), Cortex-M3 on mps2-an385 (thumbv7m-none-eabi, and
#    thumbv6m-none-eabi through KPCA_TARGET), and the M4F through
#    add_subdirectory; every result compared with the f64 formulas; the make
#    command of c-examples/firmware/README.md;
# 4. links (firmware/link-check with CMake, --fatal-warnings, no undefined
#    symbol) for Cortex-M0+, M7, M23, M33 hard and soft float and RV32IMAC,
#    each checked to pick the expected library; a hard-float library in a
#    softfp project must fail to link, an unknown CPU must fail to configure.
# Outputs in $CARGO_TARGET_DIR/clib-test/ (default target/). Also
# `cargo xtask clib-test [RELEASE_DIR]` and the test command's step `clib`.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 RELEASE_DIR" >&2; exit 2; }
release=$1
. "$(dirname "$0")/common.sh"
case "$release" in /*) ;; *) release=$CALLER_DIR/$release ;; esac
[ -f "$release/kpca-release.txt" ] || { echo "clib-test: $release is not a release folder (cargo xtask release)" >&2; exit 1; }
need_tools clib-test cmake cc pkg-config arm-none-eabi-gcc arm-none-eabi-nm riscv64-unknown-elf-gcc qemu-system-arm
out=$TARGET_DIR/clib-test
rm -rf "$out"
mkdir -p "$out"
TC=$ROOT/cmake/toolchains
gen=$out/gen
passed=0
start=$SECONDS

step() { printf '\n=== clib-test: %s\n' "$*"; }
fail() { echo "clib-test: FAIL: $*" >&2; exit 1; }
ok() { passed=$((passed + 1)); echo "ok: $*"; }
# configure NAME SOURCE_DIR ARGS...: cmake -S SOURCE_DIR -B $out/NAME, log in $out/NAME.log
configure() {
  local name=$1 src=$2
  shift 2
  cmake -S "$src" -B "$out/$name" "$@" >"$out/$name.log" 2>&1
}
build() { cmake --build "$out/$1" >>"$out/$1.log" 2>&1 || { tail -20 "$out/$1.log" >&2; fail "$1: build"; }; }
# check_host BINARY LABEL: runs the host program on the model, compares with f64.
check_host() {
  "$1" "$gen/model.kpca" <"$gen/vectors.csv" >"$1.csv" || fail "$2: $1 exited with $?"
  scripts/compare-scores.sh "$1.csv" "$gen/expected.csv" 1e-5 | sed 's/^/  /' || fail "$2: results"
  ok "$2"
}
# check_fw ELF MACHINE CPU LABEL: kpca_fw.elf (generated model) links no
# loader, kpca_fw_blob.elf (run-time blob) does; runs it on QEMU, compares
# with f64.
check_fw() {
  local status=0 loader
  loader=$(arm-none-eabi-nm "$1" | grep -E 'kpca_model_from_bytes|load_into|parse_heads|attach_heads' || true)
  case "$1" in
    *_blob.elf) [ -n "$loader" ] || fail "$4: the blob firmware links no loader: the nm check cannot fail" ;;
    *) [ -z "$loader" ] || fail "$4: the generated-model firmware links the loader: $loader" ;;
  esac
  timeout 60 qemu-system-arm -machine "$2" -cpu "$3" -nographic \
    -semihosting-config enable=on,target=native -kernel "$1" </dev/null >"$1.txt" 2>&1 || status=$?
  [ "$status" -eq 0 ] || { cat "$1.txt" >&2; fail "$4: QEMU exit status $status"; }
  awk '/^[0-9]+ / { line = $2; for (i = 3; i < NF; i++) line = line "," $i; print line }' "$1.txt" >"$1.csv"
  scripts/compare-scores.sh "$1.csv" "$gen/expected.csv" 1e-5 | sed 's/^/  /' || fail "$4: results"
  ok "$4"
}
# expect_target NAME TARGET: the library the configure step picked.
expect_target() {
  local got
  got=$(cat "$out/$1/kpca-target.txt" 2>/dev/null || grep -oE 'libkpca.a for [^ ]+' "$out/$1.log" | tail -1 | cut -d' ' -f3)
  [ "$got" = "$2" ] || fail "$1: picked ${got:-nothing}, expected $2"
}

step "models: cargo xtask gen-model clib rbf 32 8 4, gen-model bench rbf 16 4 2"
cargo xtask gen-model clib rbf 32 8 4 "$gen"
cargo xtask gen-model bench rbf 16 4 2 "$out/bench"

step "libraries of $release"
libs=("$release"/lib/*/libkpca.a)
[ "${#libs[@]}" -eq 7 ] || fail "expected 7 libraries in $release/lib, found ${#libs[@]}"
scripts/check-lib-symbols.sh "${libs[@]}"
slibs=("$release"/lib/*/size/libkpca.a)
[ "${#slibs[@]}" -eq 7 ] || fail "expected 7 size-first libraries in $release/lib/*/size, found ${#slibs[@]}"
scripts/check-lib-symbols.sh "${slibs[@]}"
ok "7 libraries and their 7 size-first builds, only kpca_* exported"
# The package's version check, in a project without a compiler.
mkdir -p "$out/version-src"
cat >"$out/version-src/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(kpca_version_check NONE)
find_package(kpca ${WANT} CONFIG QUIET)
if(kpca_FOUND)
  file(WRITE "${CMAKE_BINARY_DIR}/found.txt" "found ${kpca_VERSION}")
else()
  file(WRITE "${CMAKE_BINARY_DIR}/found.txt" "not found")
endif()
EOF
for want in "0.1:found 0.1.0" "0.1.0;EXACT:found 0.1.0" "0.2:not found" "1.0:not found" \
  "0.0.9:not found"; do
  v=${want%%:*}
  configure version "$out/version-src" "-DWANT=$v" "-DCMAKE_PREFIX_PATH=$release" || fail "version: configure"
  got=$(cat "$out/version/found.txt")
  [ "$got" = "${want#*:}" ] || fail "find_package(kpca $v): $got, expected ${want#*:}"
  rm -rf "$out/version"
done
ok "find_package(kpca VERSION): 0.1 and 0.1.0 EXACT accepted, 0.2, 1.0, 0.0.9 refused"

step "host program: find_package, add_subdirectory, pkg-config"
configure host-prefix c-examples/host "-DCMAKE_PREFIX_PATH=$release" || fail "host-prefix: configure"
build host-prefix
check_host "$out/host-prefix/kpca_project" "host, find_package (CMAKE_PREFIX_PATH)"
configure host-dir c-examples/host "-Dkpca_DIR=$release/lib/cmake/kpca" || fail "host-dir: configure"
build host-dir
check_host "$out/host-dir/kpca_project" "host, find_package (kpca_DIR)"
configure host-subdir c-examples/host "-DKPCA_SOURCE_DIR=$ROOT" || fail "host-subdir: configure"
build host-subdir
check_host "$out/host-subdir/kpca_project" "host, add_subdirectory (cargo build)"
pc() { PKG_CONFIG_PATH=$release/lib/pkgconfig pkg-config "$@"; }
[ "$(pc --modversion kpca)" = "$(sed -n 's/^kpca //p' "$release/kpca-release.txt")" ] || fail "pkg-config --modversion"
# shellcheck disable=SC2046 # word splitting of the flags is intended
cc -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror $(pc --cflags kpca) c-examples/host/kpca_project.c \
  $(pc --libs kpca) -o "$out/kpca_project_pc"
check_host "$out/kpca_project_pc" "host, pkg-config"
for t in thumbv6m-none-eabi thumbv7em-none-eabihf riscv32imac-unknown-none-elf; do
  read -r lib < <(pc --define-variable=target="$t" --libs kpca)
  [ "$lib" -ef "$release/lib/$t/libkpca.a" ] || fail "pkg-config --define-variable=target=$t: $lib"
done
ok "pkg-config --define-variable=target=T names each target's library"

step "firmware on QEMU: CMake + arm-none-eabi-gcc"
fw() { # NAME MACHINE CPU EXPECTED_TARGET CMAKE_ARGS...
  local name=$1 machine=$2 cpu=$3 want=$4
  shift 4
  configure "$name" c-examples/firmware "-DCMAKE_TOOLCHAIN_FILE=$TC/arm-none-eabi.cmake" \
    "-DARM_CPU=$cpu" "-DKPCA_FW_GENERATED=$gen" "$@" || { tail -20 "$out/$name.log" >&2; fail "$name: configure"; }
  expect_target "$name" "$want"
  build "$name"
  check_fw "$out/$name/kpca_fw.elf" "$machine" "$cpu" "firmware $name ($want, $machine), generated model"
  check_fw "$out/$name/kpca_fw_blob.elf" "$machine" "$cpu" "firmware $name ($want, $machine), run-time blob"
}
fw m4f-hard mps2-an386 cortex-m4 thumbv7em-none-eabihf "-DCMAKE_PREFIX_PATH=$release"
fw m4-softfp mps2-an386 cortex-m4 thumbv7em-none-eabi -DARM_FLOAT_ABI=softfp "-DCMAKE_PREFIX_PATH=$release"
fw m4-soft mps2-an386 cortex-m4 thumbv7em-none-eabi -DARM_FLOAT_ABI=soft "-DCMAKE_PREFIX_PATH=$release"
fw m3 mps2-an385 cortex-m3 thumbv7m-none-eabi -DARM_FLOAT_ABI=soft "-DCMAKE_PREFIX_PATH=$release"
fw m3-v6m mps2-an385 cortex-m3 thumbv6m-none-eabi -DARM_FLOAT_ABI=soft -DKPCA_TARGET=thumbv6m-none-eabi \
  "-DCMAKE_PREFIX_PATH=$release"
fw m4f-subdir mps2-an386 cortex-m4 thumbv7em-none-eabihf "-DKPCA_SOURCE_DIR=$ROOT"
# The size-first build (KPCA_OPTIMIZE=size), from the release and from the sources.
fw m4f-size mps2-an386 cortex-m4 thumbv7em-none-eabihf -DKPCA_OPTIMIZE=size "-DCMAKE_PREFIX_PATH=$release"
grep -q "size/libkpca.a" "$out/m4f-size/CMakeCache.txt" "$out/m4f-size.log" 2>/dev/null \
  || grep -rq "size/libkpca.a" "$out/m4f-size" || fail "m4f-size: the size-first library was not linked"
fw m0-size-subdir mps2-an385 cortex-m3 thumbv6m-none-eabi -DARM_FLOAT_ABI=soft -DKPCA_TARGET=thumbv6m-none-eabi \
  -DKPCA_OPTIMIZE=size "-DKPCA_SOURCE_DIR=$ROOT"
# The command of c-examples/firmware/README.md (make, the harness's Makefile).
make -s -C c-examples/firmware kpca_fw kpca_fw_blob EXTRA_PROGRAMS="kpca_fw kpca_fw_blob" BUILD="$out/make-fw" \
  LIBKPCA="$release/lib/thumbv7em-none-eabihf/libkpca.a" GENERATED="$gen" >"$out/make-fw.log" 2>&1 \
  || { tail -20 "$out/make-fw.log" >&2; fail "make kpca_fw (c-examples/firmware/README.md)"; }
check_fw "$out/make-fw/kpca_fw.elf" mps2-an386 cortex-m4 "firmware with make (c-examples/firmware/README.md), generated model"
check_fw "$out/make-fw/kpca_fw_blob.elf" mps2-an386 cortex-m4 "firmware with make, run-time blob"

step "links: firmware/link-check with CMake for every target"
lc() { # NAME EXPECTED_TARGET TOOLCHAIN CMAKE_ARGS...
  local name=$1 want=$2 tc=$3
  shift 3
  configure "$name" firmware/link-check "-DCMAKE_TOOLCHAIN_FILE=$TC/$tc" \
    "-DKPCA_LINK_CHECK_MODEL=$out/bench" "$@" || { tail -20 "$out/$name.log" >&2; fail "$name: configure"; }
  expect_target "$name" "$want"
  build "$name"
  local undefined
  undefined=$(nm -u "$out/$name/link_check.elf")
  [ -z "$undefined" ] || fail "$name: undefined symbols: $undefined"
  ok "link $name: $want, $(size "$out/$name/link_check.elf" | awk 'NR == 2 { print $1 }') B text"
}
arm=arm-none-eabi.cmake
lc m0plus thumbv6m-none-eabi $arm -DARM_CPU=cortex-m0plus -DARM_FLOAT_ABI=soft "-DCMAKE_PREFIX_PATH=$release"
lc m23 thumbv6m-none-eabi $arm -DARM_CPU=cortex-m23 -DARM_FLOAT_ABI=soft "-DCMAKE_PREFIX_PATH=$release"
lc m7 thumbv7em-none-eabihf $arm -DARM_CPU=cortex-m7 -DARM_FPU=fpv5-d16 "-DCMAKE_PREFIX_PATH=$release"
lc m33 thumbv8m.main-none-eabihf $arm -DARM_CPU=cortex-m33 -DARM_FPU=fpv5-sp-d16 "-DCMAKE_PREFIX_PATH=$release"
lc m33-soft thumbv7m-none-eabi $arm -DARM_CPU=cortex-m33 -DARM_FLOAT_ABI=soft "-DCMAKE_PREFIX_PATH=$release"
lc rv32 riscv32imac-unknown-none-elf riscv32-unknown-elf.cmake "-DCMAKE_PREFIX_PATH=$release"
lc rv32-subdir riscv32imac-unknown-none-elf riscv32-unknown-elf.cmake "-DKPCA_SOURCE_DIR=$ROOT"
# Controls: the checks above can fail.
configure neg-abi firmware/link-check "-DCMAKE_TOOLCHAIN_FILE=$TC/$arm" -DARM_FLOAT_ABI=softfp \
  -DKPCA_TARGET=thumbv7em-none-eabihf "-DKPCA_LINK_CHECK_MODEL=$out/bench" "-DCMAKE_PREFIX_PATH=$release" \
  || fail "neg-abi: configure"
if cmake --build "$out/neg-abi" >>"$out/neg-abi.log" 2>&1; then
  fail "the hard-float library linked into a softfp program"
fi
grep -q "uses VFP register arguments" "$out/neg-abi.log" || fail "neg-abi: not the float ABI error"
ok "control: thumbv7em-none-eabihf in a softfp program is refused (uses VFP register arguments)"
if configure neg-cpu firmware/link-check "-DCMAKE_TOOLCHAIN_FILE=$TC/$arm" -DARM_CPU=cortex-a7 \
  "-DKPCA_LINK_CHECK_MODEL=$out/bench" "-DCMAKE_PREFIX_PATH=$release"; then
  fail "an unknown CPU (cortex-a7) configured"
fi
grep -q "unknown Arm CPU or architecture 'cortex-a7'" "$out/neg-cpu.log" || fail "neg-cpu: not the CPU message"
ok "control: an unknown CPU is refused with the reason and KPCA_TARGET"

echo
echo "clib-test: $passed passed, 0 failed ($((SECONDS - start)) s)"
