//! Shared test helpers: a deterministic generator of random models and an
//! independent f64 implementation of the projection formulas (docs/DESIGN.md §2).
#![allow(dead_code)]

use kpca_core::{Kernel, ModelParts, ModelRef};

/// Deterministic xorshift generator (tests only).
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next_f32(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
    pub fn vec(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| self.next_f32() * scale).collect()
    }
}

/// Bytes in 4-byte-aligned storage, for blobs that are written, mutated or
/// hostile before anything loads them (the one aligned-buffer type of the
/// workspace, from kpca-blob; a validated blob is a [`ModelBlob`]).
pub use kpca_blob::{AlignedBytes, ModelBlob};

/// Owned storage of a model's parts.
#[derive(Clone, Debug)]
pub struct TestModel {
    pub kernel: Kernel,
    pub dim: usize,
    pub k: usize,
    pub standardize: Option<(Vec<f32>, Vec<f32>)>,
    pub points: Vec<f32>,
    pub norms: Vec<f32>,
    pub a: Vec<f32>,
    pub b: Vec<f32>,
    pub c: Vec<f32>,
    pub s: f32,
    pub eigenvalues: Vec<f32>,
    pub threshold: f32,
}

impl TestModel {
    pub fn random(
        kernel: Kernel,
        dim: usize,
        m: usize,
        k: usize,
        standardized: bool,
        seed: u64,
    ) -> TestModel {
        let mut g = Lcg(seed | 1);
        let points = g.vec(m * dim, 1.5);
        let norms = points
            .chunks(dim)
            .map(|z| z.iter().map(|v| v * v).sum())
            .collect();
        let standardize = standardized.then(|| {
            let mean = g.vec(dim, 0.5);
            let inv_std = (0..dim).map(|_| 0.5 + g.next_f32().abs()).collect();
            (mean, inv_std)
        });
        TestModel {
            kernel,
            dim,
            k,
            standardize,
            points,
            norms,
            a: g.vec(m * k, 0.3),
            b: g.vec(k, 0.2),
            c: vec![1.0 / m as f32; m],
            s: 0.4,
            eigenvalues: (0..k).map(|l| (k - l) as f32).collect(),
            threshold: 0.25,
        }
    }

    pub fn parts(&self) -> ModelParts<'_> {
        ModelParts {
            kernel: self.kernel,
            dim: self.dim,
            n_components: self.k,
            standardize: self.standardize.as_ref().map(|(m, s)| (&m[..], &s[..])),
            points: &self.points,
            point_sq_norms: &self.norms,
            a: &self.a,
            b: &self.b,
            c: &self.c,
            s: self.s,
            eigenvalues: &self.eigenvalues,
            threshold: self.threshold,
            fit: kpca_core::FitInfo::NOT_RECORDED,
            linear_map: false,
        }
    }

    pub fn view(&self) -> ModelRef<'_> {
        ModelRef::from_parts(self.parts()).expect("valid test model")
    }

    /// The model's blob, in a 4-byte-aligned buffer (as flash or the
    /// generated C arrays hold it), so it loads in place under Miri too.
    pub fn blob(&self) -> AlignedBytes {
        let view = self.view();
        let mut blob = AlignedBytes::zeroed(view.blob_len());
        let n = view.write_to(&mut blob).expect("write");
        assert_eq!(n, blob.len());
        blob
    }

    /// The model's kernel in f64, straight from its formula.
    pub fn kernel64(&self, x: &[f64], z: &[f64]) -> f64 {
        let dot: f64 = x.iter().zip(z).map(|(a, b)| a * b).sum();
        match self.kernel {
            Kernel::Linear => dot,
            Kernel::Polynomial {
                gamma,
                degree,
                coef0,
            } => (gamma as f64 * dot + coef0 as f64).powi(degree as i32),
            Kernel::Rbf { gamma } => {
                (-(gamma as f64) * x.iter().zip(z).map(|(a, b)| (a - b).powi(2)).sum::<f64>()).exp()
            }
            Kernel::Laplacian { gamma } => {
                (-(gamma as f64) * x.iter().zip(z).map(|(a, b)| (a - b).abs()).sum::<f64>()).exp()
            }
            Kernel::Sigmoid { gamma, coef0 } => (gamma as f64 * dot + coef0 as f64).tanh(),
            Kernel::Cosine => {
                let nx = x.iter().map(|a| a * a).sum::<f64>().sqrt();
                let nz = z.iter().map(|a| a * a).sum::<f64>().sqrt();
                if nx * nz > 0.0 {
                    dot / (nx * nz)
                } else {
                    0.0
                }
            }
        }
    }

    /// (coordinates, anomaly score) in f64 straight from the formulas.
    pub fn reference(&self, x: &[f32]) -> (Vec<f64>, f64) {
        let xs: Vec<f64> = match &self.standardize {
            Some((mean, inv)) => x
                .iter()
                .zip(mean)
                .zip(inv)
                .map(|((&v, &m), &s)| (v as f64 - m as f64) * s as f64)
                .collect(),
            None => x.iter().map(|&v| v as f64).collect(),
        };
        let kx: Vec<f64> = self
            .points
            .chunks(self.dim)
            .map(|z| self.kernel64(&xs, &z.iter().map(|&v| v as f64).collect::<Vec<_>>()))
            .collect();
        let mut y: Vec<f64> = self.b.iter().map(|&v| v as f64).collect();
        for (kv, a_row) in kx.iter().zip(self.a.chunks(self.k)) {
            for (yl, &al) in y.iter_mut().zip(a_row) {
                *yl += kv * al as f64;
            }
        }
        let ck: f64 = kx.iter().zip(&self.c).map(|(a, &b)| a * b as f64).sum();
        let kxx = self.kernel64(&xs, &xs);
        let e = kxx - 2.0 * ck + self.s as f64 - y.iter().map(|v| v * v).sum::<f64>();
        (y, e)
    }
}

