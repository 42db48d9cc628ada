//! The first pass of a streamed fit: the row count, the column moments (for
//! the standardisation) and whether the data is one repeated point, as sums
//! that merge.

use crate::data::{Dataset, Standardizer};
use crate::error::FitError;
use std::vec;
use std::vec::Vec;

/// What the first pass learns about the training rows: their number, each
/// column's mean and sum of squared deviations (merged with Chan, Golub and
/// LeVeque's update, so any split gives the two-pass values up to rounding),
/// each column's range, and whether any row differs from the first.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnSurvey {
    d: usize,
    n: usize,
    first: Vec<f64>,
    varies: bool,
    mean: Vec<f64>,
    m2: Vec<f64>,
    min: Vec<f64>,
    max: Vec<f64>,
}

impl ColumnSurvey {
    /// A survey of no rows of `d` features.
    pub fn new(d: usize) -> Self {
        ColumnSurvey {
            d,
            n: 0,
            first: Vec::new(),
            varies: false,
            mean: vec![0.0; d],
            m2: vec![0.0; d],
            min: vec![f64::INFINITY; d],
            max: vec![f64::NEG_INFINITY; d],
        }
    }

    /// Adds the rows of `rows`.
    ///
    /// Errors: [`FitError::FeatureMismatch`]; [`FitError::NonFiniteInput`]
    /// with the row counted from the first row surveyed (nothing added).
    pub fn update(&mut self, rows: &Dataset<'_>) -> Result<(), FitError> {
        rows.check_rows(self.d).map_err(|e| match e {
            FitError::NonFiniteInput { row, column } => FitError::NonFiniteInput {
                row: row + self.n,
                column,
            },
            other => other,
        })?;
        let mut part = ColumnSurvey::new(self.d);
        part.n = rows.n_rows();
        part.first = rows.row(0).map(<[f64]>::to_vec).unwrap_or_default();
        part.varies = rows.rows().any(|r| r != part.first.as_slice());
        let n_f = part.n as f64;
        for r in rows.rows() {
            for (j, &v) in r.iter().enumerate() {
                part.mean[j] += v;
                part.min[j] = part.min[j].min(v);
                part.max[j] = part.max[j].max(v);
            }
        }
        part.mean.iter_mut().for_each(|m| *m /= n_f);
        for r in rows.rows() {
            for ((s, v), m) in part.m2.iter_mut().zip(r).zip(&part.mean) {
                *s += (v - m) * (v - m);
            }
        }
        self.merge(&part)
    }

    /// Adds another part's survey ([`FitError::FeatureMismatch`] for another
    /// number of features).
    pub fn merge(&mut self, other: &ColumnSurvey) -> Result<(), FitError> {
        if other.d != self.d {
            return Err(FitError::FeatureMismatch {
                expected: self.d,
                got: other.d,
            });
        }
        if other.n == 0 {
            return Ok(());
        }
        if self.n == 0 {
            *self = other.clone();
            return Ok(());
        }
        let (na, nb) = (self.n as f64, other.n as f64);
        let n = na + nb;
        for j in 0..self.d {
            let delta = other.mean[j] - self.mean[j];
            self.mean[j] += delta * (nb / n);
            self.m2[j] += other.m2[j] + delta * delta * (na * nb / n);
            self.min[j] = self.min[j].min(other.min[j]);
            self.max[j] = self.max[j].max(other.max[j]);
        }
        self.varies = self.varies || other.varies || self.first != other.first;
        self.n += other.n;
        Ok(())
    }

    /// Rows surveyed.
    pub fn n_rows(&self) -> usize {
        self.n
    }

    /// Number of features d.
    pub fn n_features(&self) -> usize {
        self.d
    }

    /// Whether some row differs from the first.
    pub fn varies(&self) -> bool {
        self.varies
    }

    /// Each column's mean.
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    /// Each column's standard deviation (ddof = 0).
    pub fn std(&self) -> Vec<f64> {
        let n = self.n as f64;
        self.m2.iter().map(|s| (s / n).sqrt()).collect()
    }

    /// The survey as one f64 array: d, n, whether the rows vary, the first
    /// row (zeros before any), then per column mean, sum of squared
    /// deviations, minimum and maximum.
    pub fn to_array(&self) -> Vec<f64> {
        let d = self.d;
        let mut out = vec![d as f64, self.n as f64, f64::from(u8::from(self.varies))];
        if self.first.len() == d {
            out.extend_from_slice(&self.first);
        } else {
            out.extend(std::iter::repeat_n(0.0, d));
        }
        for part in [&self.mean, &self.m2, &self.min, &self.max] {
            out.extend_from_slice(part);
        }
        out
    }

    /// The survey of [`ColumnSurvey::to_array`] ([`FitError::BadParts`]
    /// for an array that is not one).
    pub fn from_array(a: &[f64]) -> Result<Self, FitError> {
        let bad = FitError::BadParts {
            what: "column survey",
        };
        let count = |i: usize| crate::parts::count_at(a, i).ok_or_else(|| bad.clone());
        let (d, n) = (count(0)?, count(1)?);
        if d == 0 || a.len() != 3 + 5 * d || a.get(2).is_some_and(|v| *v != 0.0 && *v != 1.0) {
            return Err(bad);
        }
        let part = |i: usize| a[3 + i * d..3 + (i + 1) * d].to_vec();
        Ok(ColumnSurvey {
            d,
            n,
            first: if n > 0 { part(0) } else { Vec::new() },
            varies: a[2] == 1.0,
            mean: part(1),
            m2: part(2),
            min: part(3),
            max: part(4),
        })
    }

    /// The standardisation (x - mean) / std of these rows;
    /// [`FitError::EmptyData`] before any row, [`FitError::ConstantColumn`]
    /// for a column with one value.
    pub(crate) fn standardizer(&self) -> Result<Standardizer, FitError> {
        if self.n == 0 {
            return Err(FitError::EmptyData);
        }
        let std = self.std();
        let constant = |j: usize| self.min[j] == self.max[j] || std[j].is_nan() || std[j] <= 0.0;
        if let Some(column) = (0..self.d).find(|&j| constant(j)) {
            return Err(FitError::ConstantColumn { column });
        }
        Ok(Standardizer {
            mean: self.mean.clone(),
            std,
        })
    }
}
