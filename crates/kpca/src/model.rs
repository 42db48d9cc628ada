//! The borrowed model view every projection runs on.

use crate::error::Error;
use crate::kernel::Kernel;

pub use crate::kernel::MAX_DEGREE;

/// Largest input dimension d a model may have.
pub const MAX_DIM: usize = 4096;
/// Largest number of stored points m (training points or landmarks).
pub const MAX_POINTS: usize = 1 << 20;
/// Largest number of components k.
pub const MAX_COMPONENTS: usize = 16;

/// Relative tolerance for the stored squared norms of the points against their
/// recomputation in f32 at load time.
pub(crate) const NORM_CHECK_REL_TOL: f32 = 1e-4;

/// The parts of a model, as slices, before validation. Every matrix is row-major.
///
/// With m stored points, input dimension d and k components:
/// `points` is m x d, `point_sq_norms` is m (‖z_i‖² of each stored point, in the
/// standardised space), `a` is m x k, `b` is k, `c` is m, `eigenvalues` is k;
/// `standardize`, when present, is (per-feature mean, per-feature 1/std), each d.
#[derive(Clone, Copy, Debug)]
pub struct ModelParts<'a> {
    /// Kernel and parameters.
    pub kernel: Kernel,
    /// Input dimension d.
    pub dim: usize,
    /// Number of components k.
    pub n_components: usize,
    /// Optional input standardisation: (mean, 1/std), each of length d.
    pub standardize: Option<(&'a [f32], &'a [f32])>,
    /// Stored points z_1..z_m, row-major m x d (already standardised).
    pub points: &'a [f32],
    /// ‖z_i‖² for each stored point (m).
    pub point_sq_norms: &'a [f32],
    /// Projection matrix A, row-major m x k: y = A' k_x + b.
    pub a: &'a [f32],
    /// Projection offset b (k).
    pub b: &'a [f32],
    /// Centring weights c (m) of the anomaly score.
    pub c: &'a [f32],
    /// The centring constant s of the anomaly score.
    pub s: f32,
    /// The k eigenvalues (score variances times n for full KPCA), for reporting.
    pub eigenvalues: &'a [f32],
    /// Anomaly threshold on the score; 0 means unset.
    pub threshold: f32,
}

/// A validated, borrowed kernel PCA model: the one thing projections run on.
///
/// Build it with [`ModelRef::from_bytes`] (a blob, zero-copy),
/// [`ModelRef::from_parts`] (slices) or [`crate::OwnedModel::as_model_ref`].
/// Validation happens once, there; the per-vector path only checks its inputs.
#[derive(Clone, Copy, Debug)]
pub struct ModelRef<'a> {
    pub(crate) kernel: Kernel,
    pub(crate) dim: usize,
    pub(crate) n_points: usize,
    pub(crate) n_components: usize,
    pub(crate) mean: &'a [f32],
    pub(crate) inv_std: &'a [f32],
    pub(crate) points: &'a [f32],
    pub(crate) point_sq_norms: &'a [f32],
    pub(crate) a: &'a [f32],
    pub(crate) b: &'a [f32],
    pub(crate) c: &'a [f32],
    pub(crate) s: f32,
    pub(crate) eigenvalues: &'a [f32],
    pub(crate) threshold: f32,
}

fn all_finite(values: &[f32]) -> bool {
    values.iter().all(|v| v.is_finite())
}

/// Checks that `d`, `m`, `k` are non-zero and within the stated maxima.
pub(crate) fn check_dims(dim: usize, n_points: usize, n_components: usize) -> Result<(), Error> {
    if dim == 0 || n_points == 0 || n_components == 0 {
        return Err(Error::ZeroDimension);
    }
    if dim > MAX_DIM || n_points > MAX_POINTS || n_components > MAX_COMPONENTS {
        return Err(Error::DimensionTooLarge);
    }
    Ok(())
}

