#!/usr/bin/env bash
# Adds kpca to two fresh crates outside the repository, as a user does with
# `cargo add kpca --path ...`, and builds them:
#   1. a `#![no_std]` library for thumbv7em-none-eabihf with plain `kpca`: it
#      projects a model blob; the fit (kpca-fit and its dependencies) must not
#      be in its dependency graph;
#   2. a host program with `kpca` and features = ["std"]: it fits Nystrom
#      kernel PCA on data/basicmotions.csv through `kpca::fit`, exports the
#      model as a blob and as C through `kpca::export`, loads the blob with
#      `kpca::ModelRef` and checks the device's score against the fit's.
#
#   scripts/fresh-crate.sh
#
# Run by `cargo xtask test examples` (the examples step of the test command).
set -euo pipefail
. "$(dirname "$0")/common.sh"
need_tools fresh-crate cargo
rustup target add thumbv7em-none-eabihf >/dev/null 2>&1 || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The fresh crates share the repository's target directory (no second build
# of the dependencies) but are not members of its workspace.
export CARGO_TARGET_DIR=$TARGET_DIR/fresh-crates

echo "== a fresh no_std library with kpca (thumbv7em-none-eabihf)"
(cd "$tmp" && cargo new -q --lib --vcs none device)
(cd "$tmp/device" && cargo add -q kpca --path "$ROOT")
cat >"$tmp/device/src/lib.rs" <<'EOF'
//! A firmware's view of kpca: a blob in flash, one call per sensor vector.
#![no_std]

/// Anomaly score of `x` under the model `blob`, or the error's code.
pub fn score(blob: &[u8], x: &[f32]) -> Result<f32, i32> {
    let model = kpca::ModelRef::from_bytes(blob).map_err(|e| e.code())?;
    let mut y = [0.0f32; kpca::MAX_COMPONENTS];
    let k = model.n_components();
    model
        .project_and_score(x, &mut y[..k])
        .map_err(|e| e.code())
}
EOF
(cd "$tmp/device" && cargo build -q --release --target thumbv7em-none-eabihf)
if (cd "$tmp/device" && cargo tree -q -e normal --target thumbv7em-none-eabihf) | grep -q "kpca-fit"; then
  echo "fresh-crate: FAIL: kpca without features brings kpca-fit" >&2
  exit 1
fi
echo "built; its dependencies: $(cd "$tmp/device" && cargo tree -q -e normal --prefix none \
  --target thumbv7em-none-eabihf | awk '{print $1}' | sort -u | tr '\n' ' ')"

echo "== a fresh host program with kpca, features = [\"std\"]"
(cd "$tmp" && cargo new -q --bin --vcs none host)
(cd "$tmp/host" && cargo add -q kpca --path "$ROOT" --features std)
cat >"$tmp/host/src/main.rs" <<'EOF'
//! Fit on the host, export, and run the device code on the exported blob.
use kpca::fit::{Dataset, KernelPca, KernelSpec, Nystrom};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: host DATA.csv")?;
    let text = std::fs::read_to_string(&path)?;
    // case,split,label,t,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z: the Walking rows.
    let mut rows = Vec::new();
    for line in text.lines().skip(1).filter(|l| l.contains(",Walking,")) {
        let v: Result<Vec<f64>, _> = line.split(',').skip(4).map(str::parse).collect();
        rows.push(v?);
    }
    let data = Dataset::from_rows(rows.clone())?;
    let fitted = KernelPca::params()
        .kernel(KernelSpec::rbf(1.0 / 6.0))
        .n_components(4)
        .standardize(true)
        .nystrom(Nystrom::random(64, 7))
        .fit(&data)?;
    // The device model, validated once when written; its view is O(1).
    let blob = fitted.to_blob()?;
    let (header, source) = kpca::export::c_source(&blob, "walking", &fitted.export_info())?;
    // The device path over the same bytes, as firmware reads them from flash.
    let bytes = kpca::fit::AlignedBytes::from_bytes(blob.as_bytes());
    let model = kpca::ModelRef::from_bytes(bytes.as_bytes())?;
    let x: Vec<f32> = rows[0].iter().map(|&v| v as f32).collect();
    let mut y = [0.0f32; 4];
    let device = model.project_and_score(&x, &mut y)?;
    let (_, host) = fitted.transform_and_score(&Dataset::from_rows(vec![rows[0].clone()])?)?;
    let rel = (f64::from(device) - host[0]).abs() / host[0].abs().max(1e-12);
    println!(
        "fitted {} rows; blob {} bytes; C {} + {} bytes; score device {device:.6} host {:.6} (rel {rel:.1e})",
        data.n_rows(),
        blob.len(),
        header.len(),
        source.len(),
        host[0]
    );
    if !(rel <= 1e-3) {
        return Err(format!("device and host scores differ: {rel:e}").into());
    }
    Ok(())
}
EOF
(cd "$tmp/host" && cargo run -q -- "$ROOT/data/basicmotions.csv")
echo "fresh-crate: both crates built and ran"
