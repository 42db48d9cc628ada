# Sourced, not run, by the scripts here, as their first command:
#
#   . "$(dirname "$0")/common.sh"
#
# Changes to the repository root (so a script works from any directory) and sets
#   ROOT        the repository root (absolute)
#   CALLER_DIR  the directory the script was started from (for path arguments)
#   TARGET_DIR  cargo's target directory: CARGO_TARGET_DIR (made absolute against
#               CALLER_DIR, as cargo reads it, and exported so) or $ROOT/target
# and defines need_tools, need_nightly, hostile_cache, m4f_bench_setup and count below.

CALLER_DIR=$PWD
if [ -n "${CARGO_TARGET_DIR:-}" ]; then
  case "$CARGO_TARGET_DIR" in
    /*) ;;
    *) CARGO_TARGET_DIR=$CALLER_DIR/$CARGO_TARGET_DIR ;;
  esac
  export CARGO_TARGET_DIR
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}

# Fails with the way to install them when any of the tools is missing.
#   need_tools LABEL TOOL...
need_tools() {
  local label=$1 t missing=()
  shift
  for t in "$@"; do
    command -v "$t" >/dev/null 2>&1 || missing+=("$t")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "$label: not installed: ${missing[*]}; run \`cargo xtask deps\` (or scripts/install-firmware-deps.sh [--riscv])" >&2
    exit 1
  fi
}

# Installs the nightly toolchain when `cargo +nightly` does not run.
#   need_nightly LABEL
need_nightly() {
  if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "$1: installing the nightly toolchain"
    rustup toolchain install nightly --profile minimal
  fi
}

# Prints the build directory NAME of the hostile-input runs (scripts/miri.sh,
# scripts/fuzz-smoke.sh): kept out of the clone, so that later runs from the
# same directory only rebuild kpca, and keyed by the clone's absolute path,
# because cargo-miri runs each test from the directory it was built in (a
# directory shared between clones, as an earlier version had, ran tests from a
# directory that was gone). Each key directory records its clone's path; those
# of clones that no longer exist are removed (about 2 GB each, so that repeated
# fresh clones do not fill the disk).
# KPCA_HOSTILE_CACHE overrides the root (default ~/.cache/kpca-hostile).
#   hostile_cache NAME
hostile_cache() {
  local root here key dir
  root=${KPCA_HOSTILE_CACHE:-$HOME/.cache/kpca-hostile}
  here=$(pwd -P)
  key=$(printf '%s\n' "$here" | sha256sum | cut -c1-16)
  for dir in "$root"/*/; do
    [[ -f "$dir/clone-path" ]] || continue
    [[ -d "$(cat "$dir/clone-path")" ]] || rm -rf "$dir"
  done
  mkdir -p "$root/$key"
  printf '%s\n' "$here" > "$root/$key/clone-path"
  echo "$root/$key/$1"
}

# The bench setup of scripts/firmware-cost.sh and scripts/firmware-sweep.sh:
# builds QEMU's counting plugin and the M4F libkpca.a (the shipped library), and
# sets PLUGIN, LIB, FW, ARCH, CFLAGS, LDFLAGS and harness (the bench
# firmware's own sources) and count ELF (instructions of one QEMU run).
#   m4f_bench_setup     (KPCA_BUILD=speed|size picks the library build)
m4f_bench_setup() {
  scripts/qemu-plugin/build.sh >/dev/null
  PLUGIN=$ROOT/build/qemu-plugin/libinsn.so
  # The shipped library (scripts/build-firmware-lib.sh: only kpca_* exported),
  # not cargo's raw archive, whose weak compiler-runtime symbols (expf among
  # them) would replace newlib's in the C baseline.
  # KPCA_BUILD=size: the size-first build (feature `size`, docs/COST.md).
  case "${KPCA_BUILD:-speed}" in
    speed) LIB=$(scripts/build-firmware-lib.sh thumbv7em-none-eabihf) ;;
    size) LIB=$(scripts/build-firmware-lib.sh thumbv7em-none-eabihf size) ;;
    *) echo "KPCA_BUILD=$KPCA_BUILD: speed or size" >&2; exit 2 ;;
  esac
  FW=c-examples/firmware
  ARCH="-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard"
  CFLAGS="$ARCH -O2 -std=c99 -Wall -Wextra -Wpedantic -Werror -Wdouble-promotion -ffunction-sections -fdata-sections -I$FW -I$ROOT/c-examples/baseline -I$ROOT/include"
  LDFLAGS="$ARCH -nostartfiles --specs=nano.specs -T $FW/mps2_an386.ld -Wl,--gc-sections -Wl,--no-warn-execstack"
  harness="$FW/startup.c $FW/semihost.c $FW/stack.c c-examples/baseline/rbf_baseline.c"
}
count() { scripts/qemu-plugin/count.sh --plugin "$PLUGIN" "$1" 2>/dev/null; }
