//! The Nyström fit's first pass as sums that merge (DESIGN.md section 3):
//! over any part of the training rows, n, s1 = sum (kappa_i - mu0) and
//! s2 = sum (kappa_i - mu0)(kappa_i - mu0)' (m x m), with kappa_i the kernel
//! values of row i against the m landmarks and mu0 the landmarks' own mean
//! kernel row (a shift fixed by the landmarks alone, so every part uses the
//! same one and the sums add). [`NystromSums::update`] adds rows,
//! [`NystromSums::merge`] adds another part's sums, and
//! [`NystromSums::finish`] solves the fit from them: any split of the data,
//! in any order, gives the one-pass result up to the rounding of the
//! additions (tests: 1e-10). The full-data Nyström fit (`KernelPca` with
//! `nystrom`) runs the same code with one update.
//!
//! Memory: O(m²) for the sums and O(m · 2048) for a block of kernel values,
//! whatever the number of rows: a fit of data that does not fit in memory
//! streams it in chunks (or in partitions on several machines) through
//! `update`, merges, finishes, and then scores the rows in a second pass
//! ([`NystromSolution::transform_and_score`]) for the threshold.

use crate::data::Dataset;
use crate::error::FitError;
use crate::kernel::{Kernel64, KernelSpec};
use crate::linalg::{par, Dense};
use crate::nystrom::{scores_and_self_terms, shift_columns, Landmarks, Solved, ROW_BLOCK};
use crate::params::DEFAULT_PINV_RTOL;
use crate::warning::FitWarning;
use faer::MatRef;
use std::vec;
use std::vec::Vec;

/// The first-pass sums of a Nyström fit over some of the training rows.
#[derive(Clone, Debug)]
pub struct NystromSums {
    pub(crate) kernel: Kernel64,
    pub(crate) lm: Landmarks,
    /// K_mm, column-major m x m.
    pub(crate) kmm: Vec<f64>,
    /// The shift: the column means of K_mm.
    pub(crate) mu0: Vec<f64>,
    /// Rows summed.
    pub(crate) n: usize,
    /// sum (kappa_i - mu0).
    pub(crate) s1: Vec<f64>,
    /// sum (kappa_i - mu0)(kappa_i - mu0)', lower triangle (m x m).
    pub(crate) s2: Dense,
}

/// The data mean in the landmark features and the scatter about it.
pub(crate) struct Moments {
    /// n_mean = (1/n) K_nm' 1.
    pub n_mean: Vec<f64>,
    /// S = sum_i (kappa_i - n_mean)(kappa_i - n_mean)', m x m, symmetric.
    pub scatter: Dense,
}

impl NystromSums {
    /// Sums over no rows yet, for the kernel `kernel` (an unset gamma is
    /// 1/d) and the landmark rows `landmarks`, in the space the training rows
    /// will be given in (standardised, when the fit standardises).
    ///
    /// Errors: the kernel's, [`FitError::NonFiniteInput`],
    /// [`FitError::EmptyData`] for no landmark, [`FitError::NonFiniteKernel`].
    pub fn new(kernel: &KernelSpec, landmarks: &Dataset<'_>) -> Result<Self, FitError> {
        landmarks.check_finite()?;
        kernel.check()?;
        let d = landmarks.n_features();
        NystromSums::with_points(kernel.resolve(d), landmarks.values().to_vec(), d)
    }

    /// The same from a resolved kernel and the landmark points (m x d).
    pub(crate) fn with_points(
        kernel: Kernel64,
        points: Vec<f64>,
        d: usize,
    ) -> Result<Self, FitError> {
        let lm = Landmarks::from_points(points, d);
        let m = lm.m;
        if m == 0 {
            return Err(FitError::EmptyData);
        }
        let kmm = lm.kernel_columns(&kernel, &lm.points)?;
        let mu0 = kmm
            .chunks_exact(m)
            .map(|col| col.iter().sum::<f64>() / m as f64)
            .collect();
        Ok(NystromSums {
            kernel,
            lm,
            kmm,
            mu0,
            n: 0,
            s1: vec![0.0; m],
            s2: Dense::zeros(m, m),
        })
    }

