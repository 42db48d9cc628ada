//! The input data of a fit or a transform: a row-major f64 matrix.

use super::FitError;
use std::borrow::Cow;
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
