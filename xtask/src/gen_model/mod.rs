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
mod rust_fw;

use kpca_core::Kernel;

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

/// xorshift64, uniform on [-1, 1) (the generators' data; fixed seeds, so the
/// files are the same on every run).
pub(crate) struct Xorshift(pub u64);

impl Xorshift {
    pub fn uniform(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
    pub fn vec(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| scale * self.uniform()).collect()
    }
}

/// `KERNEL M D K OUT_DIR` of `bench` and `rust-fw`.
pub(crate) struct ShapeArgs<'a> {
    pub kernel_name: &'a str,
    pub kernel: Kernel,
    pub m: usize,
    pub d: usize,
    pub k: usize,
    pub out: &'a std::path::Path,
}

pub(crate) fn shape_args<'a>(kind: &str, args: &'a [String]) -> Result<ShapeArgs<'a>, String> {
    let [kernel_name, m, d, k, out] = args else {
        return Err(format!(
            "usage: cargo xtask gen-model {kind} KERNEL M D K OUT_DIR"
        ));
    };
    let number = |s: &str| -> Result<usize, String> {
        s.parse()
            .map_err(|_| format!("gen-model {kind}: bad number {s:?}"))
    };
    let (m, d, k) = (number(m)?, number(d)?, number(k)?);
    if d == 0 {
        return Err(format!("gen-model {kind}: D must be at least 1"));
    }
    let gamma = 1.0 / d as f32;
    let kernel = match kernel_name.as_str() {
        "linear" => Kernel::Linear,
        "poly" => Kernel::Polynomial {
            gamma,
            degree: 3,
            coef0: 1.0,
        },
        "rbf" => Kernel::Rbf { gamma },
        "laplacian" => Kernel::Laplacian { gamma },
        "sigmoid" => Kernel::Sigmoid { gamma, coef0: 0.0 },
        "cosine" => Kernel::Cosine,
        other => return Err(format!("gen-model {kind}: unknown kernel {other:?}")),
    };
    Ok(ShapeArgs {
        kernel_name,
        kernel,
        m,
        d,
        k,
        out: std::path::Path::new(out),
    })
}

pub(crate) fn write(path: &std::path::Path, contents: impl AsRef<[u8]>) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, contents).map_err(|e| format!("{}: {e}", path.display()))
}
