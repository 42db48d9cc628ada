//! Y = K X for a symmetric n x n matrix stored as its lower triangle, and a block
//! X of a few columns: the product that every pass of the iterative solver makes.
//!
//! The product is bound by arithmetic (16 multiply-adds per stored entry for 8
//! columns), so its inner loop is written for the registers: X and Y are held
//! row-major in groups of [`LANES`] columns, and each stored entry a_ij (i > j)
//! does Y_i += a_ij X_j and Y_j += a_ij X_i while it is in a register. Two matrix
//! columns are swept together so that the running sums of Y_j and the rows X_j
//! stay in registers (14 of the 16 AVX registers; a [`Row`] is one AVX-512
//! register). The same source is compiled once per [`simd::Level`] and the
//! widest the CPU runs is chosen at run time.

use super::simd::{self, madd, Level, NATIVE_FMA};
use rayon::prelude::*;
use std::vec;
use std::vec::Vec;

/// Columns of X handled by one sweep over the matrix.
pub(crate) const LANES: usize = 8;

/// Rows of X and Y in one group of [`LANES`] columns (zero padded).
type Row = [f64; LANES];

/// Matrix columns per parallel work item (a column panel of the lower triangle).
const PANEL: usize = 128;
/// Rows of a tile below the diagonal: the tile's rows of X and Y (2 x 512 x 64 B)
/// stay in the level-2 cache while its columns stream past (128 to 2048 rows
/// measured the same at n = 4000).
const TILE_ROWS: usize = 512;

/// y += a x, entry by entry.
#[inline(always)]
fn axpy<const FMA: bool>(y: &mut Row, a: f64, x: &Row) {
    for (v, &p) in y.iter_mut().zip(x) {
        *v = madd::<FMA>(a, p, *v);
    }
}

/// y += a x + b z, entry by entry (a x added last).
#[inline(always)]
fn axpy2<const FMA: bool>(y: &mut Row, a: f64, x: &Row, b: f64, z: &Row) {
    for ((v, &p), &q) in y.iter_mut().zip(x).zip(z) {
        *v = madd::<FMA>(a, p, madd::<FMA>(b, q, *v));
    }
}

/// Entries `i0..i0 + h` of column `j` of the column-major n x n `matrix`.
#[inline(always)]
fn column(matrix: &[f64], n: usize, j: usize, i0: usize, h: usize) -> &[f64] {
    &matrix[j * n + i0..j * n + i0 + h]
}

/// The strictly-lower tile of rows I = `i0..i0 + h` and columns J = `j0..j0 + w`
/// (J entirely above I): Y_I += A X_J and Y_J += A' X_I. `xi`, `yi` are the rows
/// I of X and Y; `xj`, `yj` the rows J.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn tile<const FMA: bool>(
    matrix: &[f64],
    n: usize,
    i0: usize,
    j0: usize,
    xi: &[Row],
    yi: &mut [Row],
    xj: &[Row],
    yj: &mut [Row],
) {
    let h = xi.len().min(yi.len());
    let w = xj.len().min(yj.len());
    let pairs = w / 2;
    for p in 0..pairs {
        let (ja, jb) = (2 * p, 2 * p + 1);
        let (xa, xb) = (xj[ja], xj[jb]);
        let ca = column(matrix, n, j0 + ja, i0, h);
        let cb = column(matrix, n, j0 + jb, i0, h);
        let mut ta = [0.0; LANES];
        let mut tb = [0.0; LANES];
        for ((&a, &b), (xr, yr)) in ca.iter().zip(cb).zip(xi.iter().zip(yi.iter_mut())) {
            let xv = *xr;
            let mut yv = *yr;
            axpy2::<FMA>(&mut yv, a, &xa, b, &xb);
            axpy::<FMA>(&mut ta, a, &xv);
            axpy::<FMA>(&mut tb, b, &xv);
            *yr = yv;
        }
        add_row(&mut yj[ja], &ta);
        add_row(&mut yj[jb], &tb);
    }
    if w % 2 == 1 {
        let j = w - 1;
        let xa = xj[j];
        let ca = column(matrix, n, j0 + j, i0, h);
        let mut ta = [0.0; LANES];
        for (&a, (xr, yr)) in ca.iter().zip(xi.iter().zip(yi.iter_mut())) {
            let xv = *xr;
            let mut yv = *yr;
            axpy::<FMA>(&mut yv, a, &xa);
            axpy::<FMA>(&mut ta, a, &xv);
            *yr = yv;
        }
        add_row(&mut yj[j], &ta);
    }
}

