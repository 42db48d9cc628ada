//! The one projection code path: coordinates and anomaly score of a vector.
//!
//! Landmarks are processed in blocks of [`BLOCK`]: first the kernel values of the
//! block (one dot-product loop shared by the inner-product kernels, then a short
//! per-kernel map chosen once per block), then the score term c'k_x and the k
//! coordinates, accumulated four components at a time in registers. Nothing is
//! written to the caller's buffer before the result is known to be finite.

use crate::error::Error;
use crate::fastmath;
use crate::kernel::{cosine, powi, Kernel};
use crate::model::{ModelRef, MAX_COMPONENTS};

/// Landmarks per block of kernel evaluations (their inner products are
/// accumulated together in registers).
const BLOCK: usize = 4;
/// Components accumulated together in registers.
const GROUP: usize = 4;

/// The input as the kernels see it: raw, or standardised on the fly.
#[derive(Clone, Copy)]
struct Input<'x> {
    x: &'x [f32],
    /// Empty when the model does not standardise.
    mean: &'x [f32],
    inv_std: &'x [f32],
    /// ‖x'‖² of the (standardised) input.
    sq_norm: f32,
}

/// x'z with four partial sums.
#[inline(always)]
fn dot(x: &[f32], z: &[f32]) -> f32 {
    let (xc, xr) = x.as_chunks::<4>();
    let (zc, zr) = z.as_chunks::<4>();
    let mut acc = [0.0f32; 4];
    for (a, b) in xc.iter().zip(zc) {
        acc[0] += a[0] * b[0];
        acc[1] += a[1] * b[1];
        acc[2] += a[2] * b[2];
        acc[3] += a[3] * b[3];
    }
    let mut tail = 0.0f32;
    for (a, b) in xr.iter().zip(zr) {
        tail += a * b;
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

impl Input<'_> {
    /// x' . z for one stored point.
    #[inline(always)]
    fn dot(&self, z: &[f32]) -> f32 {
        if self.mean.is_empty() {
            dot(self.x, z)
        } else {
            let mut acc = 0.0f32;
            for (((&xj, &mj), &sj), &zj) in self.x.iter().zip(self.mean).zip(self.inv_std).zip(z) {
                acc += (xj - mj) * sj * zj;
            }
            acc
        }
    }

    /// ‖x' - z‖₁ for one stored point.
    #[inline(always)]
    fn l1(&self, z: &[f32]) -> f32 {
        let mut acc = 0.0f32;
        if self.mean.is_empty() {
            for (&xj, &zj) in self.x.iter().zip(z) {
                acc += libm::fabsf(xj - zj);
            }
        } else {
            for (((&xj, &mj), &sj), &zj) in self.x.iter().zip(self.mean).zip(self.inv_std).zip(z) {
                acc += libm::fabsf((xj - mj) * sj - zj);
            }
        }
        acc
    }
}

/// Stored points per span: kernel values are staged in a buffer of this size.
const SPAN: usize = 16;

/// x'z_i for every stored point in `rows` (row-major, `out.len()` x d), in
/// register tiles of [`BLOCK`] points, the last partial tile point by point.
#[inline(never)]
fn span_dots(input: &Input<'_>, rows: &[f32], out: &mut [f32]) {
    let d = input.x.len();
    if d == 0 {
        return;
    }
    let (tiles, rest) = out.as_chunks_mut::<BLOCK>();
    let mut row_tiles = rows.chunks_exact(BLOCK * d);
    for (tile, z) in tiles.iter_mut().zip(&mut row_tiles) {
        *tile = block_dots(input, z);
    }
    for (o, z) in rest.iter_mut().zip(row_tiles.remainder().chunks_exact(d)) {
        *o = input.dot(z);
    }
}

/// RBF kernel values in place (`kv` holds x'z_i on entry) and their c-weighted sum:
/// k_i = exp(-gamma (‖x‖² + ‖z_i‖² - 2 x'z_i)).
#[inline(never)]
fn rbf_values(kv: &mut [f32], norms: &[f32], c: &[f32], gamma: f32, sq_norm: f32) -> f32 {
    let g_xn = gamma * sq_norm;
    let two_g = 2.0 * gamma;
    let mut ck = 0.0f32;
    for ((o, &zn), &ci) in kv.iter_mut().zip(norms).zip(c) {
        let v = fastmath::exp_neg(g_xn + gamma * zn - two_g * *o);
        ck += v * ci;
        *o = v;
    }
    ck
}

/// x'z_i for the BLOCK stored points in `rows` (BLOCK x d, row-major; returns
/// zeros if `rows` is shorter).
///
/// The input is taken four features at a time (standardised on the fly when
/// the model standardises) and held in registers while it meets every point of
/// the block, so each stored value is loaded once and costs one multiply-add,
/// and standardisation costs two operations per feature per block.
#[inline(always)]
#[allow(unsafe_code)]
fn block_dots(input: &Input<'_>, rows: &[f32]) -> [f32; BLOCK] {
    let d = input.x.len();
    let mut acc = [0.0f32; BLOCK];
    if rows.len() < BLOCK * d {
        return acc;
    }
    let (xc, xr) = input.x.as_chunks::<4>();
    let (mc, mr) = input.mean.as_chunks::<4>();
    let (sc, sr) = input.inv_std.as_chunks::<4>();
    let standardized = mc.len() == xc.len() && sc.len() == xc.len() && !input.mean.is_empty();
    let base = rows.as_ptr();
    // One tile step: the four features `v` (starting at feature 4c) against the
    // four features of each point of the block.
    let mut tile = |c: usize, v: [f32; 4]| {
        for (i, a) in acc.iter_mut().enumerate() {
            // SAFETY: i < BLOCK and 4c + 3 < 4 * xc.len() <= d, so the four floats
            // at i*d + 4c .. i*d + 4c + 4 lie inside `rows` (BLOCK * d floats,
            // checked above); [f32; 4] has the alignment of f32.
            let z = unsafe { &*base.add(i * d + 4 * c).cast::<[f32; 4]>() };
            *a += v[0] * z[0];
            *a += v[1] * z[1];
            *a += v[2] * z[2];
            *a += v[3] * z[3];
        }
    };
    if standardized {
        for (c, ((xq, m), s)) in xc.iter().zip(mc).zip(sc).enumerate() {
            tile(c, core::array::from_fn(|j| (xq[j] - m[j]) * s[j]));
        }
    } else {
        for (c, xq) in xc.iter().enumerate() {
            tile(c, *xq);
        }
    }
    let tail = 4 * xc.len();
    for (j, &xj) in xr.iter().enumerate() {
        let v = match (mr.get(j), sr.get(j)) {
            (Some(m), Some(s)) if standardized => (xj - m) * s,
            _ => xj,
        };
        for (i, a) in acc.iter_mut().enumerate() {
            if let Some(&z) = rows.get(i * d + tail + j) {
                *a += v * z;
            }
        }
    }
    acc
}

/// y[col..col + GROUP] += sum_i kv[i] * A[i][col..col + GROUP], and the tail
/// components one by one. `rows` are the block's rows of A (k each).
#[inline(always)]
fn accumulate(kv: &[f32], rows: &[f32], k: usize, y: &mut [f32; MAX_COMPONENTS]) {
    if k == 0 {
        return;
    }
    let mut col = 0;
    while col + GROUP <= k {
        if let Some(slot) = y.get_mut(col..col + GROUP) {
            let mut acc = [slot[0], slot[1], slot[2], slot[3]];
            for (&kvi, row) in kv.iter().zip(rows.chunks_exact(k)) {
                if let Some(a) = row.get(col..col + GROUP) {
                    acc[0] += kvi * a[0];
                    acc[1] += kvi * a[1];
                    acc[2] += kvi * a[2];
                    acc[3] += kvi * a[3];
                }
            }
            slot.copy_from_slice(&acc);
        }
        col += GROUP;
    }
    for (l, yl) in y.iter_mut().enumerate().take(k).skip(col) {
        for (&kvi, row) in kv.iter().zip(rows.chunks_exact(k)) {
            if let Some(&a) = row.get(l) {
                *yl += kvi * a;
            }
        }
    }
}

impl ModelRef<'_> {
    /// Checks `x` and returns the input the kernels see.
    fn prepare<'x>(&'x self, x: &'x [f32]) -> Result<Input<'x>, Error> {
        if x.len() != self.dim {
            return Err(Error::InputLength);
        }
        if !x.iter().all(|v| v.is_finite()) {
            return Err(Error::NonFiniteInput);
        }
        let sq_norm = if self.mean.is_empty() {
            dot(x, x)
        } else {
            let mut acc = 0.0f32;
            for ((&xj, &mj), &sj) in x.iter().zip(self.mean).zip(self.inv_std) {
                let v = (xj - mj) * sj;
                acc += v * v;
            }
            acc
        };
        Ok(Input {
            x,
            mean: self.mean,
            inv_std: self.inv_std,
            sq_norm,
        })
    }

    /// k(x, x) of the prepared input.
    fn self_kernel(&self, input: &Input<'_>) -> f32 {
        let xn = input.sq_norm;
        match self.kernel {
            Kernel::Rbf { .. } | Kernel::Laplacian { .. } => 1.0,
            Kernel::Linear => xn,
            Kernel::Polynomial {
                gamma,
                degree,
                coef0,
            } => powi(gamma * xn + coef0, degree),
            Kernel::Sigmoid { gamma, coef0 } => fastmath::tanh(gamma * xn + coef0),
            Kernel::Cosine => {
                if xn > 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }

    /// Kernel values of the stored points `start .. start + out.len()` with `input`.
    #[inline(never)]
    fn kernel_block(&self, input: &Input<'_>, start: usize, out: &mut [f32]) {
        let d = self.dim;
        if d == 0 {
            return;
        }
        let n = out.len();
        let rows = self.points.get(start * d..(start + n) * d).unwrap_or(&[]);
        let norms = self.point_sq_norms.get(start..start + n).unwrap_or(&[]);
        if let Kernel::Laplacian { gamma } = self.kernel {
            for (o, z) in out.iter_mut().zip(rows.chunks_exact(d)) {
                *o = fastmath::exp_neg(gamma * input.l1(z));
            }
            return;
        }
        if let Ok(full) = <&mut [f32; BLOCK]>::try_from(&mut *out) {
            *full = block_dots(input, rows);
        } else {
            for (o, z) in out.iter_mut().zip(rows.chunks_exact(d)) {
                *o = input.dot(z);
            }
        }
        let xn = input.sq_norm;
        match self.kernel {
            Kernel::Rbf { gamma } => {
                for (o, &zn) in out.iter_mut().zip(norms) {
                    *o = fastmath::exp_neg(gamma * (xn + zn - 2.0 * *o));
                }
            }
            Kernel::Polynomial {
                gamma,
                degree,
                coef0,
            } => {
                for o in out.iter_mut() {
                    *o = powi(gamma * *o + coef0, degree);
                }
            }
            Kernel::Sigmoid { gamma, coef0 } => {
                for o in out.iter_mut() {
                    *o = fastmath::tanh(gamma * *o + coef0);
                }
            }
            Kernel::Cosine => {
                for (o, &zn) in out.iter_mut().zip(norms) {
                    *o = cosine(*o, xn, zn);
                }
            }
            Kernel::Linear | Kernel::Laplacian { .. } => {}
        }
    }

    /// Coordinates y (first k entries of the staging array) and c'k_x.
    ///
    /// Stored points are taken [`SPAN`] at a time: their kernel values are
    /// computed into a small buffer (for RBF: inner products in register tiles,
    /// then one tight loop for the exponentials), then c'k_x and the k
    /// coordinates are accumulated from it.
    fn coordinates(&self, input: &Input<'_>, y: &mut [f32; MAX_COMPONENTS]) -> f32 {
        let k = self.n_components;
        let d = self.dim;
        let mut ck = 0.0f32;
        let mut kv = [0.0f32; SPAN];
        let mut start = 0;
        while start < self.n_points {
            let n = (self.n_points - start).min(SPAN);
            let span = kv.get_mut(..n).unwrap_or(&mut []);
            let c_span = self.c.get(start..start + n).unwrap_or(&[]);
            if let Kernel::Rbf { gamma } = self.kernel {
                let rows = self.points.get(start * d..(start + n) * d).unwrap_or(&[]);
                let norms = self.point_sq_norms.get(start..start + n).unwrap_or(&[]);
                span_dots(input, rows, span);
                ck += rbf_values(span, norms, c_span, gamma, input.sq_norm);
            } else {
                self.kernel_block(input, start, span);
                for (&kvi, &ci) in span.iter().zip(c_span) {
                    ck += kvi * ci;
                }
            }
            let a_rows = self.a.get(start * k..(start + n) * k).unwrap_or(&[]);
            accumulate(span, a_rows, k, y);
            start += n;
        }
        for (yl, bl) in y.iter_mut().zip(self.b) {
            *yl += bl;
        }
        ck
    }

    /// Computes coordinates and, if `score` is set, the anomaly score; writes `out`
    /// only when everything is finite.
    fn evaluate(&self, x: &[f32], out: &mut [f32], score: bool) -> Result<f32, Error> {
        let k = self.n_components;
        if out.len() < k {
            return Err(Error::OutputLength);
        }
        let input = self.prepare(x)?;
        let mut y = [0.0f32; MAX_COMPONENTS];
        let ck = self.coordinates(&input, &mut y);
        let y = y.get(..k).unwrap_or(&[]);
        let mut finite = true;
        let mut sum_sq = 0.0f32;
        for v in y {
            finite &= v.is_finite();
            sum_sq += v * v;
        }
        let e = if score {
            self.self_kernel(&input) - 2.0 * ck + self.s - sum_sq
        } else {
            0.0
        };
        if !finite || !e.is_finite() {
            return Err(Error::NonFiniteResult);
        }
        for (o, v) in out.iter_mut().zip(y) {
            *o = *v;
        }
        Ok(e)
    }

    /// The k kernel-PCA coordinates of `x` (length d) into `out[..k]`.
    ///
    /// Errors: [`Error::InputLength`], [`Error::OutputLength`] (`out` shorter than k),
    /// [`Error::NonFiniteInput`], [`Error::NonFiniteResult`]. `out` is written only on success.
    pub fn project(&self, x: &[f32], out: &mut [f32]) -> Result<(), Error> {
        self.evaluate(x, out, false).map(|_| ())
    }

    /// The anomaly score e(x): the squared distance in feature space between
    /// phi(x) and its reconstruction from the k components (DESIGN.md section 2).
    pub fn anomaly_score(&self, x: &[f32]) -> Result<f32, Error> {
        let mut y = [0.0f32; MAX_COMPONENTS];
        self.evaluate(x, &mut y, true)
    }

    /// Coordinates into `out[..k]` and the anomaly score, in one pass.
    pub fn project_and_score(&self, x: &[f32], out: &mut [f32]) -> Result<f32, Error> {
        self.evaluate(x, out, true)
    }

    /// Whether the anomaly score of `x` exceeds the stored threshold.
    /// [`Error::ThresholdUnset`] when the model has none.
    pub fn is_anomaly(&self, x: &[f32]) -> Result<bool, Error> {
        if self.threshold <= 0.0 {
            return Err(Error::ThresholdUnset);
        }
        Ok(self.anomaly_score(x)? > self.threshold)
    }

    /// Checks a batch of row-major vectors and returns the number of rows.
    fn batch_rows(&self, xs: &[f32], out_len: usize, per_row: usize) -> Result<usize, Error> {
        if self.dim == 0 || self.n_components == 0 {
            return Err(Error::ZeroDimension);
        }
        let rows = xs.len() / self.dim;
        if !xs.len().is_multiple_of(self.dim) {
            return Err(Error::BatchLength);
        }
        if out_len < rows.saturating_mul(per_row) {
            return Err(Error::OutputLength);
        }
        if !xs.iter().all(|v| v.is_finite()) {
            return Err(Error::NonFiniteInput);
        }
        Ok(rows)
    }

    /// Projects each row of `xs` (row-major, n x d) into the rows of `out` (n x k).
    /// All inputs are checked before anything is written; if a result overflows
    /// ([`Error::NonFiniteResult`]) the rows before it have been written.
    /// Returns the number of rows.
    pub fn project_batch(&self, xs: &[f32], out: &mut [f32]) -> Result<usize, Error> {
        let rows = self.batch_rows(xs, out.len(), self.n_components)?;
        for (x, o) in xs
            .chunks_exact(self.dim)
            .zip(out.chunks_exact_mut(self.n_components))
        {
            self.project(x, o)?;
        }
        Ok(rows)
    }

    /// Anomaly scores of each row of `xs` (row-major, n x d) into `scores[..n]`,
    /// with the same checking and writing rules as [`ModelRef::project_batch`].
    pub fn anomaly_score_batch(&self, xs: &[f32], scores: &mut [f32]) -> Result<usize, Error> {
        let rows = self.batch_rows(xs, scores.len(), 1)?;
        for (x, s) in xs.chunks_exact(self.dim).zip(scores.iter_mut()) {
            *s = self.anomaly_score(x)?;
        }
        Ok(rows)
    }
}
