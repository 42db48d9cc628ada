//! Dense symmetric eigensolvers: the top k eigenpairs (and every eigenvalue) of
//! the n x n centred kernel matrix without a second n x n matrix, and every
//! eigenpair of the small m x m matrices of the Nyström fit.

use super::{descending_order, tridiagonal, TopEigen};
use crate::error::FitError;
use crate::linalg::{par, Dense};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{self, tridiag, ComputeEigenvectors, SelfAdjointEvdParams};
use faer::linalg::householder;
use faer::reborrow::{IntoConst, ReborrowMut};
use faer::{Mat, MatMut, MatRef, Par, Spec};
use std::vec::Vec;

/// The error of a dense solver that failed.
fn not_converged(solver: &'static str) -> FitError {
    FitError::NotConverged {
        solver,
        iterations: 0,
        residual: f64::NAN,
    }
}

/// Dense symmetric eigensolver of the n x n column-major `matrix` (consumed;
/// only its lower triangle is read): every eigenvalue and the eigenvectors of the
/// top `k`, sorted descending.
///
/// 1. faer's blocked Householder tridiagonalisation of `matrix` in place (its
///    lower triangle then holds the reflectors, a `bs x (n-1)` block of reflector
///    factors beside it);
/// 2. every eigenvalue of the tridiagonal matrix by implicit QL without
///    eigenvectors (O(n) memory);
/// 3. the k wanted eigenvectors of the tridiagonal matrix by inverse iteration
///    (O(n k)), taken back through the reflectors with faer.
///
/// Memory beyond `matrix` itself: O(n k) plus the `bs x n` reflector factors and
/// faer's workspaces (sized by faer's own scratch functions). No second n x n
/// matrix is ever allocated (faer's own eigendecomposition needs three: a copy,
/// the eigenvectors and a divide-and-conquer workspace).
pub(crate) fn dense_top(mut matrix: Vec<f64>, n: usize, k: usize) -> Result<TopEigen, FitError> {
    assert_eq!(matrix.len(), n * n, "dense_top: not an n x n matrix");
    let k = k.min(n);
    if n == 0 {
        return Ok(TopEigen {
            values: Vec::new(),
            vectors: Vec::new(),
            all_values: Some(Vec::new()),
            matvecs: 0,
            max_residual: 0.0,
        });
    }
    let mut a = MatMut::from_column_major_slice_mut(&mut matrix, n, n);
    let reflectors = tridiagonalize(a.rb_mut());
    let a = a.into_const();
    let diag: Vec<f64> = a.diagonal().column_vector().iter().copied().collect();
    let mut off: Vec<f64> = a
        .submatrix(1, 0, n - 1, n - 1)
        .diagonal()
        .column_vector()
        .iter()
        .copied()
        .collect();
    off.push(0.0);

    let all_values = sorted_eigenvalues(&diag, &off)?;
    let top: Vec<f64> = all_values.iter().take(k).copied().collect();
    let mut vectors = tridiagonal::eigenvectors(&diag, &off, &top);
    back_transform(
        a,
        reflectors.as_ref(),
        MatMut::from_column_major_slice_mut(&mut vectors, n, k),
    );
    Ok(TopEigen {
        values: top,
        vectors,
        all_values: Some(all_values),
        matvecs: 0,
        max_residual: 0.0,
    })
}

/// faer's blocked Householder tridiagonalisation of the symmetric `a` (n x n,
/// n >= 1, lower triangle) in place; returns the block reflector factors.
fn tridiagonalize(a: MatMut<'_, f64>) -> Mat<f64> {
    let n = a.nrows();
    let params: Spec<SelfAdjointEvdParams, f64> = Spec::default();
    let bs = faer::linalg::qr::no_pivoting::factor::recommended_block_size::<f64>(n, n);
    let mut reflectors = Mat::<f64>::zeros(bs, n - 1);
    let req = tridiag::tridiag_in_place_scratch::<f64>(n, par(), params.tridiag.into());
    let mut buf = MemBuffer::new(req);
    tridiag::tridiag_in_place(
        a,
        reflectors.as_mut(),
        par(),
        MemStack::new(&mut buf),
        params.tridiag.into(),
    );
    reflectors
}

/// Every eigenvalue of the tridiagonal matrix (diagonal `diag`, off-diagonal
/// `off`), descending.
fn sorted_eigenvalues(diag: &[f64], off: &[f64]) -> Result<Vec<f64>, FitError> {
    let mut values = diag.to_vec();
    let mut scratch = off.to_vec();
    tridiagonal::eigenvalues(&mut values, &mut scratch).map_err(|()| not_converged("dense"))?;
    if values.iter().any(|v| !v.is_finite()) {
        return Err(not_converged("dense"));
    }
    Ok(descending_order(&values)
        .into_iter()
        .map(|i| values[i])
        .collect())
}

/// Applies the Householder sequence of [`tridiagonalize`] (reflectors below the
/// subdiagonal of `a`, block factors `reflectors`) to the eigenvectors of the
/// tridiagonal matrix in `vectors` (n x k), turning them into eigenvectors of
/// the original matrix.
fn back_transform(a: MatRef<'_, f64>, reflectors: MatRef<'_, f64>, mut vectors: MatMut<'_, f64>) {
    let (n, k) = (vectors.nrows(), vectors.ncols());
    if n < 2 || k == 0 {
        return;
    }
    let bs = reflectors.nrows();
    let req = householder::apply_block_householder_sequence_on_the_left_in_place_scratch::<f64>(
        n - 1,
        bs,
        k,
    );
    let mut buf = MemBuffer::new(req);
    householder::apply_block_householder_sequence_on_the_left_in_place_with_conj(
        a.submatrix(1, 0, n - 1, n - 1),
        reflectors,
        faer::Conj::No,
        vectors.rb_mut().subrows_mut(1, n - 1),
        par(),
        MemStack::new(&mut buf),
    );
}

/// Every eigenpair of a small symmetric matrix (the m x m matrices of the Nyström
/// fit, the projected matrix of the Lanczos solver), by faer's self-adjoint
/// eigendecomposition with the workspace from faer's `self_adjoint_evd_scratch`.
/// Returns (eigenvalues ascending, eigenvectors as columns); `solver` names the
/// solver in the error. Only the lower triangle of `matrix` is read. `par`:
/// [`par()`] for the m x m matrices, `Par::Seq` for the Lanczos solver's few
/// dozen rows, where rayon's task overhead outweighs the work.
pub(crate) fn full_evd(
    matrix: MatRef<'_, f64>,
    solver: &'static str,
    par: Par,
) -> Result<(Vec<f64>, Dense), FitError> {
    let n = matrix.nrows();
    let params: Spec<SelfAdjointEvdParams, f64> = Spec::default();
    let mut s = faer::diag::Diag::<f64>::zeros(n);
    let mut u = Dense::zeros(n, n);
    if n == 0 {
        return Ok((Vec::new(), u));
    }
    let req = evd::self_adjoint_evd_scratch::<f64>(n, ComputeEigenvectors::Yes, par, params);
    let mut buf = MemBuffer::new(req);
    evd::self_adjoint_evd(
        matrix,
        s.as_mut(),
        Some(u.as_mut()),
        par,
        MemStack::new(&mut buf),
        params,
    )
    .map_err(|_| not_converged(solver))?;
    Ok((s.column_vector().iter().copied().collect(), u))
}
