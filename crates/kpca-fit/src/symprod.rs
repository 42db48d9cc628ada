//! Y = K X for a symmetric n x n matrix stored as its lower triangle, and a block
//! X of a few columns: the product that every pass of the iterative solver makes.
//!
//! The product is bound by arithmetic (two multiply-adds per stored entry and
//! column of X: at n = 4000 one read of the matrix takes 1.7 ms from memory on
//! two cores, the multiply-adds for 8 columns about 3 ms), so its inner loop is
//! written for the registers: X and Y are held row-major in groups of [`LANES`]
//! columns ([`WIDE_LANES`] on AVX-512, two registers a row), and each stored
//! entry a_ij (i > j) does Y_i += a_ij X_j and Y_j += a_ij X_i while it is in a
//! register. S matrix columns are swept together ([`sweep`]): their rows X_j and
//! running sums of Y_j stay in registers, each row of X and Y below them is
//! loaded and stored once per S columns, and the S sums are independent chains
//! of multiply-adds. S is what the registers hold: 8 with AVX-512 (32 registers),
//! 4 with AVX2 (16), 2 for the baseline; measured at n = 4000, 8 columns, against
//! S = 2 everywhere: 5.7 to 3.1 ms with AVX-512, 5.9 to 4.3 ms with AVX2. The
//! order of the additions does not depend on S, so all fused compilations give
//! the same bits. The same source is compiled once per [`simd::Level`] and the
//! widest the CPU runs is chosen at run time.

use super::simd::{self, madd, Level, NATIVE_FMA};
use faer::reborrow::ReborrowMut;
use rayon::prelude::*;
use std::vec;
use std::vec::Vec;

/// Columns of X handled by one read of the matrix (the narrow group).
pub(crate) const LANES: usize = 8;
/// Columns of X handled by one read of the matrix where [`wide_lanes`] allows it.
pub(crate) const WIDE_LANES: usize = 2 * LANES;

/// Rows of X and Y in one group of `L` columns (zero padded).
type Row<const L: usize> = [f64; L];

/// Matrix columns per parallel work item (a column panel of the lower triangle).
const PANEL: usize = 128;
/// Rows of a tile below the diagonal: the tile's rows of X and Y (2 x 512 x 64 B
/// for 8 columns) stay in the level-2 cache while its columns stream past (128 to
/// 2048 rows measured the same at n = 4000).
const TILE_ROWS: usize = 512;

/// Whether the compilation of `level` takes [`WIDE_LANES`] columns of X per read
/// of the matrix (where the registers hold them: the AVX-512 one; with AVX2 the
/// wide rows spill and cost more than two reads).
fn wide_lanes(level: Level) -> bool {
    level == Level::Avx512
}

/// y += a x, entry by entry.
#[inline(always)]
fn axpy<const FMA: bool, const L: usize>(y: &mut Row<L>, a: f64, x: &Row<L>) {
    for (v, &p) in y.iter_mut().zip(x) {
        *v = madd::<FMA>(a, p, *v);
    }
}

/// Entries `i0..i0 + h` of column `j` of the column-major n x n `matrix`.
#[inline(always)]
fn column(matrix: &[f64], n: usize, j: usize, i0: usize, h: usize) -> &[f64] {
    &matrix[j * n + i0..j * n + i0 + h]
}

/// The columns `cols` (C of them, entries of the rows of `xi`, `yi`) swept
/// together: Y_I += A X_J (rows `xj` of X) and returns A' X_I (C rows).
#[inline(always)]
fn sweep<const FMA: bool, const L: usize, const C: usize>(
    cols: [&[f64]; C],
    xj: &[Row<L>; C],
    xi: &[Row<L>],
    yi: &mut [Row<L>],
) -> [Row<L>; C] {
    const { assert!(C <= MAX_SWEEP) };
    let h = xi.len().min(yi.len());
    let cols = cols.map(|col| &col[..h]);
    let (xi, yi) = (&xi[..h], &mut yi[..h]);
    let mut t = [[0.0; L]; C];
    for r in 0..h {
        let xv = xi[r];
        let mut yv = yi[r];
        // Column c of the sweep, written out for each c < C rather than looped,
        // so that the arrays are indexed by constants and stay in registers
        // whatever the compiler's unrolling heuristics decide (and no closure,
        // which would be compiled without the caller's target features).
        macro_rules! written_out {
            ($($c:literal)*) => {$(
                if C > $c {
                    let a = cols[$c][r];
                    axpy::<FMA, L>(&mut yv, a, &xj[$c]);
                    axpy::<FMA, L>(&mut t[$c], a, &xv);
                }
            )*};
        }
        written_out!(0 1 2 3 4 5 6 7);
        yi[r] = yv;
    }
    t
}

