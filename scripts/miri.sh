#!/usr/bin/env bash
# Miri (nightly) over the core's and the C ABI's tests: the library's unit
# tests with the C ABI, tests/capi.rs, tests/core_model.rs, and the hostile
# tests (tests/capi_hostile.rs, tests/numeric_edges.rs, which run fewer cases
# under cfg(miri)). Any undefined behaviour Miri finds fails the script.
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

# Unit tests. Skipped: the three float sweeps of fastmath (millions of
# evaluations of the same code, run natively) and project's path test over
# limits (thousands of projections; the same paths run below on small shapes).
run "unit tests (core, --lib)" -p kpca --features libm/force-soft-floats --lib -- \
  --skip fastmath::tests::relative_error_is_within_the_stated_bound_over_the_normal_range \
  --skip fastmath::tests::exp2_neg_and_exp_neg_are_within_their_stated_bounds \
  --skip fastmath::tests::tanh_is_within_its_absolute_error_bound \
  --skip project::tests::every_path_matches_f64_around_its_limits
SOFT=(--features libm/force-soft-floats)
run "tests/capi.rs" -p kpca-capi -p kpca "${SOFT[@]}" --test capi
# Skipped: two tests that load a Vec<u8> in place, which is 4-byte aligned only
# by the host allocator's grace (Miri gives a u8 allocation any address, and the
# loader then rightly says Misaligned); the exhaustive bit-flip sweep (over 15
# minutes under Miri; tests/capi_hostile.rs sweeps every 37th bit under Miri and
# the C tests every byte natively); the 42-model comparison with the formulas
# (tests/numeric_edges.rs covers every projection path on small shapes).
run "tests/core_model.rs" -p kpca --features libm/force-soft-floats --test core_model -- \
  --skip blob_round_trip_is_exact_and_zero_copy \
  --skip owned_model_is_the_same_model \
  --skip every_single_byte_flip_and_truncation_is_rejected \
  --skip every_kernel_matches_the_f64_formulas
run "tests/capi_hostile.rs" -p kpca-capi -p kpca "${SOFT[@]}" --test capi_hostile
run "tests/numeric_edges.rs" -p kpca --features libm/force-soft-floats --test numeric_edges
echo "miri: no undefined behaviour found"
