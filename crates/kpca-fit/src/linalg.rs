//! Small shared pieces of the fit's linear algebra: the parallelism handed to
//! faer, a column-major matrix type viewed through faer, a vectorising dot
//! product and matrix products.

use faer::{Accum, MatMut, MatRef, Par};
use std::vec;
use std::vec::Vec;

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

/// dst (n x r, column-major) = src (the first c columns of a column-major
/// n-row buffer) * y (c x r).
pub(crate) fn times(src: &[f64], n: usize, c: usize, y: MatRef<'_, f64>, dst: &mut [f64]) {
    faer::linalg::matmul::matmul(
        MatMut::from_column_major_slice_mut(dst, n, y.ncols()),
        Accum::Replace,
        MatRef::from_column_major_slice(&src[..n * c], n, c),
        y,
        1.0,
        par(),
    );
}

/// The product a b, in parallel.
pub(crate) fn mul(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Dense {
    let mut out = Dense::zeros(a.nrows(), b.ncols());
    faer::linalg::matmul::matmul(out.as_mut(), Accum::Replace, a, b, 1.0, par());
    out
}

/// A column-major matrix in a `Vec`, used through faer's views. Unlike faer's
/// `Mat`, whose `zeros` writes every entry (and whose storage is padded and
/// over-aligned), `Dense::zeros` takes zeroed memory from the allocator, so
/// pages that are never written are never touched: the Nyström fit's resident
/// memory stays that of the matrices it really fills.
#[derive(Clone, Debug)]
pub(crate) struct Dense {
    data: Vec<f64>,
    nrows: usize,
    ncols: usize,
}

impl Dense {
    /// The nrows x ncols zero matrix.
    pub fn zeros(nrows: usize, ncols: usize) -> Self {
        Dense {
            data: vec![0.0; nrows * ncols],
            nrows,
            ncols,
        }
    }

    /// The nrows x ncols matrix with entries f(i, j), filled column by column.
    pub fn from_fn(nrows: usize, ncols: usize, mut f: impl FnMut(usize, usize) -> f64) -> Self {
        let mut data = Vec::with_capacity(nrows * ncols);
        for j in 0..ncols {
            data.extend((0..nrows).map(|i| f(i, j)));
        }
        Dense { data, nrows, ncols }
    }

    /// Rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Column j.
    pub fn col(&self, j: usize) -> &[f64] {
        &self.data[j * self.nrows..(j + 1) * self.nrows]
    }

    /// Column j, mutable.
    pub fn col_mut(&mut self, j: usize) -> &mut [f64] {
        &mut self.data[j * self.nrows..(j + 1) * self.nrows]
    }

    /// The faer view.
    pub fn as_ref(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.data, self.nrows, self.ncols)
    }

    /// The mutable faer view.
    pub fn as_mut(&mut self) -> MatMut<'_, f64> {
        MatMut::from_column_major_slice_mut(&mut self.data, self.nrows, self.ncols)
    }

    /// The entries, column-major.
    pub fn into_vec(self) -> Vec<f64> {
        self.data
    }
}

impl core::ops::Index<(usize, usize)> for Dense {
    type Output = f64;
    fn index(&self, (i, j): (usize, usize)) -> &f64 {
        assert!(i < self.nrows, "row {i} of {}", self.nrows);
        &self.data[j * self.nrows + i]
    }
}

impl core::ops::IndexMut<(usize, usize)> for Dense {
    fn index_mut(&mut self, (i, j): (usize, usize)) -> &mut f64 {
        assert!(i < self.nrows, "row {i} of {}", self.nrows);
        &mut self.data[j * self.nrows + i]
    }
}
