//! Kernels in f64 for the fit (scikit-learn's definitions, names and defaults) and
//! the blocked, parallel kernel-matrix builders.

use super::FitError;
use crate::kernel::{Kernel, MAX_DEGREE};
use rayon::prelude::*;
use std::vec;
use std::vec::Vec;

/// Columns (or rows) of a kernel matrix computed per parallel task.
pub(crate) const KERNEL_BLOCK: usize = 16;

/// The kernel families, with scikit-learn's names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelKind {
    /// `"linear"`: x'z.
    Linear,
    /// `"poly"`: (gamma x'z + coef0)^degree.
    Poly,
    /// `"rbf"`: exp(-gamma ‖x - z‖²).
    Rbf,
    /// `"laplacian"`: exp(-gamma ‖x - z‖₁).
    Laplacian,
    /// `"sigmoid"`: tanh(gamma x'z + coef0) (indefinite).
    Sigmoid,
    /// `"cosine"`: x'z / (‖x‖ ‖z‖), 0 when either norm is 0.
    Cosine,
}

impl KernelKind {
    /// scikit-learn's name.
    pub const fn name(self) -> &'static str {
        match self {
            KernelKind::Linear => "linear",
            KernelKind::Poly => "poly",
            KernelKind::Rbf => "rbf",
            KernelKind::Laplacian => "laplacian",
            KernelKind::Sigmoid => "sigmoid",
            KernelKind::Cosine => "cosine",
        }
    }

    /// The kind with this scikit-learn name (`"polynomial"` is accepted for `"poly"`).
    pub fn from_name(name: &str) -> Option<KernelKind> {
        Some(match name {
            "linear" => KernelKind::Linear,
            "poly" | "polynomial" => KernelKind::Poly,
            "rbf" => KernelKind::Rbf,
            "laplacian" => KernelKind::Laplacian,
            "sigmoid" => KernelKind::Sigmoid,
            "cosine" => KernelKind::Cosine,
            _ => return None,
        })
    }

    /// Whether the kernel has a gamma parameter.
    pub const fn uses_gamma(self) -> bool {
        matches!(
            self,
            KernelKind::Poly | KernelKind::Rbf | KernelKind::Laplacian | KernelKind::Sigmoid
        )
    }
}

/// A kernel and its parameters as given to the fit, with scikit-learn's defaults:
/// gamma `None` means 1/d (d = number of input features), degree 3, coef0 1.
///
/// ```
/// use kpca::fit::{KernelKind, KernelSpec};
/// let k = KernelSpec::rbf(0.5);
/// assert_eq!(k.gamma, Some(0.5));
/// let d = KernelSpec::rbf(None); // gamma = 1/d at fit time
/// assert_eq!(d.gamma, None);
/// let p = KernelSpec::from_name("poly").unwrap();
/// assert_eq!((p.kind, p.degree, p.coef0), (KernelKind::Poly, 3, 1.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelSpec {
    /// Kernel family.
    pub kind: KernelKind,
    /// gamma, or `None` for 1/d. Ignored by linear and cosine.
    pub gamma: Option<f64>,
    /// Polynomial degree (poly only), 1..=[`MAX_DEGREE`].
    pub degree: u32,
    /// Additive constant (poly and sigmoid).
    pub coef0: f64,
}

impl Default for KernelSpec {
    /// scikit-learn's `KernelPCA` default kernel is linear.
    fn default() -> Self {
        KernelSpec::linear()
    }
}

