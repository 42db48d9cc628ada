//! The Nyström fit of data that is read, not held: training rows come in
//! chunks from a [`RowSource`] that can be read more than once, and memory
//! stays O(m² + chunk · m) whatever the number of rows (DESIGN.md section 3).
//!
//! Four passes over the source:
//! 1. survey ([`ColumnSurvey`]): the row count, the column moments for the
//!    standardisation, the checks of the in-memory fit (finite values, n > k,
//!    not one repeated point, no constant column when standardising);
//! 2. landmarks: the landmark rows, chosen by index from n alone as the
//!    in-memory fit chooses them (uniform draws and given indices give the
//!    same landmarks; k-means++ and pivoted Cholesky run on a uniform pool of
//!    [`crate::RPC_POOL_PER_LANDMARK`] m rows, which for pivoted Cholesky is
//!    the in-memory fit's own pool);
//! 3. sums ([`NystromSums`]), then the solve;
//! 4. scores: scikit-learn's sign rule (each score column's entry of largest
//!    absolute value), the anomaly threshold (numpy's quantile, from the
//!    upper tail of the anomaly scores only) and the mean self term.
//!
//! The result is the in-memory fit's up to the rounding of the chunked sums
//! (tests: 1e-10), except that the training scores are not kept
//! ([`FittedKpca::rows_kept`] is false; what needs them refuses with
//! [`FitError::RowsNotKept`]).

pub(crate) mod scores;
mod survey;

pub use survey::ColumnSurvey;

use crate::data::Dataset;
use crate::decomposition::{explained_variance_ratio, reconstruction_curve};
use crate::fitted::{FitCore, FittedKpca, Method, SolverReport, Standardizer};
use crate::kernel::{sq_norms, Kernel64};
use crate::landmarks::{candidate_pool, kmeans_pp, rp_cholesky_in_pool};
use crate::nystrom::{row_major, scores_and_t, Solved};
use crate::nystrom_sums::NystromSums;
use crate::params::{Nystrom, ValidKernelPcaParams};
use crate::rng::{sample_landmarks, SeededRng};
use crate::{FitError, FitWarning};
use faer::MatRef;
use rand_core::SeedableRng;
use scores::ScoreSummary;
use std::borrow::Cow;
use std::vec::Vec;

/// Training rows that can be read, chunk by chunk, as often as needed.
pub trait RowSource {
    /// The source's own errors (reading, parsing); a fit error met while a
    /// chunk is used is handed back through `From`.
    type Error: From<FitError>;

    /// Number of features d of every row.
    fn n_features(&self) -> usize;

    /// Reads every row from the first, in order, handing each chunk (row
    /// major, a whole number of rows) to `use_chunk`, and stops at its first
    /// error. `pass` names the pass for progress reports.
    fn read_pass(
        &mut self,
        pass: Pass,
        use_chunk: &mut dyn FnMut(&[f64]) -> Result<(), FitError>,
    ) -> Result<(), Self::Error>;
}

/// The passes of a streamed fit, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Row count, column moments, checks.
    Survey,
    /// The landmark rows.
    Landmarks,
    /// The Nyström sums.
    Sums,
    /// The training scores' sign rule, threshold and mean.
    Scores,
}

impl Pass {
    /// 1-based position among the four passes.
    pub fn number(self) -> usize {
        match self {
            Pass::Survey => 1,
            Pass::Landmarks => 2,
            Pass::Sums => 3,
            Pass::Scores => 4,
        }
    }

    /// A short name for progress reports.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Survey => "survey",
            Pass::Landmarks => "landmarks",
            Pass::Sums => "sums",
            Pass::Scores => "scores",
        }
    }
}

/// Rows of a [`Dataset`] in chunks of `chunk_rows`, as a [`RowSource`] (for
/// tests, and for data that is in memory but should be fitted as a stream).
#[derive(Debug)]
pub struct ChunkedRows<'a> {
    data: &'a Dataset<'a>,
    chunk_rows: usize,
}

impl<'a> ChunkedRows<'a> {
    /// The rows of `data`, `chunk_rows` (at least 1) at a time.
    pub fn new(data: &'a Dataset<'a>, chunk_rows: usize) -> Self {
        ChunkedRows {
            data,
            chunk_rows: chunk_rows.max(1),
        }
    }
}

impl RowSource for ChunkedRows<'_> {
    type Error = FitError;

    fn n_features(&self) -> usize {
        self.data.n_features()
    }

    fn read_pass(
        &mut self,
        _pass: Pass,
        use_chunk: &mut dyn FnMut(&[f64]) -> Result<(), FitError>,
    ) -> Result<(), FitError> {
        let width = self.data.n_features() * self.chunk_rows;
        self.data
            .values()
            .chunks(width.max(1))
            .try_for_each(use_chunk)
    }
}

