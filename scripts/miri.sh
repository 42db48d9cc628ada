#!/usr/bin/env bash
# Miri (nightly) over the core's and the C ABI's tests: the unit tests,
# kpca-core/tests/core_model.rs, kpca-core/tests/numeric_edges.rs, kpca-core/tests/old_formats.rs,
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
export MIRIFLAGS=${MIRIFLAGS:-}

run() { # target dir, label, cargo miri test arguments...
  local tdir=$1 label=$2 t0=$SECONDS
  shift 2
  echo "miri: $label"
  cargo +nightly miri test --quiet --target-dir "$tdir" "$@"
  echo "miri: $label: $((SECONDS - t0)) s"
}

SEL=(-p kpca-core -p kpca-capi --features libm/force-soft-floats)
# Two groups of about the same length, one per core, each in its own target
# directory (cargo holds a target directory's lock while its tests run).
group_a() {
  run "$TDIR" "unit tests (core and C ABI, --lib)" "${SEL[@]}" --lib &&
    run "$TDIR" "kpca-capi/tests/capi.rs" "${SEL[@]}" --test capi &&
    run "$TDIR" "kpca-capi/tests/capi_hostile.rs" "${SEL[@]}" --test capi_hostile &&
    run "$TDIR" "kpca-core/tests/old_formats.rs" "${SEL[@]}" --test old_formats
}
group_b() {
  run "$TDIR-b" "kpca-core/tests/core_model.rs" "${SEL[@]}" --test core_model &&
    run "$TDIR-b" "kpca-core/tests/numeric_edges.rs" "${SEL[@]}" --test numeric_edges &&
    run "$TDIR-b" "kpca-core/tests/learn.rs" "${SEL[@]}" --test learn
}
log_a=$(mktemp); trap 'rm -f "$log_a"' EXIT
group_a >"$log_a" 2>&1 &
pid_a=$!
status_b=0
group_b || status_b=$?
status_a=0
wait "$pid_a" || status_a=$?
cat "$log_a"
if [ "$status_a" -ne 0 ] || [ "$status_b" -ne 0 ]; then
  echo "miri: FAILED (group a: exit $status_a, group b: exit $status_b)" >&2
  exit 1
fi
echo "miri: no undefined behaviour found"
