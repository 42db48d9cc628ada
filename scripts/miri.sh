#!/usr/bin/env bash
# Miri (nightly) over the core's and the C ABI's tests: the unit tests,
# kpca/tests/core_model.rs, kpca/tests/numeric_edges.rs,
# kpca-capi/tests/capi.rs and kpca-capi/tests/capi_hostile.rs, every test with
# no --skip (their long sweeps take a sample under cfg(miri)). Any undefined
# behaviour Miri finds fails the script.
# Step "miri" of `cargo xtask test`; also `cargo xtask miri`. Selection and
# timings in TESTING.md.
#
# libm's x86_64 sqrtf is inline assembly, which Miri cannot run; its
# force-soft-floats feature selects the portable (also correctly rounded) code
# for these runs only. libm is a dependency of kpca, not of kpca-capi: the C
# ABI's runs name both packages so that `--features libm/force-soft-floats`
# applies (cargo unifies it into the kpca the C ABI tests link).
set -euo pipefail
. "$(dirname "$0")/common.sh"
need_nightly miri
if ! cargo +nightly miri --version >/dev/null 2>&1; then
  echo "miri: adding the miri and rust-src components to the nightly toolchain"
  rustup component add --toolchain nightly miri rust-src
fi
cargo +nightly miri setup >/dev/null 2>&1 || cargo +nightly miri setup
TDIR=${KPCA_MIRI_TARGET:-$(hostile_cache miri-target)}
# Miri's own checks: Stacked Borrows (default), alignment, uninitialised
# memory, data races between the test threads, leaks.
export MIRIFLAGS=${MIRIFLAGS:-}

run() { # label, cargo miri test arguments...
  local label=$1 t0=$SECONDS
  shift
  echo "miri: $label"
  cargo +nightly miri test --quiet --target-dir "$TDIR" "$@"
  echo "miri: $label: $((SECONDS - t0)) s"
}

# Every test runs; the long sweeps (float functions over millions of
# arguments, every bit of a blob, every projection path) visit a sample of
# their points under Miri (`cfg!(miri)` in the tests).
# Both crates are selected in every run so that libm's feature reaches the C
# ABI's tests too.
SEL=(-p kpca -p kpca-capi --features libm/force-soft-floats)
run "unit tests (core and C ABI, --lib)" "${SEL[@]}" --lib
run "kpca/tests/core_model.rs" "${SEL[@]}" --test core_model
run "kpca/tests/numeric_edges.rs" "${SEL[@]}" --test numeric_edges
run "kpca-capi/tests/capi.rs" "${SEL[@]}" --test capi
run "kpca-capi/tests/capi_hostile.rs" "${SEL[@]}" --test capi_hostile
echo "miri: no undefined behaviour found"
