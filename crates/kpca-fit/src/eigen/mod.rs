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

use nalgebra::DMatrix;
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
    /// Unit eigenvectors as the columns of an n x k matrix (signs not yet fixed).
    pub vectors: DMatrix<f64>,
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

/// scikit-learn's sign rule (`svd_flip`, decision on u): each column is multiplied
/// by the sign of its entry of largest absolute value (the first such entry on a
/// tie), so that entry is positive. Returns the +1/-1 factor of each column.
pub(crate) fn sign_flip_columns(m: &mut DMatrix<f64>) -> Vec<f64> {
    let mut signs = Vec::with_capacity(m.ncols());
    for mut col in m.column_iter_mut() {
        let mut best = 0.0f64;
        let mut sign = 1.0;
        for &v in col.iter() {
            if v.abs() > best {
                best = v.abs();
                sign = if v < 0.0 { -1.0 } else { 1.0 };
            }
        }
        if sign < 0.0 {
            col.neg_mut();
        }
        signs.push(sign);
    }
    signs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_rule_makes_largest_entry_positive() {
        let mut m = DMatrix::from_column_slice(3, 2, &[0.1, -0.9, 0.3, 0.5, 0.2, -0.5]);
        let s = sign_flip_columns(&mut m);
        assert_eq!(s, vec![-1.0, 1.0]);
        assert_eq!(m[(1, 0)], 0.9);
        assert_eq!(m[(0, 1)], 0.5);
    }
}
