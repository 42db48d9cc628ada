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