impl KernelSpec {
    /// A kernel of this kind with scikit-learn's defaults (gamma 1/d, degree 3, coef0 1).
    pub const fn new(kind: KernelKind) -> Self {
        KernelSpec {
            kind,
            gamma: None,
            degree: 3,
            coef0: 1.0,
        }
    }
    /// The kernel with this scikit-learn name, with default parameters.
    pub fn from_name(name: &str) -> Option<Self> {
        KernelKind::from_name(name).map(KernelSpec::new)
    }
    /// x'z.
    pub const fn linear() -> Self {
        KernelSpec::new(KernelKind::Linear)
    }
    /// x'z / (‖x‖ ‖z‖).
    pub const fn cosine() -> Self {
        KernelSpec::new(KernelKind::Cosine)
    }
    /// exp(-gamma ‖x - z‖²); `None` for gamma = 1/d.
    pub fn rbf(gamma: impl Into<Option<f64>>) -> Self {
        KernelSpec::new(KernelKind::Rbf).with_gamma(gamma)
    }
    /// exp(-gamma ‖x - z‖₁); `None` for gamma = 1/d.
    pub fn laplacian(gamma: impl Into<Option<f64>>) -> Self {
        KernelSpec::new(KernelKind::Laplacian).with_gamma(gamma)
    }
    /// (gamma x'z + coef0)^degree; `None` for gamma = 1/d.
    pub fn poly(gamma: impl Into<Option<f64>>, degree: u32, coef0: f64) -> Self {
        KernelSpec {
            kind: KernelKind::Poly,
            gamma: gamma.into(),
            degree,
            coef0,
        }
    }
    /// tanh(gamma x'z + coef0); `None` for gamma = 1/d.
    pub fn sigmoid(gamma: impl Into<Option<f64>>, coef0: f64) -> Self {
        KernelSpec {
            kind: KernelKind::Sigmoid,
            gamma: gamma.into(),
            degree: 3,
            coef0,
        }
    }
    /// The same kernel with another gamma.
    pub fn with_gamma(mut self, gamma: impl Into<Option<f64>>) -> Self {
        self.gamma = gamma.into();
        self
    }

    /// Checks the parameters that do not depend on the data.
    pub(crate) fn check(&self) -> Result<(), FitError> {
        if self.kind.uses_gamma() {
            if let Some(g) = self.gamma {
                if !(g.is_finite() && g > 0.0) {
                    return Err(FitError::BadGamma(g));
                }
            }
        }
        if self.kind == KernelKind::Poly && (self.degree == 0 || self.degree > MAX_DEGREE) {
            return Err(FitError::BadDegree(self.degree));
        }
        if matches!(self.kind, KernelKind::Poly | KernelKind::Sigmoid) && !self.coef0.is_finite() {
            return Err(FitError::BadCoef0(self.coef0));
        }
        Ok(())
    }

    /// The kernel with gamma fixed for `n_features` inputs.
    pub(crate) fn resolve(&self, n_features: usize) -> Result<Kernel64, FitError> {
        self.check()?;
        let gamma = if self.kind.uses_gamma() {
            match self.gamma {
                Some(g) => g,
                None => 1.0 / n_features.max(1) as f64,
            }
        } else {
            0.0
        };
        Ok(Kernel64 {
            kind: self.kind,
            gamma,
            degree: if self.kind == KernelKind::Poly {
                self.degree
            } else {
                0
            },
            coef0: if matches!(self.kind, KernelKind::Poly | KernelKind::Sigmoid) {
                self.coef0
            } else {
                0.0
            },
        })
    }
}

/// A kernel with all parameters fixed, evaluated in f64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Kernel64 {
    pub kind: KernelKind,
    pub gamma: f64,
    pub degree: u32,
    pub coef0: f64,
}

#[inline]
fn dot(x: &[f64], z: &[f64]) -> f64 {
    x.iter().zip(z).map(|(a, b)| a * b).sum()
}

impl Kernel64 {
    /// As the user-facing spec (gamma resolved).
    pub fn spec(&self) -> KernelSpec {
        KernelSpec {
            kind: self.kind,
            gamma: if self.kind.uses_gamma() {
                Some(self.gamma)
            } else {
                None
            },
            degree: if self.kind == KernelKind::Poly {
                self.degree
            } else {
                3
            },
            coef0: if matches!(self.kind, KernelKind::Poly | KernelKind::Sigmoid) {
                self.coef0
            } else {
                1.0
            },
        }
    }

