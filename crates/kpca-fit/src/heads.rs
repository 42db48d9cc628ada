//! The optional heads a fitted model carries, as data: the learned pre-image
//! map ([`crate::preimage`] fits and applies it) and the regression head
//! ([`crate::regression`]). Defined here, below both the fitted model that
//! holds them and the modules that fit them; public as
//! `kpca_fit::preimage::PreImageMap` and `kpca_fit::regression::RegressionHead`.

use std::vec::Vec;

/// The learned pre-image map of a fit: the score vectors it regresses from and
/// the dual coefficients, in the fit's input space.
#[derive(Clone, Debug, PartialEq)]
pub struct PreImageMap {
    /// The ridge alpha it was fitted with.
    pub alpha: f64,
    /// Score vectors t_i of the stored points, row-major (rows x k).
    pub scores: Vec<f64>,
    /// Dual coefficients, row-major (rows x d): (K_T + alpha I)^-1 Z.
    pub coef: Vec<f64>,
}

/// A fitted regression head: predictions are `intercept + weights' y`.
#[derive(Clone, Debug, PartialEq)]
pub struct RegressionHead {
    /// W, row-major k x t (component l, target j at l * t + j).
    pub weights: Vec<f64>,
    /// The targets' training means, t.
    pub intercept: Vec<f64>,
}

impl RegressionHead {
    /// Number of targets t.
    pub fn n_targets(&self) -> usize {
        self.intercept.len()
    }
}
