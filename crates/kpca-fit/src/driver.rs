//! The fit driver, the one place where a fit is put together: the checks of the
//! data, the standardisation, the decision between full (with its solver) and
//! Nyström kernel PCA, the fit itself, the shared post-processing and the
//! fitted model.

use crate::data::{Dataset, TrainingData};
use crate::decomposition::Decomposition;
use crate::error::FitError;
use crate::fitted::{FittedKpca, Method};
use crate::params::{KernelPcaParams, Nystrom, ResolvedSolver, ValidKernelPcaParams};
use crate::rng::{sample_landmarks, SeededRng};
use crate::{full, nystrom, MAX_FULL_POINTS};
use rand_core::SeedableRng;
use std::vec::Vec;

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

// The fit's entry points are methods of the parameters (params.rs) written
// here, so that the parameters stay below the fits that read them.

impl KernelPcaParams {
    /// Checks the parameters, then fits (see [`ValidKernelPcaParams::fit`]).
    pub fn fit(&self, data: &Dataset<'_>) -> Result<FittedKpca, FitError> {
        self.clone().check()?.fit(data)
    }
}

impl ValidKernelPcaParams {
    /// Fits kernel PCA (full or Nyström) to the rows of `data`.
    ///
    /// Errors, in the order checked: [`FitError::NonFiniteInput`],
    /// [`FitError::TooFewPoints`] (n < k + 1), [`FitError::ConstantData`],
    /// [`FitError::ConstantColumn`] (with standardisation),
    /// [`FitError::TooManyPoints`] (full, n > [`crate::MAX_FULL_POINTS`]) or
    /// [`FitError::BadLandmarkCount`] / [`FitError::BadLandmarkIndex`] (Nyström);
    /// then from the fit itself [`FitError::NonFiniteKernel`],
    /// [`FitError::SingularLandmarks`] (Nyström), [`FitError::NotConverged`],
    /// [`FitError::TooManyComponents`], and [`FitError::NonFiniteKernel`] again
    /// when the training scores are not finite.
    pub fn fit(&self, data: &Dataset<'_>) -> Result<FittedKpca, FitError> {
        let p = self.params();
        let train = TrainingData::prepare(data, p.n_components, p.standardize, &p.kernel)?;
        let plan = Plan::decide(p, &train)?;
        let decomposition: Decomposition = match &plan {
            Plan::Full(solver) => full::fit(self, &train, *solver)?,
            Plan::Nystrom { landmarks, .. } => nystrom::fit(self, &train, landmarks)?,
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
}