    /// Adds the rows of `rows` (the landmarks' d features each).
    ///
    /// Errors: [`FitError::FeatureMismatch`], [`FitError::NonFiniteInput`]
    /// (nothing added), [`FitError::NonFiniteKernel`] (a kernel value past
    /// the f64 range; the blocks before it were added: start again).
    pub fn update(&mut self, rows: &Dataset<'_>) -> Result<(), FitError> {
        rows.check_rows(self.lm.d)?;
        self.add(rows.values())
    }

    /// Adds the row-major rows `z`, block by block.
    pub(crate) fn add(&mut self, z: &[f64]) -> Result<(), FitError> {
        use faer::linalg::matmul::triangular::{self, BlockStructure};
        let m = self.lm.m;
        for block in z.chunks(self.lm.d.max(1) * ROW_BLOCK) {
            let mut kb = self.lm.kernel_columns(&self.kernel, block)?;
            let c = kb.len() / m.max(1);
            let block_sum = shift_columns(&mut kb, &self.mu0, true);
            self.s1
                .iter_mut()
                .zip(&block_sum)
                .for_each(|(a, b)| *a += b);
            let kbm = MatRef::from_column_major_slice(&kb, m, c);
            triangular::matmul(
                self.s2.as_mut(),
                BlockStructure::TriangularLower,
                faer::Accum::Add,
                kbm,
                BlockStructure::Rectangular,
                kbm.transpose(),
                BlockStructure::Rectangular,
                1.0,
                par(),
            );
            self.n += c;
        }
        Ok(())
    }

    /// Adds the sums of another part of the data, taken with the same kernel
    /// and landmarks ([`FitError::SumsMismatch`] otherwise).
    pub fn merge(&mut self, other: &NystromSums) -> Result<(), FitError> {
        if self.kernel != other.kernel || self.lm != other.lm {
            return Err(FitError::SumsMismatch);
        }
        self.n += other.n;
        self.s1.iter_mut().zip(&other.s1).for_each(|(a, b)| *a += b);
        let m = self.lm.m;
        for j in 0..m {
            let (dst, src) = (self.s2.col_mut(j), other.s2.col(j));
            dst[j..]
                .iter_mut()
                .zip(&src[j..])
                .for_each(|(a, b)| *a += b);
        }
        Ok(())
    }

    /// The sums as one f64 array (to cross a process boundary): m, n, s1,
    /// then the lower triangle of s2 column by column.
    pub fn sums_array(&self) -> Vec<f64> {
        let m = self.lm.m;
        let mut out = Vec::with_capacity(2 + m + m * (m + 1) / 2);
        out.extend_from_slice(&[m as f64, self.n as f64]);
        out.extend_from_slice(&self.s1);
        for j in 0..m {
            out.extend_from_slice(&self.s2.col(j)[j..]);
        }
        out
    }

    /// Adds sums of [`NystromSums::sums_array`] taken with the same kernel
    /// and landmarks as these (the array cannot say which: the caller keeps
    /// them together); [`FitError::BadParts`] for an array of another m.
    pub fn merge_array(&mut self, a: &[f64]) -> Result<(), FitError> {
        let m = self.lm.m;
        let bad = FitError::BadParts {
            what: "Nystrom sums",
        };
        let Some(n) = crate::parts::count_at(a, 1) else {
            return Err(bad);
        };
        if a.first() != Some(&(m as f64)) || a.len() != 2 + m + m * (m + 1) / 2 {
            return Err(bad);
        }
        self.s1
            .iter_mut()
            .zip(&a[2..2 + m])
            .for_each(|(x, y)| *x += y);
        let mut at = 2 + m;
        for j in 0..m {
            let col = &mut self.s2.col_mut(j)[j..];
            col.iter_mut()
                .zip(&a[at..at + m - j])
                .for_each(|(x, y)| *x += y);
            at += m - j;
        }
        self.n += n;
        Ok(())
    }

