# Sourced by scripts/miri.sh and scripts/fuzz-smoke.sh (run from the repo root).

# Installs the nightly toolchain when `cargo +nightly` does not run.
#   need_nightly LABEL
need_nightly() {
  if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "$1: installing the nightly toolchain"
    rustup toolchain install nightly --profile minimal
  fi
}

# Prints the build directory NAME of the hostile-input runs: kept out of the
# clone, so that later runs from the same directory only rebuild kpca, and
# keyed by the clone's absolute path, because cargo-miri runs each test from the
# directory it was built in (a directory shared between clones, as an earlier
# version had, ran tests from a directory that was gone). Each key directory
# records its clone's path; those of clones that no longer exist are removed
# (about 2 GB each, so that repeated fresh clones do not fill the disk).
# KPCA_HOSTILE_CACHE overrides the root (default ~/.cache/kpca-hostile).
#   hostile_cache NAME
hostile_cache() {
  local root here key dir
  root=${KPCA_HOSTILE_CACHE:-$HOME/.cache/kpca-hostile}
  here=$(pwd -P)
  key=$(printf '%s\n' "$here" | sha256sum | cut -c1-16)
  for dir in "$root"/*/; do
    [[ -f "$dir/clone-path" ]] || continue
    [[ -d "$(cat "$dir/clone-path")" ]] || rm -rf "$dir"
  done
  mkdir -p "$root/$key"
  printf '%s\n' "$here" > "$root/$key/clone-path"
  echo "$root/$key/$1"
}