/// Every kernel; under Miri one of each evaluation family (inner product,
/// RBF, L1 distance), which is what decides the pointer arithmetic.
pub fn path_kernels() -> Vec<Kernel> {
    if cfg!(miri) {
        vec![
            Kernel::Linear,
            Kernel::Rbf { gamma: 0.25 },
            Kernel::Laplacian { gamma: 0.3 },
        ]
    } else {
        all_kernels()
    }
}

/// Every kernel with typical parameters.
pub fn all_kernels() -> Vec<Kernel> {
    vec![
        Kernel::Linear,
        Kernel::Polynomial {
            gamma: 0.5,
            degree: 3,
            coef0: 1.0,
        },
        Kernel::Rbf { gamma: 0.25 },
        Kernel::Laplacian { gamma: 0.3 },
        Kernel::Sigmoid {
            gamma: 0.1,
            coef0: 0.2,
        },
        Kernel::Cosine,
    ]
}

/// The repository's root directory (where `include/`, `testdata/`, `c-examples/` live).
pub fn repo_root() -> &'static std::path::Path {
    std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Cargo's target directory, where tests put what they build: CARGO_TARGET_DIR
/// when set (a relative one is taken from the repository root, where the
/// README's commands run), else `target/` at the repository root.
pub fn target_dir() -> std::path::PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => repo_root().join(dir),
        _ => repo_root().join("target"),
    }
}

/// The directory of the committed reference fixtures (`testdata/fixtures`).
pub fn fixture_dir() -> std::path::PathBuf {
    repo_root().join("testdata").join("fixtures")
}

/// The environment variable that turns a missing firmware tool from a skip
/// into a failure. The README's test command (`scripts/test-all.sh`, that is
/// `cargo xtask test`, which installs the tools first) sets it to 1.
pub const REQUIRE_FIRMWARE_TOOLS: &str = "KPCA_REQUIRE_FIRMWARE_TOOLS";

/// For a test that needs an external tool (`arm-none-eabi-gcc`,
/// `qemu-system-arm`, ...): whether `tool --version` runs. When it does not,
/// and [`REQUIRE_FIRMWARE_TOOLS`] is `1`, it panics (the test fails);
/// otherwise it prints `SKIPPED <test>: <tool> not found; scripts/test-all.sh
/// installs it` to stderr and returns false, and the test should return.
/// The line is written to the process's stderr directly, not through
/// `eprintln!`, so that a plain `cargo test` shows it (the harness captures
/// only the print macros).
///
/// ```no_run
/// #[test]
/// fn runs_on_the_emulated_m4f() {
///     if !kpca_testkit::require_tool("runs_on_the_emulated_m4f", "qemu-system-arm") {
///         return;
///     }
///     // ...
/// }
/// ```
pub fn require_tool(test: &str, tool: &str) -> bool {
    let found = std::process::Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return true;
    }
    if std::env::var_os(REQUIRE_FIRMWARE_TOOLS).is_some_and(|v| v == "1") {
        panic!(
            "{test}: {tool} not found, and {REQUIRE_FIRMWARE_TOOLS}=1 makes that a failure; \
             scripts/test-all.sh (cargo xtask deps) installs it"
        );
    }
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: {tool} not found; scripts/test-all.sh installs it"
    );
    false
}

/// [`require_tool`] for each of `tools`; false (after one SKIPPED line per
/// missing tool) when any is missing.
pub fn require_tools(test: &str, tools: &[&str]) -> bool {
    let mut all = true;
    for tool in tools {
        // Every tool is checked, so that each missing one is named.
        all &= require_tool(test, tool);
    }
    all
}

