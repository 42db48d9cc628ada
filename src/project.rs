//! The one projection code path: coordinates and anomaly score of a vector.
//!
//! Landmarks are processed in blocks of [`BLOCK`]: first the kernel values of the
//! block (one loop per kernel family, chosen once per block), then the k
//! coordinates and the score term c'k_x are accumulated. For k <= 8 the
//! accumulators are a fixed-size array the compiler keeps in registers; larger k
//! runs the same loops in chunks of 8 components.

use crate::error::Error;
use crate::fastmath;
use crate::kernel::{cosine, powi, Kernel};
use crate::model::{ModelRef, MAX_COMPONENTS};

/// Landmarks per block of kernel evaluations.
const BLOCK: usize = 8;
/// Components accumulated per pass when k > 8.
const CHUNK: usize = 8;

/// The input as the kernels see it: raw, or standardised on the fly.
#[derive(Clone, Copy)]
struct Input<'x> {
    x: &'x [f32],
    mean: &'x [f32],
    inv_std: &'x [f32],
    /// ‖x'‖² of the (standardised) input.
    sq_norm: f32,
}

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
        if self.mean.is_empty() {
            self.x
                .iter()
                .zip(z)
                .map(|(&a, &b)| libm::fabsf(a - b))
                .sum()
        } else {
            let mut acc = 0.0f32;
            for (((&xj, &mj), &sj), &zj) in self.x.iter().zip(self.mean).zip(self.inv_std).zip(z) {
                acc += libm::fabsf((xj - mj) * sj - zj);
            }
            acc
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
            Kernel::Sigmoid { gamma, coef0 } => libm::tanhf(gamma * xn + coef0),
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
        let n = out.len();
        let rows = self
            .points
            .get(start * d..(start + n) * d)
            .unwrap_or(&[])
            .chunks_exact(d);
        let norms = self.point_sq_norms.get(start..start + n).unwrap_or(&[]);
        let xn = input.sq_norm;
        let slots = out.iter_mut().zip(rows).zip(norms);
        match self.kernel {
            Kernel::Rbf { gamma } => {
                for ((o, z), &zn) in slots {
                    let d2 = xn + zn - 2.0 * input.dot(z);
                    *o = fastmath::exp(-gamma * d2.max(0.0));
                }
            }
            Kernel::Linear => {
                for ((o, z), _) in slots {
                    *o = input.dot(z);
                }
            }
            Kernel::Polynomial {
                gamma,
                degree,
                coef0,
            } => {
                for ((o, z), _) in slots {
                    *o = powi(gamma * input.dot(z) + coef0, degree);
                }
            }
            Kernel::Sigmoid { gamma, coef0 } => {
                for ((o, z), _) in slots {
                    *o = libm::tanhf(gamma * input.dot(z) + coef0);
                }
            }
            Kernel::Cosine => {
                for ((o, z), &zn) in slots {
                    *o = cosine(input.dot(z), xn, zn);
                }
            }
            Kernel::Laplacian { gamma } => {
                for ((o, z), _) in slots {
                    *o = fastmath::exp(-gamma * input.l1(z));
                }
            }
        }
    }

    /// y_l = sum_i k_i A[i][first + l] for l < K, and c'k when `first == 0`.
    /// `K` is the number of components accumulated in this pass.
    #[inline(never)]
    fn accumulate<const K: usize>(&self, input: &Input<'_>, first: usize) -> ([f32; K], f32) {
        let k = self.n_components;
        let mut acc = [0.0f32; K];
        let mut ck = 0.0f32;
        let mut kv = [0.0f32; BLOCK];
        let mut start = 0;
        while start < self.n_points {
            let n = (self.n_points - start).min(BLOCK);
            let block = &mut kv[..n];
            self.kernel_block(input, start, block);
            let a_rows = self.a.get(start * k..(start + n) * k).unwrap_or(&[]);
            let c_block = self.c.get(start..start + n).unwrap_or(&[]);
            if K == k {
                // All components in one pass: rows of A are exactly K long.
                let (rows, _) = a_rows.as_chunks::<K>();
                for ((&kvi, row), &ci) in block.iter().zip(rows).zip(c_block) {
                    for l in 0..K {
                        acc[l] += kvi * row[l];
                    }
                    ck += kvi * ci;
                }
            } else {
                for ((&kvi, row), &ci) in block.iter().zip(a_rows.chunks_exact(k)).zip(c_block) {
                    let part = row.get(first..).unwrap_or(&[]);
                    for (a, &r) in acc.iter_mut().zip(part) {
                        *a += kvi * r;
                    }
                    ck += kvi * ci;
                }
            }
            start += n;
        }
        (acc, ck)
    }

    /// Coordinates into `y[..k]` (staging, not the caller's buffer) and c'k_x.
    fn coordinates(&self, input: &Input<'_>, y: &mut [f32; MAX_COMPONENTS]) -> f32 {
        macro_rules! fixed {
            ($k:literal) => {{
                let (acc, ck) = self.accumulate::<$k>(input, 0);
                for (dst, src) in y.iter_mut().zip(acc) {
                    *dst = src;
                }
                ck
            }};
        }
        let ck = match self.n_components {
            1 => fixed!(1),
            2 => fixed!(2),
            3 => fixed!(3),
            4 => fixed!(4),
            5 => fixed!(5),
            6 => fixed!(6),
            7 => fixed!(7),
            8 => fixed!(8),
            k => {
                let mut ck = 0.0;
                let mut first = 0;
                while first < k {
                    let (acc, ck_pass) = self.accumulate::<CHUNK>(input, first);
                    if first == 0 {
                        ck = ck_pass;
                    }
                    let dst = y.get_mut(first..).unwrap_or(&mut []);
                    for (d, s) in dst.iter_mut().zip(acc).take(k - first) {
                        *d = s;
                    }
                    first += CHUNK;
                }
                ck
            }
        };
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
        let e = if score {
            let sum_sq: f32 = y.iter().map(|v| v * v).sum();
            self.self_kernel(&input) - 2.0 * ck + self.s - sum_sq
        } else {
            0.0
        };
        if !e.is_finite() || !y.iter().all(|v| v.is_finite()) {
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
        if !xs.len().is_multiple_of(self.dim) {
            return Err(Error::BatchLength);
        }
        let rows = xs.len() / self.dim;
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
