#!/usr/bin/env bash
# kpca against CMSIS-DSP on the emulated Cortex-M4F (QEMU mps2-an386): exact
# instructions per call of kpca_project, kpca_rbf_project, the straightforward
# C baseline and CMSIS-DSP's arm_svm_rbf_predict_f32 on the same stored points
# (rbf, m = 128, k = 4, gamma = 1/d; CMSIS-DSP computes one output, the SVM's
# decision value sum_i c_i exp(-gamma |x - z_i|^2), and no anomaly score), counted
# as in scripts/firmware-cost.sh: (count(N calls) - count(0 calls)) / N.
#
#   scripts/peers/cmsis-dsp-cost.sh            (about a minute)
#
# CMSIS-DSP comes from its PyPI source release (cmsisdsp 1.10.3, the sha256
# below checked), unpacked into build/peers; its C sources are compiled with
# the firmware's flags (-O2, newlib's expf) and a three-macro stand-in for
# CMSIS-Core's cmsis_compiler.h (c-examples/firmware/cmsis_shim). Writes
# build/cmsis-dsp-cost.md. A peer benchmark, not part of the test command.
set -euo pipefail
. "$(dirname "$0")/../common.sh"
need_tools cmsis-dsp-cost arm-none-eabi-gcc qemu-system-arm python3
VERSION=1.10.3
SHA256=307d32298faa7c58db912851027fce35f886fec7eb1a27c4b309ce1a97f47519
peers=$ROOT/build/peers
src=$peers/cmsisdsp-$VERSION
mkdir -p "$peers"
if [ ! -d "$src/Source/SVMFunctions" ]; then
  python3 - "$peers" "$VERSION" "$SHA256" <<'PY'
import hashlib, json, sys, tarfile, urllib.request
out, version, sha = sys.argv[1:]
meta = json.load(urllib.request.urlopen("https://pypi.org/pypi/cmsisdsp/json"))
url = next(u["url"] for u in meta["releases"][version] if u["packagetype"] == "sdist")
data = urllib.request.urlopen(url).read()
if hashlib.sha256(data).hexdigest() != sha:
    sys.exit(f"cmsisdsp {version}: sha256 mismatch")
path = f"{out}/cmsisdsp-{version}.tar.gz"
open(path, "wb").write(data)
with tarfile.open(path) as t:
    t.extractall(out, filter="data")
PY
fi
m4f_bench_setup
N=64
# CMSIS-DSP's headers as system headers (their own warnings are not the
# bench's), its two SVM sources compiled once with the firmware's -O2.
cmsis_inc="-isystem $ROOT/c-examples/firmware/cmsis_shim -isystem $src/Include -isystem $src/PrivateInclude"
cmsis_obj=""
for f in arm_svm_rbf_predict_f32 arm_svm_rbf_init_f32; do
  # shellcheck disable=SC2086
  arm-none-eabi-gcc $ARCH -O2 -std=c99 -ffunction-sections -fdata-sections $cmsis_inc \
    -c "$src/Source/SVMFunctions/$f.c" -o "$peers/$f.o"
  cmsis_obj="$cmsis_obj $peers/$f.o"
done
per_call() { local c0 cn; c0=$(count "$1"); cn=$(count "$2"); python3 -c "print(round(($cn - $c0) / $N))"; }
table="| d | kpca_project | kpca_rbf_project | C baseline (k = 4 outputs and the score) | CMSIS-DSP arm_svm_rbf_predict_f32 (one output) | kpca_project / CMSIS-DSP |
|--:|--:|--:|--:|--:|--:|"
for d in 3 8 16 24 32; do
  dir=$peers/cost_d$d
  cargo xtask gen-model bench rbf 128 "$d" 4 "$dir" >/dev/null
  for op in 1 3 5 6; do for calls in 0 $N; do
    extra=""; [ $op = 6 ] && extra="$cmsis_inc $cmsis_obj"
    # shellcheck disable=SC2086
    arm-none-eabi-gcc $CFLAGS -I"$dir" -DBENCH_OP=$op -DBENCH_CALLS=$calls $LDFLAGS \
      -o "$dir/bench_${op}_$calls.elf" $FW/bench_kpca.c "$dir/bench_model.c" $harness $extra "$LIB" -lm &
  done; done
  wait
  p=$(per_call "$dir/bench_1_0.elf" "$dir/bench_1_$N.elf")
  b=$(per_call "$dir/bench_3_0.elf" "$dir/bench_3_$N.elf")
  p1=$(per_call "$dir/bench_5_0.elf" "$dir/bench_5_$N.elf")
  c=$(per_call "$dir/bench_6_0.elf" "$dir/bench_6_$N.elf")
  table="$table
| $d | $p | $p1 | $b | $c | $(python3 -c "print(f'{$p / $c:.2f}')") |"
done
table="$table

QEMU mps2-an386 (Cortex-M4F), m = 128, k = 4; cmsisdsp $VERSION sources, $(arm-none-eabi-gcc --version | head -1), -O2; kpca $(git -C "$ROOT" rev-parse --short HEAD)."
echo "$table" | tee "$ROOT/build/cmsis-dsp-cost.md"