/// `dst += src`.
#[inline(always)]
fn add_row(dst: &mut Row, src: &Row) {
    for (a, b) in dst.iter_mut().zip(src) {
        *a += b;
    }
}

/// The diagonal block of rows and columns `j0..j0 + w` (its lower triangle,
/// diagonal included): Y_J += A X_J.
#[inline(always)]
fn diagonal_block<const FMA: bool>(matrix: &[f64], n: usize, j0: usize, x: &[Row], y: &mut [Row]) {
    let w = x.len().min(y.len());
    for j in 0..w {
        let xj = x[j];
        let col = column(matrix, n, j0 + j, j0 + j, w - j);
        let (ajj, below) = (col[0], &col[1..]);
        let (upper, lower) = y.split_at_mut(j + 1);
        let mut t = [0.0; LANES];
        for (&a, (xr, yr)) in below.iter().zip(x[j + 1..].iter().zip(lower.iter_mut())) {
            let xv = *xr;
            let mut yv = *yr;
            axpy::<FMA>(&mut yv, a, &xj);
            axpy::<FMA>(&mut t, a, &xv);
            *yr = yv;
        }
        axpy::<FMA>(&mut t, ajj, &xj);
        add_row(&mut upper[j], &t);
    }
}

/// Adds the products of the column panels `p0..p1` (lower triangle) to `y`.
#[inline(always)]
fn panels<const FMA: bool>(
    matrix: &[f64],
    n: usize,
    p0: usize,
    p1: usize,
    x: &[Row],
    y: &mut [Row],
) {
    for p in p0..p1 {
        let j0 = p * PANEL;
        let w = PANEL.min(n.saturating_sub(j0));
        if w == 0 {
            break;
        }
        let xj = &x[j0..j0 + w];
        let (top, bottom) = y.split_at_mut((j0 + w).min(y.len()));
        let yj = &mut top[j0..];
        diagonal_block::<FMA>(matrix, n, j0, xj, yj);
        let mut i0 = j0 + w;
        for yi in bottom.chunks_mut(TILE_ROWS) {
            let xi = &x[i0..i0 + yi.len()];
            tile::<FMA>(matrix, n, i0, j0, xi, yi, xj, yj);
            i0 += yi.len();
        }
    }
}

/// [`panels`] compiled with AVX2 and FMA (each [`Row`] in two 256-bit registers).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn panels_avx2(matrix: &[f64], n: usize, p0: usize, p1: usize, x: &[Row], y: &mut [Row]) {
    panels::<true>(matrix, n, p0, p1, x, y);
}

/// [`panels`] compiled with AVX-512F (each [`Row`] in one 512-bit register).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
fn panels_avx512(matrix: &[f64], n: usize, p0: usize, p1: usize, x: &[Row], y: &mut [Row]) {
    panels::<true>(matrix, n, p0, p1, x, y);
}

/// [`panels`] in the compilation of `level`, which the caller has checked this
/// CPU runs (a level from [`simd::supported_levels`]). (With `vexp::rbf_column_at`,
/// the fit's unsafe code: calling a function compiled for CPU features checked
/// at run time.)
#[allow(unsafe_code)]
fn panels_at(
    level: Level,
    matrix: &[f64],
    n: usize,
    p0: usize,
    p1: usize,
    x: &[Row],
    y: &mut [Row],
) {
    match level {
        // SAFETY: `level` is one that `supported_levels` found on this CPU, so it
        // has the features each function is compiled for.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe { panels_avx512(matrix, n, p0, p1, x, y) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2Fma => unsafe { panels_avx2(matrix, n, p0, p1, x, y) },
        _ => panels::<NATIVE_FMA>(matrix, n, p0, p1, x, y),
    }
}

