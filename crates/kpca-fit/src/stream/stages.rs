//! The stages of a streamed Nyström fit, each built from what the passes
//! before it computed, so the passes can run anywhere (one process reading a
//! file, or the partitions of a cluster) and meet in one place:
//! [`StreamPlan`] (after the survey: the checks, the standardisation and the
//! rows the landmarks come from), [`StreamLandmarks`] (those rows: the
//! landmarks, and the sums' update), [`StreamSolution`] (the merged sums
//! solved: each part's score summary, and the fitted model).

use super::scores::ScoreSummary;
use super::survey::ColumnSurvey;
use crate::data::{Dataset, Standardizer};
use crate::decomposition::{explained_variance_ratio, flip_columns, reconstruction_curve};
use crate::decomposition::{FitCore, SolverReport};
use crate::error::FitError;
use crate::fitted::{threshold_of, FittedKpca, Method};
use crate::kernel::Kernel64;
use crate::landmarks::{candidate_pool, kmeans_pp, rp_cholesky_in_pool};
use crate::nystrom::{scores_and_self_terms, Solved};
use crate::nystrom_sums::NystromSums;
use crate::params::{Nystrom, ValidKernelPcaParams};
use crate::rng::{sample_landmarks, SeededRng};
use rand_core::SeedableRng;
use std::borrow::Cow;
use std::vec::Vec;

/// After the survey: the checked plan of a streamed fit.
#[derive(Clone, Debug)]
pub struct StreamPlan {
    params: ValidKernelPcaParams,
    kernel: Kernel64,
    standardizer: Option<Standardizer>,
    n: usize,
    d: usize,
    /// The rows the landmarks come from (the landmarks themselves, or the
    /// candidate pool of k-means++ and pivoted Cholesky), in order.
    needed: Vec<usize>,
}

impl StreamPlan {
    /// The plan for the surveyed rows: the in-memory fit's checks, in its
    /// order ([`FitError::StreamNeedsNystrom`] first), the standardisation
    /// and the landmark rows (uniform draws and given indices: the in-memory
    /// fit's; k-means++ and pivoted Cholesky: their uniform pool of
    /// [`crate::RPC_POOL_PER_LANDMARK`] m rows).
    pub fn new(params: &ValidKernelPcaParams, survey: &ColumnSurvey) -> Result<Self, FitError> {
        let p = params.params();
        let ny = p.nystrom.as_ref().ok_or(FitError::StreamNeedsNystrom)?;
        let (n, d, k) = (survey.n_rows(), survey.n_features(), p.n_components);
        if n < k.saturating_add(1) {
            return Err(FitError::TooFewPoints {
                n_points: n,
                n_components: k,
            });
        }
        if !survey.varies() {
            return Err(FitError::ConstantData);
        }
        let standardizer = p.standardize.then(|| survey.standardizer()).transpose()?;
        let m = ny.m();
        if m > n {
            return Err(FitError::BadLandmarkCount {
                m,
                n_points: Some(n),
                n_components: Some(k),
            });
        }
        let needed = match ny {
            Nystrom::Random { m, seed } => {
                sample_landmarks(&mut SeededRng::seed_from_u64(*seed), n, *m)?
            }
            Nystrom::Indices(idx) => match idx.iter().find(|&&i| i >= n) {
                Some(&bad) => {
                    return Err(FitError::BadLandmarkIndex {
                        index: bad,
                        n_points: n,
                        duplicate: false,
                    })
                }
                None => idx.clone(),
            },
            Nystrom::KMeansPlusPlus { m, seed } | Nystrom::RpCholesky { m, seed } => {
                candidate_pool(&mut SeededRng::seed_from_u64(*seed), n, *m)?
            }
        };
        Ok(StreamPlan {
            params: params.clone(),
            kernel: p.kernel.resolve(d),
            standardizer,
            n,
            d,
            needed,
        })
    }

    /// The row indices whose rows [`StreamPlan::landmarks`] needs, in order.
    pub fn rows_needed(&self) -> &[usize] {
        &self.needed
    }

    /// Rows surveyed.
    pub fn n_rows(&self) -> usize {
        self.n
    }

    /// The rows of `chunk` in the fit's space (standardised when it is on).
    pub(crate) fn fit_space<'c>(&self, chunk: &'c [f64]) -> Cow<'c, [f64]> {
        match &self.standardizer {
            Some(s) => Cow::Owned(s.apply_all(chunk)),
            None => Cow::Borrowed(chunk),
        }
    }

    /// The landmarks from `rows`, the rows of [`StreamPlan::rows_needed`] in
    /// that order (in the data's units).
    ///
    /// Errors: [`FitError::FeatureMismatch`] or [`FitError::SourceChanged`]
    /// for other rows, [`FitError::NonFiniteInput`], the landmark choice's,
    /// [`FitError::NonFiniteKernel`].
    pub fn landmarks(&self, rows: &Dataset<'_>) -> Result<StreamLandmarks, FitError> {
        rows.check_rows(self.d)?;
        super::same_rows(self.needed.len(), rows.n_rows())?;
        let z = self.fit_space(rows.values()).into_owned();
        let d = self.d;
        let (indices, points) = match self.params.params().nystrom.as_ref() {
            Some(Nystrom::KMeansPlusPlus { m, seed }) => {
                let picked = kmeans_pp(&z, d, *m, *seed)?;
                gather(&self.needed, &z, d, &picked)
            }
            Some(Nystrom::RpCholesky { m, seed }) => {
                // The pool was the rng's first draw; pivoting continues it.
                let mut rng = SeededRng::seed_from_u64(*seed);
                candidate_pool(&mut rng, self.n, *m)?;
                let slots: Vec<usize> = (0..self.needed.len()).collect();
                let picked = rp_cholesky_in_pool(&z, &slots, d, &self.kernel, *m, &mut rng)?;
                gather(&self.needed, &z, d, &picked)
            }
            _ => (self.needed.clone(), z),
        };
        let sums = NystromSums::with_points(self.kernel, points, d)?;
        Ok(StreamLandmarks {
            plan: self.clone(),
            indices,
            empty: sums,
        })
    }
}

