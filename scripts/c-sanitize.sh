#!/usr/bin/env bash
# The C status tests (c-examples/tests/status_tests.c) under AddressSanitizer and
# UndefinedBehaviorSanitizer: builds the host static library
# ($CARGO_TARGET_DIR/c-tests/release/libkpca.a, default target/c-tests), generates
# the test models (`cargo xtask gen-model c-tests`), compiles the tests with
# strict C99 flags and the sanitizers, runs them, and fails on any failed check
# or sanitizer report. Step "sanitize" of `cargo xtask test`; also
# `cargo xtask sanitize`. CC selects the compiler (cc; gcc or clang).
set -euo pipefail
. "$(dirname "$0")/common.sh"
CC=${CC:-cc}
OUT=$TARGET_DIR/c-tests
need_tools c-sanitize "$CC"

echo "c-sanitize: building libkpca.a (host, release) and the test models"
cargo build --quiet -p kpca-staticlib --release --target-dir "$OUT"
cargo xtask gen-model c-tests "$OUT/gen"

FLAGS=(-std=c99 -Wall -Wextra -Wpedantic -Werror -Wdouble-promotion -Wfloat-conversion
       -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
echo "c-sanitize: $CC ${FLAGS[*]}"
"$CC" "${FLAGS[@]}" -O1 -Iinclude -I"$OUT/gen" \
  c-examples/tests/status_tests.c "$OUT/gen/c_test_models.c" \
  "$OUT/release/libkpca.a" -lm -o "$OUT/status_tests"

# Any ASan or UBSan report aborts the program (non-zero exit).
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
timeout 300 "$OUT/status_tests"