/// The most columns [`sweep`] takes at once.
const MAX_SWEEP: usize = 8;

/// The strictly-lower tile of rows I = `i0..i0 + h` and columns J = `j0..j0 + w`
/// (J entirely above I): Y_I += A X_J and Y_J += A' X_I. `xi`, `yi` are the rows
/// I of X and Y; `xj`, `yj` the rows J. Columns go by S (at most [`MAX_SWEEP`]),
/// the last few one by one.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn tile<const FMA: bool, const L: usize, const S: usize>(
    matrix: &[f64],
    n: usize,
    i0: usize,
    j0: usize,
    xi: &[Row<L>],
    yi: &mut [Row<L>],
    xj: &[Row<L>],
    yj: &mut [Row<L>],
) {
    let h = xi.len().min(yi.len());
    let w = xj.len().min(yj.len());
    let full = w - w % S;
    for j in (0..full).step_by(S) {
        let cols: [&[f64]; S] = std::array::from_fn(|c| column(matrix, n, j0 + j + c, i0, h));
        let xs: [Row<L>; S] = std::array::from_fn(|c| xj[j + c]);
        let t = sweep::<FMA, L, S>(cols, &xs, xi, yi);
        for (dst, src) in yj[j..j + S].iter_mut().zip(&t) {
            add_row(dst, src);
        }
    }
    for j in full..w {
        let t = sweep::<FMA, L, 1>([column(matrix, n, j0 + j, i0, h)], &[xj[j]], xi, yi);
        add_row(&mut yj[j], &t[0]);
    }
}

/// `dst += src`.
#[inline(always)]
fn add_row<const L: usize>(dst: &mut Row<L>, src: &Row<L>) {
    for (a, b) in dst.iter_mut().zip(src) {
        *a += b;
    }
}

/// The few columns `j0..j0 + w` of a diagonal block, down to row j0 + w (their
/// lower triangle, diagonal included): Y_J += A X_J, column by column.
#[inline(always)]
fn triangle<const FMA: bool, const L: usize>(
    matrix: &[f64],
    n: usize,
    j0: usize,
    x: &[Row<L>],
    y: &mut [Row<L>],
) {
    let w = x.len().min(y.len());
    for j in 0..w {
        let xj = x[j];
        let col = column(matrix, n, j0 + j, j0 + j, w - j);
        let (ajj, below) = (col[0], &col[1..]);
        let (upper, lower) = y.split_at_mut(j + 1);
        let mut t = [0.0; L];
        for (&a, (xr, yr)) in below.iter().zip(x[j + 1..].iter().zip(lower.iter_mut())) {
            let xv = *xr;
            let mut yv = *yr;
            axpy::<FMA, L>(&mut yv, a, &xj);
            axpy::<FMA, L>(&mut t, a, &xv);
            *yr = yv;
        }
        axpy::<FMA, L>(&mut t, ajj, &xj);
        add_row(&mut upper[j], &t);
    }
}

/// The diagonal block of rows and columns `j0..j0 + w` (its lower triangle,
/// diagonal included): Y_J += A X_J, by blocks of [`MAX_SWEEP`] columns (for
/// every `S`, so that all compilations add in the same order): each block's own
/// [`triangle`], then the [`tile`] below it.
#[inline(always)]
fn diagonal_block<const FMA: bool, const L: usize, const S: usize>(
    matrix: &[f64],
    n: usize,
    j0: usize,
    x: &[Row<L>],
    y: &mut [Row<L>],
) {
    let w = x.len().min(y.len());
    for b0 in (0..w).step_by(MAX_SWEEP) {
        let b1 = (b0 + MAX_SWEEP).min(w);
        let (top, below) = y.split_at_mut(b1);
        let (xj, yj) = (&x[b0..b1], &mut top[b0..]);
        triangle::<FMA, L>(matrix, n, j0 + b0, xj, yj);
        let (xi, yi) = (&x[b1..w], &mut below[..w - b1]);
        tile::<FMA, L, S>(matrix, n, j0 + b1, j0 + b0, xi, yi, xj, yj);
    }
}