/// Y = K X for the symmetric n x n matrix `matrix` (column-major) and a block X,
/// reading only the lower triangle of `matrix` (diagonal included; the upper
/// triangle may hold anything), each entry once per group of [`LANES`] columns
/// of X. Parallel over groups of column panels with equal work, each group with
/// its own n-row accumulator (summed at the end).
pub(crate) fn sym_block_product(
    matrix: &[f64],
    n: usize,
    x: faer::MatRef<'_, f64>,
    y: faer::MatMut<'_, f64>,
) {
    sym_block_product_at(simd::level(), matrix, n, x, y);
}

/// [`sym_block_product`] in the compilation of `level` (one this CPU runs).
fn sym_block_product_at(
    level: Level,
    matrix: &[f64],
    n: usize,
    x: faer::MatRef<'_, f64>,
    mut y: faer::MatMut<'_, f64>,
) {
    let b = x.ncols();
    assert!(
        matrix.len() >= n * n && x.nrows() == n && y.nrows() == n && y.ncols() == b,
        "sym_block_product: shapes do not match n = {n}"
    );
    if n == 0 || b == 0 {
        return;
    }
    let panel_count = n.div_ceil(PANEL);
    // Groups of consecutive panels with about equal work (panel p has n - p PANEL rows).
    let groups_wanted = (2 * rayon::current_num_threads()).clamp(1, panel_count);
    let total: usize = (0..panel_count).map(|p| n - p * PANEL).sum();
    let mut bounds = vec![0usize];
    let mut acc_work = 0usize;
    for p in 0..panel_count {
        acc_work += n - p * PANEL;
        if acc_work * groups_wanted >= total * bounds.len() && p + 1 < panel_count {
            bounds.push(p + 1);
        }
    }
    bounds.push(panel_count);
    let ranges: Vec<(usize, usize)> = bounds
        .iter()
        .copied()
        .zip(bounds.iter().copied().skip(1))
        .collect();

    for c0 in (0..b).step_by(LANES) {
        let width = LANES.min(b - c0);
        let mut xs: Vec<Row> = vec![[0.0; LANES]; n];
        for c in 0..width {
            for (row, &v) in xs.iter_mut().zip(x.col(c0 + c).iter()) {
                row[c] = v;
            }
        }
        let partial: Vec<Vec<Row>> = ranges
            .par_iter()
            .map(|&(p0, p1)| {
                let mut acc: Vec<Row> = vec![[0.0; LANES]; n];
                panels_at(level, matrix, n, p0, p1, &xs, &mut acc);
                acc
            })
            .collect();
        for c in 0..width {
            for (i, v) in y.as_mut().col_mut(c0 + c).iter_mut().enumerate() {
                *v = partial.iter().map(|acc| acc[i][c]).sum();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SeededRng;
    use rand_core::SeedableRng;

    /// A symmetric n x n matrix with garbage in its strict upper triangle (which
    /// the product must not read), and its full symmetric version.
    fn matrices(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut rng = SeededRng::seed_from_u64(seed);
        let mut lower = vec![0.0; n * n];
        let mut full = vec![0.0; n * n];
        for j in 0..n {
            for i in j..n {
                let v = rng.next_f64() - 0.5;
                lower[j * n + i] = v;
                full[j * n + i] = v;
                full[i * n + j] = v;
            }
            for i in 0..j {
                lower[j * n + i] = f64::NAN;
            }
        }
        (lower, full)
    }

    /// Largest |Y - K X| over the entries, Y from `product`.
    fn worst_error(n: usize, b: usize, product: impl FnOnce(&[f64], &[f64], &mut [f64])) -> f64 {
        let (lower, full) = matrices(n, 11 + n as u64);
        let mut rng = SeededRng::seed_from_u64(5);
        let x: Vec<f64> = (0..n * b).map(|_| rng.next_f64() - 0.5).collect();
        let mut y = vec![f64::NAN; n * b];
        product(&lower, &x, &mut y);
        let mut worst = 0.0f64;
        for c in 0..b {
            for i in 0..n {
                let exact: f64 = (0..n).map(|j| full[j * n + i] * x[c * n + j]).sum();
                worst = worst.max((y[c * n + i] - exact).abs());
            }
        }
        worst
    }

    /// Products with every shape of tile (partial panels and tiles, odd widths),
    /// block widths below, at and above [`LANES`], equal to the plain product.
    #[test]
    fn product_equals_the_plain_one() {
        const TOL: f64 = 1e-12;
        for &(n, b) in &[
            (1, 1),
            (2, 3),
            (7, 8),
            (129, 8),
            (300, 5),
            (301, 11),
            (520, 16),
        ] {
            let err = worst_error(n, b, |m, x, y| {
                sym_block_product(
                    m,
                    n,
                    faer::MatRef::from_column_major_slice(x, n, b),
                    faer::MatMut::from_column_major_slice_mut(y, n, b),
                )
            });
            assert!(err < TOL, "n = {n}, b = {b}: {err:e}");
        }
    }

    /// Every compilation this CPU runs agrees with the plain product, and the
    /// fused ones (AVX2 + FMA, AVX-512) with each other bit for bit; the fused
    /// loop through software fma is checked too where the CPU has no FMA.
    #[test]
    fn every_compilation_equals_the_plain_product() {
        const TOL: f64 = 1e-12;
        let (n, b) = (301, 11);
        let mut fused_results: Vec<(Level, Vec<f64>)> = Vec::new();
        for level in simd::supported_levels() {
            let mut got = Vec::new();
            let err = worst_error(n, b, |m, x, y| {
                sym_block_product_at(
                    level,
                    m,
                    n,
                    faer::MatRef::from_column_major_slice(x, n, b),
                    faer::MatMut::from_column_major_slice_mut(y, n, b),
                );
                got = y.to_vec();
            });
            assert!(err < TOL, "{level:?}: {err:e}");
            if level != Level::Baseline || NATIVE_FMA {
                fused_results.push((level, got));
            }
        }
        for pair in fused_results.windows(2) {
            let ((l0, y0), (l1, y1)) = (&pair[0], &pair[1]);
            let same = y0.iter().zip(y1).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "{l0:?} and {l1:?} differ");
        }
        let err = worst_error(n, LANES, |m, x, y| {
            let mut xs: Vec<Row> = vec![[0.0; LANES]; n];
            for (i, row) in xs.iter_mut().enumerate() {
                for (c, v) in row.iter_mut().enumerate() {
                    *v = x[c * n + i];
                }
            }
            let mut acc: Vec<Row> = vec![[0.0; LANES]; n];
            panels::<true>(m, n, 0, n.div_ceil(PANEL), &xs, &mut acc);
            for (i, row) in acc.iter().enumerate() {
                for (c, v) in row.iter().enumerate() {
                    y[c * n + i] = *v;
                }
            }
        });
        assert!(err < TOL, "software-fused: {err:e}");
    }

    /// Too short a matrix or mismatched shapes are a bug of the caller: a panic.
    #[test]
    #[should_panic(expected = "shapes do not match")]
    fn bad_shapes_panic() {
        let m = vec![1.0; 8];
        let x = vec![1.0; 3];
        let mut y = vec![7.0; 3];
        sym_block_product(
            &m,
            3,
            faer::MatRef::from_column_major_slice(&x, 3, 1),
            faer::MatMut::from_column_major_slice_mut(&mut y, 3, 1),
        );
        assert_eq!(y, vec![7.0; 3]);
    }
}
