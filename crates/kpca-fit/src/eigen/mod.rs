//! Symmetric eigensolvers, by method:
//!
//! - [`dense`]: every eigenvalue and the top k eigenvectors of an n x n matrix
//!   (faer's Householder tridiagonalisation, then [`tridiagonal`]), and every
//!   eigenpair of the small m x m matrices of the Nyström fit;
//! - [`tridiagonal`]: eigenvalues (implicit QL) and selected eigenvectors (inverse
//!   iteration) of a symmetric tridiagonal matrix;
//! - [`lanczos`]: the top k eigenpairs of a matrix known only by its products
//!   (thick-restart block Lanczos with full reorthogonalisation).

pub(crate) mod dense;
pub(crate) mod lanczos;
pub(crate) mod tridiagonal;

pub(crate) use dense::{dense_top, full_evd};
pub(crate) use lanczos::{lanczos_top, IterOptions};

use std::vec::Vec;

/// Seed of the solvers' random vectors (the Lanczos starting block, the vectors
/// that replace an exhausted Krylov space, the starts of inverse iteration), so
/// that fits are reproducible.
const SEED: u64 = 0x6B70_6361_4C61_6E63;

/// The top eigenpairs of a symmetric matrix, largest eigenvalue first.
#[derive(Debug)]
pub(crate) struct TopEigen {
    /// The k largest eigenvalues, descending.
    pub values: Vec<f64>,
    /// Unit eigenvectors as the columns of an n x k column-major buffer (signs
    /// not yet fixed).
    pub vectors: Vec<f64>,
    /// Every eigenvalue, descending, when the solver computed them all (dense).
    pub all_values: Option<Vec<f64>>,
    /// Matrix-vector products done (iterative) or 0 (dense).
    pub matvecs: usize,
    /// Largest relative residual ‖K v - mu v‖ / ‖K‖ of the kept pairs (iterative), or 0.
    pub max_residual: f64,
}

/// Indices that sort `values` descending (NaN last; stable).
pub(crate) fn descending_order(values: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
    order
}