    /// Rows summed so far.
    pub fn n_rows(&self) -> usize {
        self.n
    }

    /// Number of landmarks m.
    pub fn n_landmarks(&self) -> usize {
        self.lm.m
    }

    /// n_mean = mu0 + s1 / n and S = s2 - s1 s1' / n (symmetric);
    /// [`FitError::EmptyData`] before any row.
    pub(crate) fn moments(&self) -> Result<Moments, FitError> {
        if self.n == 0 {
            return Err(FitError::EmptyData);
        }
        let n_f = self.n as f64;
        let (s1, s2) = (&self.s1, &self.s2);
        let n_mean = self
            .mu0
            .iter()
            .zip(s1)
            .map(|(mu, s)| mu + s / n_f)
            .collect();
        let scatter = Dense::from_fn(self.lm.m, self.lm.m, |i, j| {
            let (i, j) = if i >= j { (i, j) } else { (j, i) };
            s2[(i, j)] - s1[i] * s1[j] / n_f
        });
        Ok(Moments { n_mean, scatter })
    }

    /// Solves the fit for `n_components` from the sums (the landmark
    /// matrices' pseudo-inverses at the default tolerance,
    /// [`crate::DEFAULT_PINV_RTOL`]).
    ///
    /// Errors: [`FitError::EmptyData`] before any row,
    /// [`FitError::ZeroComponents`], [`FitError::SingularLandmarks`],
    /// [`FitError::TooManyComponents`].
    pub fn finish(&self, n_components: usize) -> Result<NystromSolution, FitError> {
        if n_components == 0 {
            return Err(FitError::ZeroComponents);
        }
        let solved = Solved::new(self, self.kmm.clone(), n_components, DEFAULT_PINV_RTOL)?;
        Ok(NystromSolution {
            kernel: self.kernel,
            lm: self.lm.clone(),
            n: self.n,
            solved,
        })
    }
}

/// A Nyström fit solved from its sums: the eigenvalues and the projection of
/// any rows (signs as the eigensolver left them: scikit-learn's sign rule
/// needs the training scores, a second pass).
#[derive(Debug)]
pub struct NystromSolution {
    kernel: Kernel64,
    lm: Landmarks,
    n: usize,
    solved: Solved,
}

impl NystromSolution {
    /// The kept eigenvalues mu_l of the Nyström approximation of the centred
    /// n x n kernel matrix (the convention of [`crate::FittedKpca::eigenvalues`]).
    pub fn eigenvalues(&self) -> &[f64] {
        self.solved.spectrum.values()
    }

    /// Training rows the sums covered.
    pub fn n_rows(&self) -> usize {
        self.n
    }

    /// Warnings of the solve (indefinite landmark matrices).
    pub fn warnings(&self) -> &[FitWarning] {
        &self.solved.warnings
    }

    /// The scores (n x k row-major) and anomaly scores (the feature-space
    /// reconstruction errors) of `rows`.
    ///
    /// Errors: [`FitError::FeatureMismatch`], [`FitError::NonFiniteInput`],
    /// [`FitError::NonFiniteKernel`].
    pub fn transform_and_score(
        &self,
        rows: &Dataset<'_>,
    ) -> Result<(Vec<f64>, Vec<f64>), FitError> {
        rows.check_rows(self.lm.d)?;
        let k = self.eigenvalues().len();
        let (scores, self_terms) =
            scores_and_self_terms(&self.kernel, &self.lm, &self.solved, rows.values())?;
        let anomaly = self_terms
            .iter()
            .zip(scores.chunks_exact(k.max(1)))
            .map(|(e0, y)| e0 - y.iter().map(|v| v * v).sum::<f64>())
            .collect();
        Ok((scores, anomaly))
    }
}