/// The rows at `slots` of the pool (`pool` indices, `z` its rows): their
/// row indices and their rows.
fn gather(pool: &[usize], z: &[f64], d: usize, slots: &[usize]) -> (Vec<usize>, Vec<f64>) {
    let indices = slots.iter().map(|&s| pool[s]).collect();
    let points = slots
        .iter()
        .flat_map(|&s| z[s * d..(s + 1) * d].iter().copied())
        .collect();
    (indices, points)
}

/// After the landmark rows: the landmarks, and sums over no row yet.
#[derive(Clone, Debug)]
pub struct StreamLandmarks {
    plan: StreamPlan,
    indices: Vec<usize>,
    empty: NystromSums,
}

impl StreamLandmarks {
    /// The landmarks' row indices, in the order of the stored points.
    pub fn indices(&self) -> &[usize] {
        &self.indices
    }

    /// Sums over no row, to [`StreamLandmarks::update`] and merge.
    pub fn new_sums(&self) -> NystromSums {
        self.empty.clone()
    }

    /// Adds `rows` (in the data's units) to `sums`.
    pub fn update(&self, sums: &mut NystromSums, rows: &Dataset<'_>) -> Result<(), FitError> {
        rows.check_rows(self.plan.d)?;
        sums.add(&self.plan.fit_space(rows.values()))
    }

    /// Solves the fit from the sums over every surveyed row
    /// ([`FitError::SourceChanged`] for another count, and the errors of
    /// [`NystromSums::finish`]).
    pub fn solve(&self, mut sums: NystromSums) -> Result<StreamSolution, FitError> {
        super::same_rows(self.plan.n, sums.n)?;
        if sums.lm != self.empty.lm || sums.kernel != self.empty.kernel {
            return Err(FitError::SumsMismatch);
        }
        let p = self.plan.params.params();
        let kmm = std::mem::take(&mut sums.kmm);
        let solved = Solved::new(&sums, kmm, p.n_components, p.pinv_rtol)?;
        Ok(StreamSolution {
            landmarks: self.clone(),
            sums,
            solved,
        })
    }
}

/// After the sums: the solved fit, before the scores pass.
#[derive(Debug)]
pub struct StreamSolution {
    landmarks: StreamLandmarks,
    sums: NystromSums,
    solved: Solved,
}

impl StreamSolution {
    /// Number of components k.
    pub fn n_components(&self) -> usize {
        self.solved.spectrum.values().len()
    }

    /// A summary over no row, to [`StreamSolution::score`] into and merge.
    pub fn new_summary(&self) -> ScoreSummary {
        let p = self.landmarks.plan.params.params();
        ScoreSummary::new(
            self.n_components(),
            self.landmarks.plan.n,
            1.0 - p.false_alarm_rate,
        )
    }

    /// Adds the scores of `rows` (in the data's units) to `summary`.
    pub fn score(&self, summary: &mut ScoreSummary, rows: &Dataset<'_>) -> Result<(), FitError> {
        let plan = &self.landmarks.plan;
        rows.check_rows(plan.d)?;
        let z = plan.fit_space(rows.values());
        let (scores, self_terms) =
            scores_and_self_terms(&plan.kernel, &self.sums.lm, &self.solved, &z)?;
        summary.update(&scores, &self_terms)
    }

    /// The fitted model from the summary over every surveyed row, in order:
    /// the components with the sign rule, the explained variance, the curve
    /// and the threshold ([`FitError::SourceChanged`] for another count).
    pub fn finish(self, summary: &ScoreSummary) -> Result<FittedKpca, FitError> {
        let StreamSolution {
            landmarks,
            sums,
            solved,
        } = self;
        let plan = landmarks.plan;
        super::same_rows(plan.n, summary.n_rows())?;
        let p = plan.params.params();
        let mut comp = solved.components();
        flip_columns(&mut comp, &summary.signs());
        let n = plan.n as f64;
        let mean_self = summary.mean_self_term();
        let (explained_variance_ratio, total_variance) =
            explained_variance_ratio(&solved.spectrum, &[mean_self * n]);
        let curve = reconstruction_curve(solved.spectrum.values(), mean_self, n);
        let mut warnings = solved.warnings;
        let level = 1.0 - p.false_alarm_rate;
        let threshold = threshold_of(summary.quantile(level), level, &mut warnings);
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
        let seed = p.nystrom.as_ref().and_then(Nystrom::seed);
        Ok(FittedKpca {
            core,
            method: Method::Nystrom {
                landmarks: landmarks.indices,
                seed,
            },
            solver: SolverReport::NystromDense,
            kernel: plan.kernel,
            standardizer: plan.standardizer,
            n_train: plan.n,
            n_features: plan.d,
            false_alarm_rate: p.false_alarm_rate,
            threshold,
            warnings,
            preimage: None,
            regression: None,
        })
    }
}
