#!/usr/bin/env bash
# Short fuzz run of every cargo-fuzz target (fuzz/fuzz_targets) from the
# committed seed corpus (fuzz/corpus-seed/<target>), two targets at a time,
# and load_and_project again with the size-first build (feature size);
# fails on any crash, panic, sanitizer report, leak, timeout or OOM.
# Step "fuzz" of `cargo xtask test`; also `cargo xtask fuzz [SECONDS]`.
# TESTING.md has the long runs.
#   FUZZ_SECONDS   seconds per target (default 40)
# Installs the nightly toolchain and cargo-fuzz when they are missing. Logs in
# $CARGO_TARGET_DIR/fuzz-smoke (default target/fuzz-smoke).
set -euo pipefail
. "$(dirname "$0")/common.sh"
need_nightly fuzz-smoke
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz-smoke: installing cargo-fuzz"
  cargo install cargo-fuzz --locked --quiet
fi
SECS=${FUZZ_SECONDS:-40}
# A cold build of the cli dependencies with ASan takes minutes.
TDIR=${KPCA_FUZZ_TARGET:-$(hostile_cache fuzz-target)}
TARGETS=(load_and_project mutate_blob capi csv_npy learn load_and_project-size)
LOGS=$TARGET_DIR/fuzz-smoke
mkdir -p "$LOGS"

echo "fuzz-smoke: building the targets (ASan, debug assertions)"
cargo +nightly fuzz build -O -a --target-dir "$TDIR"

run() { # target, or target-size: the target with the size-first build
  local t=${1%-size} log=$1 build=(--target-dir "$TDIR")
  [ "$t" = "$1" ] || build+=(--features size)
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  cargo +nightly fuzz run -O -a "${build[@]}" "$t" "fuzz/corpus/$t" "fuzz/corpus-seed/$t" -- \
    -max_total_time="$SECS" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
    >"$LOGS/$log.log" 2>&1
}

status=0
# The last, alone: the size-first build of load_and_project, rebuilt in the
# same target directory (only the kpca crates recompile).
for pair in "load_and_project mutate_blob" "capi csv_npy" "learn" "load_and_project-size"; do
  pids=()
  for t in $pair; do
    run "$t" &
    pids+=("$!")
  done
  i=0
  for t in $pair; do
    if ! wait "${pids[$i]}"; then
      echo "fuzz-smoke: $t FAILED; end of $LOGS/$t.log:"
      grep -v '^ *#[0-9]* *0x' "$LOGS/$t.log" | tail -n 40
      ls "fuzz/artifacts/$t" 2>/dev/null | sed "s|^|  artifact: fuzz/artifacts/$t/|"
      status=1
    fi
    i=$((i + 1))
  done
done

passed=0
failed=0
for t in "${TARGETS[@]}"; do
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$LOGS/$t.log" | tail -n 1)
  cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$LOGS/$t.log" | tail -n 1)
  if grep -qE 'SUMMARY|panicked|deadly signal|ERROR: libFuzzer' "$LOGS/$t.log"; then
    failed=$((failed + 1))
    echo "fuzz-smoke: $t: crash (see $LOGS/$t.log)"
  else
    passed=$((passed + 1))
    echo "fuzz-smoke: $t: ${execs:-?} executions in ${SECS}s, ${cov:-no coverage line}, no crash"
  fi
done
echo "fuzz-smoke: $passed passed, $failed failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
