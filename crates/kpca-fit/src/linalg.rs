//! Small shared pieces of the fit's linear algebra: the parallelism handed to
//! faer, a vectorising dot product and a column-major matrix product.

use faer::{Accum, MatMut, MatRef, Par};

/// The parallelism of faer's products and decompositions: rayon when the pool
/// has more than one thread, sequential otherwise.
pub(crate) fn par() -> Par {
    if rayon::current_num_threads() > 1 {
        Par::rayon(0)
    } else {
        Par::Seq
    }
}

/// x'y over the common length, in four interleaved partial sums (so that it
/// vectorises; the rounding differs from a left-to-right sum by a few ulps).
pub(crate) fn dot4(x: &[f64], y: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let mut xs = x.chunks_exact(4);
    let mut ys = y.chunks_exact(4);
    for (a, b) in (&mut xs).zip(&mut ys) {
        for ((s, p), q) in acc.iter_mut().zip(a).zip(b) {
            *s += p * q;
        }
    }
    let tail: f64 = xs
        .remainder()
        .iter()
        .zip(ys.remainder())
        .map(|(p, q)| p * q)
        .sum();
    ((acc[0] + acc[1]) + (acc[2] + acc[3])) + tail
}

/// dst (n x r) = src (the first c columns of an n-row buffer) * y (c x r), all
/// column-major.
pub(crate) fn times(src: &[f64], n: usize, c: usize, y: &[f64], r: usize, dst: &mut [f64]) {
    faer::linalg::matmul::matmul(
        MatMut::from_column_major_slice_mut(dst, n, r),
        Accum::Replace,
        MatRef::from_column_major_slice(&src[..n * c], n, c),
        MatRef::from_column_major_slice(y, c, r),
        1.0,
        par(),
    );
}