/// The rows of `chunk` in the fit's space (standardised when it standardises).
fn fit_space<'c>(chunk: &'c [f64], standardizer: Option<&Standardizer>) -> Cow<'c, [f64]> {
    match standardizer {
        Some(s) => Cow::Owned(s.apply_all(chunk)),
        None => Cow::Borrowed(chunk),
    }
}

/// Fits Nyström kernel PCA with the checked parameters (which must ask for
/// Nyström) to the rows of `source`, reading it four times (module doc).
///
/// Errors: the source's; [`FitError::StreamNeedsNystrom`]; then those of
/// [`ValidKernelPcaParams::fit`], in the same order (a row index in
/// [`FitError::NonFiniteInput`] counts from the source's first row).
pub fn fit_nystrom<S: RowSource>(
    params: &ValidKernelPcaParams,
    source: &mut S,
) -> Result<FittedKpca, S::Error> {
    let p = params.params();
    let ny = p.nystrom.as_ref().ok_or(FitError::StreamNeedsNystrom)?;
    let d = source.n_features();
    let k = p.n_components;
    let mut survey = ColumnSurvey::new(d);
    source.read_pass(Pass::Survey, &mut |chunk| {
        survey.update(&Dataset::new(chunk, d)?)
    })?;
    let n = survey.n_rows();
    if n < k.saturating_add(1) {
        return Err(FitError::TooFewPoints {
            n_points: n,
            n_components: k,
        }
        .into());
    }
    if !survey.varies() {
        return Err(FitError::ConstantData.into());
    }
    let standardizer = if p.standardize {
        Some(survey.standardizer()?)
    } else {
        None
    };
    let kernel = p.kernel.resolve(d)?;
    let landmarks = choose_landmarks(ny, source, standardizer.as_ref(), &kernel, n, k)?;
    let points = gather_rows(source, standardizer.as_ref(), &landmarks, d)?;
    let mut sums = NystromSums::with_points(kernel, points, d)?;
    source.read_pass(Pass::Sums, &mut |chunk| {
        sums.add(&fit_space(chunk, standardizer.as_ref()))
    })?;
    same_rows(n, sums.n)?;
    let kmm = std::mem::take(&mut sums.kmm);
    let solved = Solved::new(&sums, kmm, k, p.pinv_rtol)?;
    let q = 1.0 - p.false_alarm_rate;
    let mut summary = ScoreSummary::new(k, n, q);
    let vk = MatRef::from_column_major_slice(&solved.vk, solved.r, k);
    source.read_pass(Pass::Scores, &mut |chunk| {
        let z = fit_space(chunk, standardizer.as_ref());
        let (scores, t) = scores_and_t(&kernel, &sums.lm, &solved, vk, &z)?;
        let a = solved.whitening.a;
        let self_terms: Vec<f64> = sq_norms(&z, d.max(1))
            .iter()
            .zip(&t)
            .map(|(&sq, ti)| kernel.self_eval(sq) - 2.0 * ti + a)
            .collect();
        summary.update(&scores, &self_terms)
    })?;
    same_rows(n, summary.n_rows())?;
    let method = Method::Nystrom {
        landmarks,
        seed: ny.seed(),
    };
    let parts = StreamedParts {
        sums,
        solved,
        summary,
        kernel,
        standardizer,
    };
    Ok(parts.into_fitted(method, p.false_alarm_rate)?)
}

/// [`FitError::SourceChanged`] unless a later pass read the first pass's
/// `expected` rows.
fn same_rows(expected: usize, got: usize) -> Result<(), FitError> {
    if expected == got {
        Ok(())
    } else {
        Err(FitError::SourceChanged { expected, got })
    }
}

/// What the passes computed, before it becomes the fitted model.
struct StreamedParts {
    sums: NystromSums,
    solved: Solved,
    summary: ScoreSummary,
    kernel: Kernel64,
    standardizer: Option<Standardizer>,
}

