//! The input data of a fit or a transform: a row-major f64 matrix.

use crate::error::FitError;
use crate::kernel::{Kernel64, KernelSpec};
use std::borrow::Cow;
use std::vec;
use std::vec::Vec;

/// Rows of f64 features, row-major, owned or borrowed.
///
/// ```
/// use kpca_fit::Dataset;
/// let a = Dataset::from_rows(vec![vec![1.0, 2.0], vec![3.0, 4.0]])?;
/// let flat = [1.0, 2.0, 3.0, 4.0];
/// let b = Dataset::new(&flat[..], 2)?;
/// assert_eq!(a.n_rows(), 2);
/// assert_eq!(a.values(), b.values());
/// # Ok::<(), kpca_fit::FitError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset<'a> {
    values: Cow<'a, [f64]>,
    n_features: usize,
}

impl<'a> Dataset<'a> {
    /// A dataset over row-major `values` with `n_features` columns. Errors:
    /// [`FitError::EmptyData`] when `n_features` is 0 or there are no values,
    /// [`FitError::Ragged`] when the length is not a multiple of `n_features`.
    /// Values are not checked for finiteness here (fit and transform do that).
    pub fn new(values: impl Into<Cow<'a, [f64]>>, n_features: usize) -> Result<Self, FitError> {
        let values = values.into();
        if n_features == 0 || values.is_empty() {
            return Err(FitError::EmptyData);
        }
        if values.len() % n_features != 0 {
            return Err(FitError::Ragged {
                row: values.len() / n_features,
                len: values.len() % n_features,
                expected: n_features,
            });
        }
        Ok(Dataset { values, n_features })
    }

    /// A dataset from a list of rows, all of the same non-zero length.
    pub fn from_rows(rows: Vec<Vec<f64>>) -> Result<Dataset<'static>, FitError> {
        let n_features = rows.first().map(Vec::len).ok_or(FitError::EmptyData)?;
        if n_features == 0 {
            return Err(FitError::EmptyData);
        }
        let mut values = Vec::with_capacity(rows.len().saturating_mul(n_features));
        for (row, r) in rows.iter().enumerate() {
            if r.len() != n_features {
                return Err(FitError::Ragged {
                    row,
                    len: r.len(),
                    expected: n_features,
                });
            }
            values.extend_from_slice(r);
        }
        Dataset::new(values, n_features)
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.values.len() / self.n_features
    }

    /// Number of features (columns).
    pub fn n_features(&self) -> usize {
        self.n_features
    }

    /// The values, row-major.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Row `i`, if it exists.
    pub fn row(&self, i: usize) -> Option<&[f64]> {
        let d = self.n_features;
        self.values
            .get(i.checked_mul(d)?..i.checked_add(1)?.checked_mul(d)?)
    }

    /// Iterator over the rows.
    pub fn rows(&self) -> std::slice::ChunksExact<'_, f64> {
        self.values.chunks_exact(self.n_features)
    }

    /// [`FitError::FeatureMismatch`] unless the rows have `expected`
    /// features, then [`Dataset::check_finite`]: the check of rows handed to
    /// a fitted model or a fit's later pass.
    pub(crate) fn check_rows(&self, expected: usize) -> Result<(), FitError> {
        if self.n_features != expected {
            return Err(FitError::FeatureMismatch {
                expected,
                got: self.n_features,
            });
        }
        self.check_finite()
    }

    /// [`FitError::NonFiniteInput`] at the first NaN or infinity.
    pub(crate) fn check_finite(&self) -> Result<(), FitError> {
        match self.values.iter().position(|v| !v.is_finite()) {
            Some(at) => Err(FitError::NonFiniteInput {
                row: at / self.n_features,
                column: at % self.n_features,
            }),
            None => Ok(()),
        }
    }
}

/// Per-feature standardisation (x - mean) / std with ddof = 0.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Standardizer {
    pub mean: Vec<f64>,
    pub std: Vec<f64>,
}

impl Standardizer {
    /// Mean and standard deviation (ddof = 0) of each column;
    /// [`FitError::ConstantColumn`] for a column whose values are all equal.
    pub fn from_data(data: &Dataset<'_>) -> Result<Self, FitError> {
        let d = data.n_features();
        let n = data.n_rows() as f64;
        let first = &data.values()[..d];
        for (column, &v0) in first.iter().enumerate() {
            if data.rows().all(|r| r[column] == v0) {
                return Err(FitError::ConstantColumn { column });
            }
        }
        let mut mean = vec![0.0; d];
        for r in data.rows() {
            for (m, v) in mean.iter_mut().zip(r) {
                *m += v;
            }
        }
        for m in &mut mean {
            *m /= n;
        }
        let mut var = vec![0.0; d];
        for r in data.rows() {
            for ((s, v), m) in var.iter_mut().zip(r).zip(&mean) {
                *s += (v - m) * (v - m);
            }
        }
        let std: Vec<f64> = var.iter().map(|s| (s / n).sqrt()).collect();
        if let Some(column) = std.iter().position(|&s| s.is_nan() || s <= 0.0) {
            return Err(FitError::ConstantColumn { column });
        }
        Ok(Standardizer { mean, std })
    }

    /// Standardises row-major values with d = `self.mean.len()` columns.
    pub fn apply_all(&self, values: &[f64]) -> Vec<f64> {
        let d = self.mean.len().max(1);
        values
            .chunks_exact(d)
            .flat_map(|row| {
                row.iter()
                    .zip(&self.mean)
                    .zip(&self.std)
                    .map(|((x, m), s)| (x - m) / s)
            })
            .collect()
    }
}

/// The training data as the fits see it.
#[derive(Debug)]
pub(crate) struct TrainingData {
    /// The (standardised) points, n x d row-major.
    pub z: Vec<f64>,
    /// Number of points n.
    pub n: usize,
    /// Number of features d.
    pub d: usize,
    /// The kernel, gamma resolved for d.
    pub kernel: Kernel64,
    /// The standardisation applied to `z`, when it is on.
    pub standardizer: Option<Standardizer>,
}

impl TrainingData {
    /// Checks the data for a fit of `k` components (finite, n >= k + 1, not
    /// constant; no constant column when standardising), standardises it
    /// when `standardize` is on and resolves the kernel for d.
    pub(crate) fn prepare(
        data: &Dataset<'_>,
        k: usize,
        standardize: bool,
        kernel: &KernelSpec,
    ) -> Result<Self, FitError> {
        let (n, d) = (data.n_rows(), data.n_features());
        data.check_finite()?;
        if n < k.saturating_add(1) {
            return Err(FitError::TooFewPoints {
                n_points: n,
                n_components: k,
            });
        }
        let first = &data.values()[..d];
        if data.rows().all(|r| r == first) {
            return Err(FitError::ConstantData);
        }
        let standardizer = if standardize {
            Some(Standardizer::from_data(data)?)
        } else {
            None
        };
        let z = match &standardizer {
            Some(s) => s.apply_all(data.values()),
            None => data.values().to_vec(),
        };
        Ok(TrainingData {
            z,
            n,
            d,
            kernel: kernel.resolve(d),
            standardizer,
        })
    }
}
