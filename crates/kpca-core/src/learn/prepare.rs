//! The fit's first steps: the input map (standardisation, or the points'
//! centre for the shift-invariant kernels), the stored points and their norms,
//! and the centred kernel matrix.

use crate::error::Error;
use crate::kernel::{pair_value, Kernel};

/// The training rows as the device will see them: z_i = (x_i - mean) * inv_std
/// into `points` (n x d), ‖z_i‖² into `norms`. With `standardize`, mean and
/// 1/std (ddof 0) of each column; else, for the RBF, Laplacian and linear
/// kernels, the column means with 1/std = 1 (the RBF and Laplacian kernel
/// values do not change, the linear kernel's change only by terms that the
/// centring removes, and in f32 they stay accurate for data far from the
/// origin); else the rows as they are. Returns whether `mean` and `inv_std` are the model's
/// input map.
///
/// Errors: [`Error::ConstantColumn`] when standardising a column whose values
/// are all equal (or whose 1/std is not finite in f32);
/// [`Error::NonFiniteResult`] when a mean or a squared norm of a stored point
/// is past the f32 range.
pub(crate) fn input_map(
    x: &[f32],
    d: usize,
    kernel: &Kernel,
    standardize: bool,
    map: (&mut [f32], &mut [f32]),
    points: &mut [f32],
    norms: &mut [f32],
) -> Result<bool, Error> {
    let (mean, inv_std) = map;
    let mapped = standardize || centres(kernel);
    let n = x.len() / d.max(1);
    if mapped {
        column_means(x, d, mean)?;
        inv_std.iter_mut().for_each(|s| *s = 1.0);
        if standardize {
            inverse_stds(x, d, mean, inv_std)?;
        }
    }
    for ((row, z), sq) in x
        .chunks_exact(d.max(1))
        .zip(points.chunks_exact_mut(d.max(1)))
        .zip(norms.iter_mut())
        .take(n)
    {
        let mut acc = 0.0f32;
        for (j, (zj, &xj)) in z.iter_mut().zip(row).enumerate() {
            crate::codegen::keep_rolled();
            *zj = if mapped {
                let m = mean.get(j).copied().unwrap_or(0.0);
                (xj - m) * inv_std.get(j).copied().unwrap_or(1.0)
            } else {
                xj
            };
            acc += *zj * *zj;
        }
        if !acc.is_finite() {
            return Err(Error::NonFiniteResult);
        }
        *sq = acc;
    }
    Ok(mapped)
}

/// Whether a fit with this kernel moves its points to their centre when it
/// does not standardise: the kernels whose centred kernel matrix does not
/// change with a shift of the data.
pub(crate) fn centres(kernel: &Kernel) -> bool {
    matches!(
        kernel,
        Kernel::Rbf { .. } | Kernel::Laplacian { .. } | Kernel::Linear
    )
}

/// The values of column `j` of the row-major `x` (d columns).
fn column(x: &[f32], d: usize, j: usize) -> impl Iterator<Item = f32> + '_ {
    x.chunks_exact(d.max(1))
        .filter_map(move |row| row.get(j).copied())
}

/// The mean of each column of the row-major `x` (d columns) into `mean`, as
/// the sum of v / n (no overflow for any finite f32 data); a mean that is
/// not finite is [`Error::NonFiniteResult`].
fn column_means(x: &[f32], d: usize, mean: &mut [f32]) -> Result<(), Error> {
    let inv_n = 1.0 / (x.len() / d.max(1)).max(1) as f32;
    for (j, m) in mean.iter_mut().enumerate() {
        crate::codegen::keep_rolled();
        *m = column(x, d, j).fold(0.0f32, |acc, v| acc + v * inv_n);
        if !m.is_finite() {
            return Err(Error::NonFiniteResult);
        }
    }
    Ok(())
}

/// 1/std (ddof 0) of each column into `inv_std`, from the deviations from
/// `mean` scaled by the largest of them, so that neither huge nor denormal
/// spreads overflow or vanish in f32: std = s sqrt(mean(((v - m) / s)²)).
/// [`Error::ConstantColumn`] for a constant column or one whose 1/std is not
/// a finite f32; [`Error::NonFiniteResult`] when a deviation overflows.
fn inverse_stds(x: &[f32], d: usize, mean: &[f32], inv_std: &mut [f32]) -> Result<(), Error> {
    let n = (x.len() / d.max(1)).max(1) as f32;
    for (j, (s, &m)) in inv_std.iter_mut().zip(mean).enumerate() {
        crate::codegen::keep_rolled();
        let first = column(x, d, j).next().unwrap_or(0.0);
        if column(x, d, j).all(|v| v == first) {
            return Err(Error::ConstantColumn);
        }
        let spread = column(x, d, j).fold(0.0f32, |acc, v| acc.max(libm::fabsf(v - m)));
        if !spread.is_finite() {
            return Err(Error::NonFiniteResult);
        }
        let sum = column(x, d, j).fold(0.0f32, |acc, v| {
            let t = (v - m) / spread;
            acc + t * t
        });
        let inv = 1.0 / (spread * crate::fastmath::sqrt(sum / n));
        if !(inv.is_finite() && inv > 0.0) {
            return Err(Error::ConstantColumn);
        }
        *s = inv;
    }
    Ok(())
}

/// Fills the row-major n x n `kmat` with the centred kernel matrix
/// Kc = K - 1 r' - r 1' + g 1 1' of the stored points (K from the kernel's one
/// formula, [`pair_value`], both triangles), the row means r into
/// `row_means`, and returns g and the largest |K_ij| (the scale of the
/// matrix's rounding errors).
///
/// Errors: [`Error::NonFiniteResult`] when a kernel value or a mean is not
/// finite in f32 (a polynomial kernel past the f32 range).
pub(crate) fn centred_kernel(
    kernel: &Kernel,
    points: &[f32],
    norms: &[f32],
    d: usize,
    kmat: &mut [f32],
    row_means: &mut [f32],
) -> Result<(f32, f32), Error> {
    let n = norms.len();
    let mut largest = 0.0f32;
    let rows = || points.chunks_exact(d.max(1)).zip(norms);
    for (i, (zi, &ni)) in rows().enumerate() {
        crate::codegen::keep_rolled();
        for (j, (zj, &nj)) in rows().enumerate().take(i + 1) {
            crate::codegen::keep_rolled();
            let v = pair_value(kernel, zi, zj, ni, nj);
            largest = largest.max(libm::fabsf(v));
            if let Some(x) = kmat.get_mut(i * n + j) {
                *x = v;
            }
            if let Some(x) = kmat.get_mut(j * n + i) {
                *x = v;
            }
        }
    }
    let inv_n = 1.0 / n.max(1) as f32;
    for (r, row) in row_means.iter_mut().zip(kmat.chunks_exact(n.max(1))) {
        crate::codegen::keep_rolled();
        *r = row.iter().sum::<f32>() * inv_n;
    }
    let g = row_means.iter().sum::<f32>() * inv_n;
    if !g.is_finite() || row_means.iter().any(|r| !r.is_finite()) {
        return Err(Error::NonFiniteResult);
    }
    for (row, &ri) in kmat.chunks_exact_mut(n.max(1)).zip(row_means.iter()) {
        crate::codegen::keep_rolled();
        for (x, &rj) in row.iter_mut().zip(row_means.iter()) {
            crate::codegen::keep_rolled();
            *x = *x - ri - rj + g;
        }
    }
    Ok((g, largest))
}
