#!/usr/bin/env bash
# The C status tests (c-examples/tests/status_tests.c) under AddressSanitizer and
# UndefinedBehaviorSanitizer: builds the host static library
# (target/c-tests/release/libkpca.a), generates the test models
# (examples/c_test_models.rs), compiles the tests with strict C99 flags and the
# sanitizers, runs them, and fails on any failed check or sanitizer report.
# Part of scripts/test-all.sh ("hostile input"). CC selects the compiler (cc).
set -euo pipefail
cd "$(dirname "$0")/.."
CC=${CC:-cc}
OUT=target/c-tests
if ! command -v "$CC" >/dev/null; then
  echo "c-sanitize: $CC not found; installing gcc"
  apt-get install -y -qq gcc >/dev/null
fi

echo "c-sanitize: building libkpca.a (host, release) and the test models"
cargo build --quiet -p kpca-staticlib --release --target-dir "$OUT"
cargo run --quiet -p kpca-fit --example c_test_models --target-dir "$OUT" -- "$OUT/gen"

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