    /// The device kernel (parameters rounded to f32).
    pub fn to_device(self) -> Result<Kernel, FitError> {
        let gamma = self.gamma as f32;
        let coef0 = self.coef0 as f32;
        let kernel = match self.kind {
            KernelKind::Linear => Kernel::Linear,
            KernelKind::Poly => Kernel::Polynomial {
                gamma,
                degree: self.degree,
                coef0,
            },
            KernelKind::Rbf => Kernel::Rbf { gamma },
            KernelKind::Laplacian => Kernel::Laplacian { gamma },
            KernelKind::Sigmoid => Kernel::Sigmoid { gamma, coef0 },
            KernelKind::Cosine => Kernel::Cosine,
        };
        kernel.validate().map_err(|source| FitError::Device {
            what: "kernel parameters in f32",
            source,
        })?;
        Ok(kernel)
    }

    /// k(x, z) given ‖x‖² and ‖z‖² (used by cosine only).
    #[inline]
    pub fn eval(&self, x: &[f64], z: &[f64], sq_x: f64, sq_z: f64) -> f64 {
        match self.kind {
            KernelKind::Linear => dot(x, z),
            KernelKind::Poly => (self.gamma * dot(x, z) + self.coef0).powi(self.degree as i32),
            KernelKind::Rbf => {
                let d2: f64 = x.iter().zip(z).map(|(a, b)| (a - b) * (a - b)).sum();
                (-self.gamma * d2).exp()
            }
            KernelKind::Laplacian => {
                let d1: f64 = x.iter().zip(z).map(|(a, b)| (a - b).abs()).sum();
                (-self.gamma * d1).exp()
            }
            KernelKind::Sigmoid => (self.gamma * dot(x, z) + self.coef0).tanh(),
            KernelKind::Cosine => {
                let denom = sq_x.sqrt() * sq_z.sqrt();
                if denom > 0.0 {
                    dot(x, z) / denom
                } else {
                    0.0
                }
            }
        }
    }

    /// k(x, x) given ‖x‖².
    #[inline]
    pub fn self_eval(&self, sq_x: f64) -> f64 {
        match self.kind {
            KernelKind::Rbf | KernelKind::Laplacian => 1.0,
            KernelKind::Linear => sq_x,
            KernelKind::Poly => (self.gamma * sq_x + self.coef0).powi(self.degree as i32),
            KernelKind::Sigmoid => (self.gamma * sq_x + self.coef0).tanh(),
            KernelKind::Cosine => {
                if sq_x > 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }
}

/// Squared norms of the rows of a row-major matrix with `d` columns.
pub(crate) fn sq_norms(rows: &[f64], d: usize) -> Vec<f64> {
    rows.chunks_exact(d).map(|r| dot(r, r)).collect()
}

/// The kernel values of every row of `xs` against every row of `points`, as a
/// column-major (points x rows) buffer: column i holds k(points_j, x_i) for all j.
/// Computed in parallel blocks of [`KERNEL_BLOCK`] columns. [`FitError::NonFiniteKernel`]
/// if any value is not finite.
pub(crate) fn cross_kernel(
    kernel: &Kernel64,
    points: &[f64],
    point_sq: &[f64],
    xs: &[f64],
    d: usize,
) -> Result<Vec<f64>, FitError> {
    let m = point_sq.len();
    let n = xs.len() / d.max(1);
    let mut out = vec![0.0; m * n];
    if m == 0 {
        return Ok(out);
    }
    out.par_chunks_mut(m * KERNEL_BLOCK)
        .zip(xs.par_chunks(d * KERNEL_BLOCK))
        .for_each(|(cols, x_block)| {
            for (col, x) in cols.chunks_exact_mut(m).zip(x_block.chunks_exact(d)) {
                let sq_x = dot(x, x);
                for ((o, z), &sq_z) in col.iter_mut().zip(points.chunks_exact(d)).zip(point_sq) {
                    *o = kernel.eval(z, x, sq_z, sq_x);
                }
            }
        });
    if out.iter().all(|v| v.is_finite()) {
        Ok(out)
    } else {
        Err(FitError::NonFiniteKernel)
    }
}