/// Adds the products of the column panels `p0..p1` (lower triangle) to `y`.
#[inline(always)]
fn panels<const FMA: bool, const L: usize, const S: usize>(
    matrix: &[f64],
    n: usize,
    p0: usize,
    p1: usize,
    x: &[Row<L>],
    y: &mut [Row<L>],
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
        diagonal_block::<FMA, L, S>(matrix, n, j0, xj, yj);
        let mut i0 = j0 + w;
        for yi in bottom.chunks_mut(TILE_ROWS) {
            let xi = &x[i0..i0 + yi.len()];
            tile::<FMA, L, S>(matrix, n, i0, j0, xi, yi, xj, yj);
            i0 += yi.len();
        }
    }
}

/// [`panels`] compiled with AVX2 and FMA (a [`Row`] of 8 in two 256-bit registers).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn panels_avx2<const L: usize, const S: usize>(
    matrix: &[f64],
    n: usize,
    p0: usize,
    p1: usize,
    x: &[Row<L>],
    y: &mut [Row<L>],
) {
    panels::<true, L, S>(matrix, n, p0, p1, x, y);
}

/// [`panels`] compiled with AVX-512F (a [`Row`] of 8 in one 512-bit register).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
fn panels_avx512<const L: usize, const S: usize>(
    matrix: &[f64],
    n: usize,
    p0: usize,
    p1: usize,
    x: &[Row<L>],
    y: &mut [Row<L>],
) {
    panels::<true, L, S>(matrix, n, p0, p1, x, y);
}

/// [`panels`] in the compilation of `level`, which the caller has checked this
/// CPU runs (a level from [`simd::supported_levels`]), sweeping as many matrix
/// columns together as its registers hold. (With `vexp::rbf_column_at`,
/// the fit's unsafe code: calling a function compiled for CPU features checked
/// at run time.)
#[allow(unsafe_code)]
fn panels_at<const L: usize>(
    level: Level,
    matrix: &[f64],
    n: usize,
    p0: usize,
    p1: usize,
    x: &[Row<L>],
    y: &mut [Row<L>],
) {
    match level {
        // SAFETY: `level` is one that `supported_levels` found on this CPU, so it
        // has the features each function is compiled for.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 if L <= LANES => unsafe { panels_avx512::<L, 8>(matrix, n, p0, p1, x, y) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe { panels_avx512::<L, 4>(matrix, n, p0, p1, x, y) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2Fma => unsafe { panels_avx2::<L, 4>(matrix, n, p0, p1, x, y) },
        _ => panels::<NATIVE_FMA, L, 2>(matrix, n, p0, p1, x, y),
    }
}

/// Y = K X for the symmetric n x n matrix `matrix` (column-major) and a block X,
/// reading only the lower triangle of `matrix` (diagonal included; the upper
/// triangle may hold anything), each entry once per group of [`LANES`] columns
/// of X ([`WIDE_LANES`] on AVX-512). Parallel over groups of column panels with
/// equal work, each group with its own n-row accumulator (summed at the end).
pub(crate) fn sym_block_product(
    matrix: &[f64],
    n: usize,
    x: faer::MatRef<'_, f64>,
    y: faer::MatMut<'_, f64>,
) {
    let level = simd::level();
    sym_block_product_at(level, wide_lanes(level), matrix, n, x, y);
}

/// Groups of consecutive column panels with about equal work (panel p has
/// n - p PANEL rows), about two per thread: the parallel work items.
fn panel_ranges(n: usize) -> Vec<(usize, usize)> {
    let panel_count = n.div_ceil(PANEL);
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
    bounds
        .iter()
        .copied()
        .zip(bounds.iter().copied().skip(1))
        .collect()
}

/// [`sym_block_product`] in the compilation of `level` (one this CPU runs), with
/// groups of [`WIDE_LANES`] columns when `wide` and more than [`LANES`] remain.
fn sym_block_product_at(
    level: Level,
    wide: bool,
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
    let ranges = panel_ranges(n);
    let mut c0 = 0;
    while c0 < b {
        let width = (b - c0).min(if wide { WIDE_LANES } else { LANES });
        let xg = x.subcols(c0, width);
        let yg = y.rb_mut().subcols_mut(c0, width);
        if width > LANES {
            group_product::<WIDE_LANES>(level, matrix, n, &ranges, xg, yg);
        } else {
            group_product::<LANES>(level, matrix, n, &ranges, xg, yg);
        }
        c0 += width;
    }
}

