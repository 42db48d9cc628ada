#!/usr/bin/env bash
# Regenerates include/kpca.h from src/capi.rs with the pinned cbindgen.
# Usage: scripts/gen-header.sh [--check]   (--check: fail if the committed header is stale)
set -euo pipefail
CBINDGEN_VERSION=0.29.4
cd "$(dirname "$0")/.."
if ! cbindgen --version 2>/dev/null | grep -q " ${CBINDGEN_VERSION}$"; then
  cargo install cbindgen --version "${CBINDGEN_VERSION}" --locked
fi
out=include/kpca.h
if [ "${1:-}" = "--check" ]; then
  tmp=$(mktemp)
  cbindgen --config crates/kpca-capi/cbindgen.toml --crate kpca-capi --output "$tmp" --quiet
  if ! diff -u "$out" "$tmp"; then
    echo "include/kpca.h is stale: run scripts/gen-header.sh" >&2
    rm -f "$tmp"; exit 1
  fi
  rm -f "$tmp"
else
  cbindgen --config crates/kpca-capi/cbindgen.toml --crate kpca-capi --output "$out" --quiet
fi
