//! The fit driver, the one place where a fit is put together: the checks of the
//! data, the standardisation, the decision between full (with its solver) and
//! Nyström kernel PCA, the fit itself, the shared post-processing and the
//! fitted model.

use crate::data::Dataset;
use crate::decomposition::Decomposition;
use crate::fitted::{FittedKpca, Method, Standardizer};
use crate::kernel::Kernel64;
use crate::params::{KernelPcaParams, Nystrom, ResolvedSolver, ValidKernelPcaParams};
use crate::rng::{sample_landmarks, SeededRng};
use crate::{full, nystrom, FitError, MAX_FULL_POINTS};
use rand_core::SeedableRng;
use std::vec::Vec;

/// The training data as the fits see it.
#[derive(Debug)]
pub(crate) struct TrainingData {
    /// The (standardised) points, n x d row-major.
    pub z: Vec<f64>,
    /// Number of points n.
    pub n: usize,
    /// Number of features d.
    pub d: usize,
    /// The kernel, gamma resolved for d.
    pub kernel: Kernel64,
    /// The standardisation applied to `z`, when it is on.
    pub standardizer: Option<Standardizer>,
}

impl TrainingData {
    /// Checks the data against the parameters (finite, n >= k + 1, not constant;
    /// no constant column when standardising), standardises it and resolves the
    /// kernel.
    fn prepare(p: &KernelPcaParams, data: &Dataset<'_>) -> Result<Self, FitError> {
        let (n, d, k) = (data.n_rows(), data.n_features(), p.n_components);
        data.check_finite()?;
        if n < k.saturating_add(1) {
            return Err(FitError::TooFewPoints {
                n_points: n,
                n_components: k,
            });
        }
        let first = &data.values()[..d];
        if data.rows().all(|r| r == first) {
            return Err(FitError::ConstantData);
        }
        let standardizer = if p.standardize {
            Some(Standardizer::from_data(data)?)
        } else {
            None
        };
        let z = match &standardizer {
            Some(s) => s.apply_all(data.values()),
            None => data.values().to_vec(),
        };
        Ok(TrainingData {
            z,
            n,
            d,
            kernel: p.kernel.resolve(d),
            standardizer,
        })
    }
}

/// Which fit runs, decided once from the parameters and n.
#[derive(Debug)]
enum Plan {
    /// Full kernel PCA with this solver.
    Full(ResolvedSolver),
    /// Nyström kernel PCA with these landmarks (drawn from `seed` when given).
    Nystrom {
        landmarks: Vec<usize>,
        seed: Option<u64>,
    },
}

impl Plan {
    /// The plan for n points: [`FitError::TooManyPoints`] for a full fit past
    /// [`MAX_FULL_POINTS`]; for Nyström, the landmarks (drawn, or checked
    /// against n).
    fn decide(p: &KernelPcaParams, train: &TrainingData) -> Result<Plan, FitError> {
        let n = train.n;
        match &p.nystrom {
            None if n > MAX_FULL_POINTS => Err(FitError::TooManyPoints {
                n_points: n,
                max: MAX_FULL_POINTS,
            }),
            None => Ok(Plan::Full(p.solver.resolve(n, p.n_components))),
            Some(ny) => Ok(Plan::Nystrom {
                landmarks: landmarks(ny, train, p.n_components)?,
                seed: ny.seed(),
            }),
        }
    }

    /// The fitted model's [`Method`].
    fn into_method(self) -> Method {
        match self {
            Plan::Full(_) => Method::Full,
            Plan::Nystrom { landmarks, seed } => Method::Nystrom { landmarks, seed },
        }
    }
}

/// The landmark indices of the training rows for k components: drawn with
/// [`SeededRng`] (uniformly, by k-means++ or by pivoted Cholesky), or the
/// given ones checked against n.
fn landmarks(ny: &Nystrom, train: &TrainingData, k: usize) -> Result<Vec<usize>, FitError> {
    let n = train.n;
    let too_many = |m: usize| FitError::BadLandmarkCount {
        m,
        n_points: Some(n),
        n_components: Some(k),
    };
    match ny {
        Nystrom::Random { m, seed } => {
            if *m > n {
                return Err(too_many(*m));
            }
            sample_landmarks(&mut SeededRng::seed_from_u64(*seed), n, *m)
        }
        Nystrom::KMeansPlusPlus { m, seed } => {
            if *m > n {
                return Err(too_many(*m));
            }
            crate::landmarks::kmeans_pp(&train.z, train.d, *m, *seed)
        }
        Nystrom::RpCholesky { m, seed } => {
            if *m > n {
                return Err(too_many(*m));
            }
            crate::landmarks::rp_cholesky(&train.z, train.d, &train.kernel, *m, *seed)
        }
        Nystrom::Indices(idx) => {
            if idx.len() > n {
                return Err(too_many(idx.len()));
            }
            if let Some(&bad) = idx.iter().find(|&&i| i >= n) {
                return Err(FitError::BadLandmarkIndex {
                    index: bad,
                    n_points: n,
                    duplicate: false,
                });
            }
            Ok(idx.clone())
        }
    }
}

/// Fits kernel PCA (full or Nyström) with the checked parameters to the rows of
/// `data` (see [`ValidKernelPcaParams::fit`] for the errors, in order).
pub(crate) fn fit(
    params: &ValidKernelPcaParams,
    data: &Dataset<'_>,
) -> Result<FittedKpca, FitError> {
    let p = params.params();
    let train = TrainingData::prepare(p, data)?;
    let plan = Plan::decide(p, &train)?;
    let decomposition: Decomposition = match &plan {
        Plan::Full(solver) => full::fit(params, &train, *solver)?,
        Plan::Nystrom { landmarks, .. } => nystrom::fit(params, &train, landmarks)?,
    };
    let (core, report, warnings) = decomposition.finish();
    FittedKpca::assemble(
        core,
        plan.into_method(),
        report,
        train,
        p.false_alarm_rate,
        warnings,
    )
}
