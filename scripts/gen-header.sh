#!/usr/bin/env bash
# Regenerates include/kpca.h from crates/kpca-capi/src with the pinned cbindgen
# (installed with `cargo install` when missing; the same version as kpca-capi's
# dev-dependency, which tests/header.rs compares with). First regenerates
# crates/kpca-capi/src/status.rs, the KPCA_ERR_* constants cbindgen reads, from
# the core's status table (crates/kpca-core/src/error.rs): cbindgen does not
# expand the table's macro.
# Usage: scripts/gen-header.sh [--check]   (--check: fail if the committed header is stale)
# Also `cargo xtask header` (`cargo xtask header --check` runs that test instead,
# with no cbindgen binary to install).
set -euo pipefail
CBINDGEN_VERSION=0.29.4
. "$(dirname "$0")/common.sh"
if ! cbindgen --version 2>/dev/null | grep -q " ${CBINDGEN_VERSION}$"; then
  cargo install cbindgen --version "${CBINDGEN_VERSION}" --locked
fi
out=include/kpca.h
if [ "${1:-}" = "--check" ]; then
  cargo test --quiet -p kpca-capi --test header -- --exact status_constants_are_current
  tmp=$(mktemp)
  cbindgen --config crates/kpca-capi/cbindgen.toml --crate kpca-capi --output "$tmp" --quiet
  if ! diff -u "$out" "$tmp"; then
    echo "include/kpca.h is stale: run scripts/gen-header.sh" >&2
    rm -f "$tmp"; exit 1
  fi
  rm -f "$tmp"
else
  KPCA_BLESS=1 cargo test --quiet -p kpca-capi --test header -- --exact status_constants_are_current
  cbindgen --config crates/kpca-capi/cbindgen.toml --crate kpca-capi --output "$out" --quiet
fi
