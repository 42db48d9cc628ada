#!/usr/bin/env bash
# Every loop variant of the register passes, on the emulated Cortex-M4F, bit
# for bit against the host: the assembly of crates/kpca-core/src/project/rowloop/asm.rs
# (register runs for d <= 8, chunked runs, wide runs for d = 9..16 and k <= 4;
# 4, 8 or 16 component sums; forward and backward reads; the polynomial's
# blocks) must give exactly the host Rust loop's f32 results; and so must the
# size-first build's one loop (crates/kpca-core/src/project/compact.rs) on
# the same models.
#
#   scripts/firmware-variants.sh          (both builds; KPCA_BUILD=speed|size: one)
#
# For each kernel and each shape below, `cargo xtask gen-model bench` writes a
# model, 16 test vectors and the host's f32 results; the bench firmware
# (c-examples/firmware/bench_kpca.c, built with -DSELF_CHECK_REL_TOL=0.0f, so
# any output that is not bit-identical is a mismatch) checks coordinates,
# scores, predictions and pre-images, and must print "self-check ok". Exits
# non-zero on the first shape that does not. Outputs in build/variants-BUILD/.
# Part of the firmware step of the test command (cargo xtask test firmware).
set -euo pipefail
shopt -s inherit_errexit
. "$(dirname "$0")/common.sh"
need_tools firmware-variants arm-none-eabi-gcc qemu-system-arm
# The M4F library, compiler and linker flags and harness of the cost benches.
builds=${KPCA_BUILD:-speed size}
for build in $builds; do
KPCA_BUILD=$build m4f_bench_setup
out=$ROOT/build/variants-$build
mkdir -p "$out"
# m d k: what each shape takes (for the kernels other than the Laplacian, whose
# reads are exactly d floats: register runs for d = 8, wide for d = 16).
shapes=(
  "37 3 4"   # register runs, 4 sums, the last points read backwards
  "37 5 6"   # register runs, 8 sums, points and A rows read backwards at the end
  "37 8 8"   # register runs, 8 sums, every read inside its row
  "37 12 3"  # wide runs, A rows of 3 read backwards (sums apart); Laplacian: 1 chunk + 4 floats
  "37 16 4"  # wide runs (rbf, Laplacian), chunked 4 sums (the others)
  "41 20 7"  # chunked runs, 8 sums, both sections split
  "37 33 12" # chunked runs, 16 sums (the second group ending at the row's end)
  "130 9 2"  # the polynomial's blocks of 64 points; wide runs elsewhere
  "3 16 3"   # a model too small for the passes' reads in either direction
)
  n=0
for kern in linear poly rbf laplacian sigmoid cosine; do
  for shape in "${shapes[@]}"; do
    read -r m d k <<<"$shape"
    dir=$out/${kern}_m${m}_d${d}_k${k}
    cargo xtask gen-model bench "$kern" "$m" "$d" "$k" "$dir" >/dev/null
    arm-none-eabi-gcc $CFLAGS -I"$dir" -DBENCH_OP=4 -DBENCH_CALLS=0 -DSELF_CHECK_REL_TOL=0.0f $LDFLAGS \
      -o "$dir/variants.elf" $FW/bench_kpca.c "$dir/bench_model.c" $harness "$LIB" -lm
    log=$(timeout 60 qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic \
      -semihosting-config enable=on,target=native -kernel "$dir/variants.elf" 2>&1 </dev/null || true)
    if ! grep -q "self-check ok" <<<"$log"; then
      echo "firmware-variants: $kern m=$m d=$d k=$k ($build build) is not bit-identical to the host:" >&2
      echo "$log" >&2
      exit 1
    fi
    n=$((n + 1))
  done
done
echo "firmware-variants: $build build: $n models (6 kernels x ${#shapes[@]} shapes), every output bit-identical to the host's"
done
