//! `cargo xtask gen-model`: synthetic, valid models with test vectors and the
//! host's f32 results, written as C or binary files for the firmware and C
//! tests. They were `cargo run -p kpca-fit --example ...` before; they need
//! only the core (`kpca`), not the fit.
//!
//! | kind      | writes                                             | used by |
//! |-----------|----------------------------------------------------|---------|
//! | `bench`   | `bench_model.{h,c}`: blob (with a pre-image section and a regression head), 16 vectors, results | scripts/firmware-cost.sh, scripts/link-check.sh |
//! | `c-tests` | `c_test_models.{h,c}`: ten blobs, vectors, results, status texts | scripts/c-sanitize.sh |
//! | `rust-fw` | `model.kpca`, `xs.bin`, `expected.bin`, `dims.rs`  | firmware/rust-m4f (`cargo xtask firmware rust`) |
//! | `clib`    | `model.{kpca,h,c}`, `vectors.{csv,h,c}`, `expected.csv` (f64) | scripts/clib-test.sh |

mod bench;
mod c_tests;
mod clib;
mod common;
mod rust_fw;

pub const USAGE: &str = "\
cargo xtask gen-model bench   KERNEL M D K OUT_DIR   C model + 16 vectors + host results (bench_model.{h,c})
cargo xtask gen-model c-tests OUT_DIR                the C status tests' models (c_test_models.{h,c})
cargo xtask gen-model rust-fw KERNEL M D K OUT_DIR   the Rust firmware's model.kpca, xs.bin, expected.bin, dims.rs
cargo xtask gen-model clib    KERNEL M D K OUT_DIR   the C library tests' model.{kpca,h,c}, vectors.{csv,h,c}, expected.csv (f64)
KERNEL: linear, poly, rbf, laplacian, sigmoid, cosine (gamma = 1/D; poly degree 3, coef0 1)";

pub fn run(args: &[String]) -> Result<(), String> {
    let (kind, rest) = args
        .split_first()
        .ok_or_else(|| format!("gen-model: which kind?\n{USAGE}"))?;
    match kind.as_str() {
        "bench" => bench::run(rest),
        "c-tests" => c_tests::run(rest),
        "rust-fw" => rust_fw::run(rest),
        "clib" => clib::run(rest),
        other => Err(format!("gen-model: unknown kind {other:?}\n{USAGE}")),
    }
}
