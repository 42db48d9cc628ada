#!/usr/bin/env bash
# The demo learned on the emulated Cortex-M4F (c-examples/firmware/learn_fw.c):
# the firmware fits kernel PCA to the demo's training windows with kpca_fit,
# scores the test windows, and checks itself against the host-fitted model
# (eigenvalues, coordinates, scores, ROC AUC within their tolerances; exit
# status 0 when they hold). Its per-window output goes to
# OUT_DIR/learned_scores.csv (y1..yk, score, flag).
#
#   scripts/firmware-learn.sh [DEMO_DIR [OUT_DIR]]   (defaults: kpca-demo in the current directory, DEMO_DIR/firmware-learn)
set -euo pipefail
. "$(dirname "$0")/common.sh"
dir=${1:-$CALLER_DIR/kpca-demo}
case "$dir" in /*) ;; *) dir=$CALLER_DIR/$dir ;; esac
out=${2:-$dir/firmware-learn}
case "$out" in /*) ;; *) out=$CALLER_DIR/$out ;; esac
need_tools firmware-learn arm-none-eabi-gcc arm-none-eabi-size qemu-system-arm
gen=$out/src
mkdir -p "$gen"
lib=$(scripts/build-firmware-lib.sh thumbv7em-none-eabihf)
cargo run -q --release -p kpca-cli --bin kpca -- \
  export --model "$dir/demo_model.kpca" --format c --name model --output-dir "$gen" >/dev/null
scripts/csv-to-c.sh train "$dir/train_vectors.csv" "$gen"
scripts/csv-to-c.sh vectors "$dir/test_vectors.csv" "$gen"
scripts/csv-to-c.sh labels "$dir/test_labels.csv" "$gen" 1
fw=c-examples/firmware
ARCH="-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard"
CFLAGS="$ARCH -O2 -std=c99 -Wall -Wextra -Wpedantic -Werror -Wdouble-promotion -Wfloat-conversion -ffunction-sections -fdata-sections"
elf=$out/learn_fw.elf
arm-none-eabi-gcc $CFLAGS -I"$fw" -Iinclude -I"$gen" \
  -nostartfiles --specs=nano.specs -T "$fw/mps2_an386.ld" -Wl,--gc-sections -Wl,--no-warn-execstack \
  -o "$elf" "$fw/learn_fw.c" "$gen/model.c" "$gen/train.c" "$gen/vectors.c" "$gen/labels.c" \
  "$fw/startup.c" "$fw/semihost.c" "$fw/stack.c" "$lib" -lm
status=0
timeout 300 qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic \
  -semihosting-config enable=on,target=native -kernel "$elf" </dev/null >"$out/output.txt" 2>&1 || status=$?
grep -v '^l ' "$out/output.txt" || true
awk '$1 == "l" { line = $3; for (i = 4; i <= NF; i++) line = line "," $i; print line }' \
  "$out/output.txt" >"$out/learned_scores.csv"
echo "firmware-learn: exit status $status; $(wc -l <"$out/learned_scores.csv") rows in $out/learned_scores.csv"
exit $status