/// A deterministic stream of uniform values in [-0.5, 0.5) from `seed` (a
/// 64-bit linear congruential generator: test data, not statistics).
pub fn uniform_stream(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    }
}

// ------------------------------------------------------------ error folds
//
// Every test that folds errors (or the magnitudes that scale them) uses these,
// so that a NaN anywhere reaches the tolerance assertion and fails it.
// `f64::max` and `f64::min` return the other operand for a NaN, so a fold with
// them lets a NaN error read as 0, or be forgotten by the next element.

/// The larger of `a` and `b`; NaN when either is NaN.
pub fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// The smaller of `a` and `b`; NaN when either is NaN.
pub fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// The largest of `values` (0 for none: meant for errors and magnitudes,
/// which are not negative); NaN when any is NaN.
pub fn max_of(values: impl IntoIterator<Item = f64>) -> f64 {
    values.into_iter().fold(0.0, nan_max)
}

/// The largest magnitude of `values` (0 for none); NaN when any is NaN.
pub fn max_abs<'a>(values: impl IntoIterator<Item = &'a f64>) -> f64 {
    max_of(values.into_iter().map(|v| v.abs()))
}

/// `max |got - want| / max |want|`; NaN when any entry of either is NaN.
/// Panics when the lengths differ.
pub fn rel_err(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len(), "lengths differ");
    let err = max_of(got.iter().zip(want).map(|(g, w)| (g - w).abs()));
    err / max_abs(want).max(f64::MIN_POSITIVE)
}

/// [`rel_err`] of each of the `k` columns of two row-major matrices, each
/// against its own column's scale, and the largest of them; NaN when any entry
/// of either is NaN. Panics when the lengths differ.
pub fn col_rel_err(got: &[f64], want: &[f64], k: usize) -> f64 {
    assert_eq!(got.len(), want.len(), "shapes differ");
    let col = |v: &[f64], l: usize| -> Vec<f64> { v.iter().skip(l).step_by(k).copied().collect() };
    max_of((0..k).map(|l| rel_err(&col(got, l), &col(want, l))))
}

/// The strict warning flags every C test compiles with (C99; `-Werror`): the
/// header and the generated model sources must pass them as they are.
pub const STRICT_C_FLAGS: &[&str] = &[
    "-std=c99",
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Werror",
    "-Wdouble-promotion",
    "-Wfloat-conversion",
];

#[cfg(test)]
mod fold_tests {
    use super::*;

    const TOL: f64 = 1e-6;

    /// The check a test writes: a tolerance assertion on the folded error.
    fn within_tolerance(err: f64) -> bool {
        err <= TOL
    }

    #[test]
    fn a_nan_anywhere_makes_the_fold_nan_and_the_tolerance_check_fail() {
        let clean = [0.0, 1e-9, 5e-7, 2e-8];
        assert!(within_tolerance(max_of(clean)));
        for at in 0..clean.len() {
            let mut errs = clean;
            errs[at] = f64::NAN;
            assert!(max_of(errs).is_nan(), "NaN at {at}");
            assert!(!within_tolerance(max_of(errs)), "NaN at {at}");
            // The fault this fold exists for: f64::max forgets the NaN.
            assert!(within_tolerance(errs.iter().copied().fold(0.0, f64::max)));
        }
        assert!(nan_max(f64::NAN, 1.0).is_nan() && nan_max(1.0, f64::NAN).is_nan());
        assert!(nan_min(f64::NAN, 1.0).is_nan() && nan_min(1.0, f64::NAN).is_nan());
        assert_eq!(max_of([]), 0.0);
    }

    #[test]
    fn relative_errors_propagate_a_nan_on_either_side() {
        let want = [1.0, -2.0, 3.0, 4.0];
        let got = [1.0, -2.0, 3.0, 4.0 + 1e-9];
        assert!(within_tolerance(rel_err(&got, &want)));
        assert!(within_tolerance(col_rel_err(&got, &want, 2)));
        for at in 0..want.len() {
            let mut g = got;
            g[at] = f64::NAN;
            assert!(!within_tolerance(rel_err(&g, &want)), "got NaN at {at}");
            assert!(
                !within_tolerance(col_rel_err(&g, &want, 2)),
                "got NaN at {at}"
            );
            let mut w = want;
            w[at] = f64::NAN;
            assert!(!within_tolerance(rel_err(&got, &w)), "want NaN at {at}");
            assert!(
                !within_tolerance(col_rel_err(&got, &w, 2)),
                "want NaN at {at}"
            );
        }
        assert_eq!(rel_err(&[2.0], &[1.0]), 1.0);
        assert_eq!(col_rel_err(&[1.0, 20.0], &[1.0, 10.0], 2), 1.0);
    }
}