/// Y = K X for a group of at most `L` columns (one sweep over the matrix).
fn group_product<const L: usize>(
    level: Level,
    matrix: &[f64],
    n: usize,
    ranges: &[(usize, usize)],
    x: faer::MatRef<'_, f64>,
    mut y: faer::MatMut<'_, f64>,
) {
    let width = x.ncols();
    debug_assert!(width <= L);
    let mut xs: Vec<Row<L>> = vec![[0.0; L]; n];
    for c in 0..width {
        for (row, &v) in xs.iter_mut().zip(x.col(c).iter()) {
            row[c] = v;
        }
    }
    let partial: Vec<Vec<Row<L>>> = ranges
        .par_iter()
        .map(|&(p0, p1)| {
            let mut acc: Vec<Row<L>> = vec![[0.0; L]; n];
            panels_at::<L>(level, matrix, n, p0, p1, &xs, &mut acc);
            acc
        })
        .collect();
    for c in 0..width {
        for (i, v) in y.rb_mut().col_mut(c).iter_mut().enumerate() {
            *v = partial.iter().map(|acc| acc[i][c]).sum();
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
    /// block widths below, at and above [`LANES`] and [`WIDE_LANES`], equal to the
    /// plain product.
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
            (520, 17),
            (301, 27),
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

    /// Every compilation this CPU runs, with groups of [`LANES`] and of
    /// [`WIDE_LANES`] columns, agrees with the plain product, and the fused ones
    /// (AVX2 + FMA, AVX-512, either width) with each other bit for bit (the fused
    /// loop through software fma is checked in the next test, on every CPU).
    #[test]
    fn every_compilation_equals_the_plain_product() {
        const TOL: f64 = 1e-12;
        let n = 301;
        for b in [5, 11, 16, 19] {
            let mut fused_results: Vec<(Level, bool, Vec<f64>)> = Vec::new();
            for level in simd::supported_levels() {
                for wide in [false, true] {
                    let mut got = Vec::new();
                    let err = worst_error(n, b, |m, x, y| {
                        sym_block_product_at(
                            level,
                            wide,
                            m,
                            n,
                            faer::MatRef::from_column_major_slice(x, n, b),
                            faer::MatMut::from_column_major_slice_mut(y, n, b),
                        );
                        got = y.to_vec();
                    });
                    assert!(err < TOL, "{level:?}, wide {wide}, b = {b}: {err:e}");
                    if level != Level::Baseline || NATIVE_FMA {
                        fused_results.push((level, wide, got));
                    }
                }
            }
            for pair in fused_results.windows(2) {
                let ((l0, w0, y0), (l1, w1, y1)) = (&pair[0], &pair[1]);
                let same = y0.iter().zip(y1).all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(
                    same,
                    "b = {b}: {l0:?} (wide {w0}) and {l1:?} (wide {w1}) differ"
                );
            }
        }
    }

    /// The fused loop with `L` columns sweeping `S` matrix columns together,
    /// through `mul_add` (software fma where the CPU has none): its worst error
    /// against the plain product, and its result.
    fn software_fused<const L: usize, const S: usize>(n: usize) -> (f64, Vec<f64>) {
        let mut got = Vec::new();
        let err = worst_error(n, L, |m, x, y| {
            let mut xs: Vec<Row<L>> = vec![[0.0; L]; n];
            for (i, row) in xs.iter_mut().enumerate() {
                for (c, v) in row.iter_mut().enumerate() {
                    *v = x[c * n + i];
                }
            }
            let mut acc: Vec<Row<L>> = vec![[0.0; L]; n];
            panels::<true, L, S>(m, n, 0, n.div_ceil(PANEL), &xs, &mut acc);
            for (i, row) in acc.iter().enumerate() {
                for (c, v) in row.iter().enumerate() {
                    y[c * n + i] = *v;
                }
            }
            got = y.to_vec();
        });
        (err, got)
    }

    /// However many matrix columns are swept together, the fused loop adds in
    /// the same order: the results are bit-identical (so each compilation may
    /// take the sweep width its registers hold), and equal the plain product.
    #[test]
    fn sweep_width_does_not_change_the_result() {
        let n = 301;
        let runs = [
            software_fused::<LANES, 1>(n),
            software_fused::<LANES, 2>(n),
            software_fused::<LANES, 4>(n),
            software_fused::<LANES, MAX_SWEEP>(n),
        ];
        for (i, (err, got)) in runs.iter().enumerate() {
            assert!(*err < 1e-12, "run {i}: {err:e}");
            let same = got
                .iter()
                .zip(&runs[0].1)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "run {i} differs from run 0");
        }
        let (err, _) = software_fused::<WIDE_LANES, 4>(n);
        assert!(err < 1e-12, "software-fused, wide: {err:e}");
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