/// The consistency checks of a model whose numbers are finite: 1/std > 0,
/// threshold >= 0 ([`Error::InconsistentModel`]), and each stored squared norm
/// against its point's, recomputed in f32 ([`Error::NonFiniteModel`] if that
/// overflows, [`Error::InconsistentModel`] if it differs by more than
/// [`NORM_CHECK_REL_TOL`]).
pub(crate) fn check_consistency(
    inv_std: &[f32],
    threshold: f32,
    points: &[f32],
    norms: &[f32],
    d: usize,
) -> Result<(), Error> {
    if inv_std.iter().any(|&v| v <= 0.0) || threshold < 0.0 {
        return Err(Error::InconsistentModel);
    }
    for (z, &stored) in points.chunks_exact(d.max(1)).zip(norms) {
        let computed: f32 = z.iter().map(|v| v * v).sum();
        if !computed.is_finite() {
            return Err(Error::NonFiniteModel);
        }
        if libm::fabsf(stored - computed) > NORM_CHECK_REL_TOL * computed + f32::MIN_POSITIVE {
            return Err(Error::InconsistentModel);
        }
    }
    Ok(())
}

impl<'a> ModelRef<'a> {
    /// Validates `parts` and returns the view. Checks, in order: dimensions
    /// (non-zero, within maxima), kernel parameters, slice lengths, finiteness,
    /// 1/std > 0, the stored norms against the points, and the threshold (>= 0).
    pub fn from_parts(parts: ModelParts<'a>) -> Result<ModelRef<'a>, Error> {
        let d = parts.dim;
        let k = parts.n_components;
        let m = parts.c.len();
        check_dims(d, m, k)?;
        parts.kernel.validate()?;
        let (mean, inv_std): (&[f32], &[f32]) = match parts.standardize {
            Some((mean, inv_std)) => (mean, inv_std),
            None => (&[], &[]),
        };
        let lengths_ok = (mean.is_empty() || mean.len() == d)
            && inv_std.len() == mean.len()
            && Some(parts.points.len()) == m.checked_mul(d)
            && parts.point_sq_norms.len() == m
            && Some(parts.a.len()) == m.checked_mul(k)
            && parts.b.len() == k
            && parts.eigenvalues.len() == k;
        if !lengths_ok {
            return Err(Error::PartsLength);
        }
        let finite = [
            mean,
            inv_std,
            parts.points,
            parts.point_sq_norms,
            parts.a,
            parts.b,
            parts.c,
            parts.eigenvalues,
        ]
        .iter()
        .all(|s| all_finite(s))
            && parts.s.is_finite()
            && parts.threshold.is_finite();
        if !finite {
            return Err(Error::NonFiniteModel);
        }
        check_consistency(
            inv_std,
            parts.threshold,
            parts.points,
            parts.point_sq_norms,
            d,
        )?;
        Ok(ModelRef {
            kernel: parts.kernel,
            dim: d,
            n_points: m,
            n_components: k,
            mean,
            inv_std,
            points: parts.points,
            point_sq_norms: parts.point_sq_norms,
            a: parts.a,
            b: parts.b,
            c: parts.c,
            s: parts.s,
            eigenvalues: parts.eigenvalues,
            threshold: parts.threshold,
        })
    }

    /// The parts this view was built from (for serialising or copying).
    pub fn parts(&self) -> ModelParts<'a> {
        ModelParts {
            kernel: self.kernel,
            dim: self.dim,
            n_components: self.n_components,
            standardize: if self.mean.is_empty() {
                None
            } else {
                Some((self.mean, self.inv_std))
            },
            points: self.points,
            point_sq_norms: self.point_sq_norms,
            a: self.a,
            b: self.b,
            c: self.c,
            s: self.s,
            eigenvalues: self.eigenvalues,
            threshold: self.threshold,
        }
    }

    /// Kernel and parameters.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }
    /// Input dimension d.
    pub fn dim(&self) -> usize {
        self.dim
    }
    /// Number of stored points m (training points or Nyström landmarks).
    pub fn n_points(&self) -> usize {
        self.n_points
    }
    /// Number of components k.
    pub fn n_components(&self) -> usize {
        self.n_components
    }
    /// Whether inputs are standardised with a stored mean and 1/std.
    pub fn is_standardized(&self) -> bool {
        !self.mean.is_empty()
    }
    /// The anomaly threshold (0 when unset).
    pub fn threshold(&self) -> f32 {
        self.threshold
    }
    /// The k eigenvalues stored for reporting.
    pub fn eigenvalues(&self) -> &'a [f32] {
        self.eigenvalues
    }
}