impl StreamedParts {
    /// The fitted model: the components with the sign rule applied, the
    /// explained variance, the curve and the threshold.
    fn into_fitted(self, method: Method, rate: f64) -> Result<FittedKpca, FitError> {
        let StreamedParts {
            sums,
            solved,
            summary,
            kernel,
            standardizer,
        } = self;
        let k = solved.spectrum.values().len();
        let vk = MatRef::from_column_major_slice(&solved.vk, solved.r, k);
        let mut comp = row_major(crate::linalg::mul(solved.whitening.p.as_ref(), vk).as_ref());
        let signs = summary.signs();
        for row in comp.chunks_exact_mut(k.max(1)) {
            row.iter_mut().zip(&signs).for_each(|(v, s)| *v *= s);
        }
        let n = sums.n;
        let mean_self = summary.mean_self_term();
        let (explained_variance_ratio, total_variance) =
            explained_variance_ratio(&solved.spectrum, &[mean_self * n as f64]);
        let curve = reconstruction_curve(solved.spectrum.values(), mean_self, n as f64);
        let mut warnings = solved.warnings;
        let level = 1.0 - rate;
        let q = summary.quantile(level).unwrap_or(0.0);
        let threshold = if q > 0.0 {
            q
        } else {
            warnings.push(FitWarning::NoThreshold { level, quantile: q });
            0.0
        };
        let spectrum = solved.spectrum;
        let core = FitCore {
            points: sums.lm.points,
            comp,
            center: solved.n_mean,
            weights: solved.whitening.m0,
            s: solved.whitening.a,
            eigenvalues: spectrum.values().to_vec(),
            all_eigenvalues: spectrum.all().map(<[f64]>::to_vec),
            explained_variance_ratio,
            total_variance,
            train_scores: Vec::new(),
            train_anomaly: Vec::new(),
            curve,
        };
        Ok(FittedKpca {
            core,
            method,
            solver: SolverReport::NystromDense,
            kernel,
            standardizer,
            n_train: n,
            n_features: sums.lm.d,
            false_alarm_rate: rate,
            threshold,
            warnings,
            rows_kept: false,
            preimage: None,
            regression: None,
        })
    }
}

/// The landmark row indices, in the order of the stored points, from n (and,
/// for k-means++ and pivoted Cholesky, a pass that reads their pool).
fn choose_landmarks<S: RowSource>(
    ny: &Nystrom,
    source: &mut S,
    standardizer: Option<&Standardizer>,
    kernel: &Kernel64,
    n: usize,
    k: usize,
) -> Result<Vec<usize>, S::Error> {
    let m = ny.m();
    if m > n {
        return Err(FitError::BadLandmarkCount {
            m,
            n_points: Some(n),
            n_components: Some(k),
        }
        .into());
    }
    let d = source.n_features();
    match ny {
        Nystrom::Random { m, seed } => Ok(sample_landmarks(
            &mut SeededRng::seed_from_u64(*seed),
            n,
            *m,
        )?),
        Nystrom::Indices(idx) => match idx.iter().find(|&&i| i >= n) {
            Some(&bad) => Err(FitError::BadLandmarkIndex {
                index: bad,
                n_points: n,
                duplicate: false,
            }
            .into()),
            None => Ok(idx.clone()),
        },
        Nystrom::KMeansPlusPlus { m, seed } => {
            let mut rng = SeededRng::seed_from_u64(*seed);
            let pool = candidate_pool(&mut rng, n, *m)?;
            let points = gather_rows(source, standardizer, &pool, d)?;
            let picked = kmeans_pp(&points, d, *m, *seed)?;
            Ok(picked.into_iter().map(|i| pool[i]).collect())
        }
        Nystrom::RpCholesky { m, seed } => {
            let mut rng = SeededRng::seed_from_u64(*seed);
            let pool = candidate_pool(&mut rng, n, *m)?;
            let points = gather_rows(source, standardizer, &pool, d)?;
            let picked = rp_cholesky_in_pool(&points, &pool, d, kernel, *m, &mut rng)?;
            Ok(picked)
        }
    }
}

/// The rows at `indices` (each below the row count), in that order, in the
/// fit's space: one pass over the source.
fn gather_rows<S: RowSource>(
    source: &mut S,
    standardizer: Option<&Standardizer>,
    indices: &[usize],
    d: usize,
) -> Result<Vec<f64>, S::Error> {
    // (row, slot) by row, so one pass in order serves every slot.
    let mut wanted: Vec<(usize, usize)> = indices.iter().copied().zip(0..).collect();
    wanted.sort_unstable();
    let mut out = std::vec![0.0; indices.len() * d];
    let (mut next, mut first_row) = (0usize, 0usize);
    source.read_pass(Pass::Landmarks, &mut |chunk| {
        let rows = chunk.len() / d.max(1);
        while let Some(&(row, slot)) = wanted.get(next) {
            if row >= first_row + rows {
                break;
            }
            let at = (row - first_row) * d;
            out[slot * d..(slot + 1) * d].copy_from_slice(&chunk[at..at + d]);
            next += 1;
        }
        first_row += rows;
        Ok(())
    })?;
    if next < wanted.len() {
        return Err(FitError::SourceChanged {
            expected: wanted.last().map_or(0, |w| w.0 + 1),
            got: first_row,
        }
        .into());
    }
    Ok(match standardizer {
        Some(s) => s.apply_all(&out),
        None => out,
    })
}
