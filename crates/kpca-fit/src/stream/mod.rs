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
//! 3. sums ([`crate::NystromSums`]), then the solve;
//! 4. scores: scikit-learn's sign rule (each score column's entry of largest
//!    absolute value), the anomaly threshold (numpy's quantile, from the
//!    upper tail of the anomaly scores only) and the mean self term.
//!
//! The result is the in-memory fit's up to the rounding of the chunked sums
//! (tests: 1e-10), except that the training scores are not kept
//! ([`FittedKpca::rows_kept`] is false; what needs them refuses with
//! [`FitError::RowsNotKept`]).

mod scores;
mod stages;
mod survey;

pub use scores::ScoreSummary;
pub use stages::{StreamLandmarks, StreamPlan, StreamSolution};
pub use survey::ColumnSurvey;

use crate::data::Dataset;
use crate::error::FitError;
use crate::fitted::FittedKpca;
use crate::params::ValidKernelPcaParams;
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
    if params.params().nystrom.is_none() {
        return Err(FitError::StreamNeedsNystrom.into());
    }
    let d = source.n_features();
    let mut survey = ColumnSurvey::new(d);
    source.read_pass(Pass::Survey, &mut |chunk| {
        survey.update(&Dataset::new(chunk, d)?)
    })?;
    let plan = StreamPlan::new(params, &survey)?;
    let rows = gather_rows(source, plan.rows_needed(), d)?;
    let landmarks = plan.landmarks(&Dataset::new(rows, d)?)?;
    let mut sums = landmarks.new_sums();
    source.read_pass(Pass::Sums, &mut |chunk| {
        landmarks.update(&mut sums, &Dataset::new(chunk, d)?)
    })?;
    let solution = landmarks.solve(sums)?;
    let mut summary = solution.new_summary();
    source.read_pass(Pass::Scores, &mut |chunk| {
        solution.score(&mut summary, &Dataset::new(chunk, d)?)
    })?;
    Ok(solution.finish(&summary)?)
}

/// [`FitError::SourceChanged`] unless a later pass read the first pass's
/// `expected` rows.
pub(crate) fn same_rows(expected: usize, got: usize) -> Result<(), FitError> {
    if expected == got {
        Ok(())
    } else {
        Err(FitError::SourceChanged { expected, got })
    }
}

/// The rows at `indices` (each below the row count), in that order: one
/// pass over the source.
fn gather_rows<S: RowSource>(
    source: &mut S,
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
    Ok(out)
}
