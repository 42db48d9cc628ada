//! The fitted model: f64 transform and scores, and what it becomes on the
//! device ([`DeviceModel`], in `device_model.rs`).

use crate::data::Dataset;
use crate::data::{Standardizer, TrainingData};
use crate::decomposition::{FitCore, SolverReport};
use crate::device_model::{write_blob, DeviceModel};
use crate::error::FitError;
use crate::kernel::{cross_kernel, sq_norms, Kernel64, KernelId, KernelSpec};
use crate::linear_map::{centre_of, fold_cosine, fold_linear, worth_folding, Expansion, LinearMap};
use crate::quantile::quantile;
use crate::warning::FitWarning;
use kpca_blob::ModelBlob;
use kpca_core::model::ModelRef;
use kpca_core::{FitInfo, FitMethod};
use std::format;
use std::string::String;
use std::vec;
use std::vec::Vec;

/// Rows per block in [`FittedKpca::transform`] and friends.
const TRANSFORM_BLOCK: usize = 1024;

/// The device's input map x' = (x - mean) * inv_std, as (mean, inv_std).
type InputMap = (Vec<f32>, Vec<f32>);

/// Full or Nyström, with the landmarks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Method {
    /// Full kernel PCA: every training point is stored.
    Full,
    /// Nyström kernel PCA.
    Nystrom {
        /// The landmark row indices, in the order of the stored points.
        landmarks: Vec<usize>,
        /// The seed they were drawn with, when drawn by the fit.
        seed: Option<u64>,
    },
}

/// A fitted kernel PCA model (full or Nyström), in f64, with everything the fit
/// computed and the device model it folds into.
///
/// Eigenvalue convention, one for both fits: [`FittedKpca::eigenvalues`] are
/// the eigenvalues mu_l of the centred n x n kernel matrix (scikit-learn's
/// `eigenvalues_`; for a Nyström fit, of its Nyström approximation). The
/// training score column l has sum of squares mu_l and variance mu_l / n
/// ([`FittedKpca::score_variances`]; nystrompca's `explained_variance_`). The
/// device model and its blob store the same mu_l (see `kpca_core::fit_info`).
///
/// ```
/// use kpca_fit::{Dataset, KernelPca, KernelSpec};
/// // Normal data: points near the unit circle; x_new is far from it.
/// let rows: Vec<Vec<f64>> = (0..60)
///     .map(|i| {
///         let t = i as f64 * 0.105;
///         vec![t.cos() * (1.0 + 0.02 * (i % 5) as f64), t.sin()]
///     })
///     .collect();
/// let data = Dataset::from_rows(rows)?;
/// let fitted = KernelPca::params()
///     .kernel(KernelSpec::rbf(2.0))
///     .n_components(4)
///     .false_alarm_rate(0.05)
///     .fit(&data)?;
/// assert_eq!(fitted.train_scores().len(), 60 * 4);
/// assert_eq!(fitted.reconstruction_error_curve().len(), 4);
/// let ratio: f64 = fitted.explained_variance_ratio().iter().sum();
/// assert!(ratio > 0.5 && ratio <= 1.0);
///
/// let x_new = Dataset::new(vec![0.0, 0.0], 2)?;
/// let e = fitted.anomaly_score(&x_new)?;
/// assert!(e[0] > fitted.threshold());
/// assert_eq!(fitted.is_anomaly(&x_new)?, vec![true]);
///
/// // The same on the f32 device model.
/// let model = fitted.to_model()?;
/// let view = model.as_model_ref()?;
/// let e32 = view.anomaly_score(&[0.0, 0.0]).map_err(|source| {
///     kpca_fit::FitError::Device { what: "scoring", source }
/// })?;
/// assert!((e32 as f64 - e[0]).abs() < 1e-4);
/// # Ok::<(), kpca_fit::FitError>(())
/// ```
#[derive(Clone, Debug)]
pub struct FittedKpca {
    pub(crate) core: FitCore,
    pub(crate) method: Method,
    pub(crate) solver: SolverReport,
    pub(crate) kernel: Kernel64,
    pub(crate) standardizer: Option<Standardizer>,
    pub(crate) n_train: usize,
    pub(crate) n_features: usize,
    pub(crate) false_alarm_rate: f64,
    pub(crate) threshold: f64,
    pub(crate) warnings: Vec<FitWarning>,
    /// The learned pre-image map, once fitted ([`FittedKpca::fit_inverse_transform`]).
    pub(crate) preimage: Option<crate::preimage::PreImageMap>,
    /// The regression head, once fitted ([`FittedKpca::fit_regression`]).
    pub(crate) regression: Option<crate::regression::RegressionHead>,
}

/// The anomaly threshold of the training quantile `q` at `level`: `q` when
/// positive, else 0 (unset) with a [`FitWarning::NoThreshold`].
pub(crate) fn threshold_of(q: Option<f64>, level: f64, warnings: &mut Vec<FitWarning>) -> f64 {
    let q = q.unwrap_or(0.0);
    if q > 0.0 {
        q
    } else {
        warnings.push(FitWarning::NoThreshold { level, quantile: q });
        0.0
    }
}

impl FittedKpca {
    /// The fitted model from the post-processed fit `core` on `train`: refuses
    /// non-finite training scores and sets the anomaly threshold.
    pub(crate) fn assemble(
        core: FitCore,
        method: Method,
        solver: SolverReport,
        train: TrainingData,
        false_alarm_rate: f64,
        mut warnings: Vec<FitWarning>,
    ) -> Result<FittedKpca, FitError> {
        let TrainingData {
            n: n_train,
            d: n_features,
            kernel,
            standardizer,
            ..
        } = train;
        // A kernel value that overflows only on the diagonal (k(x, x) of a point
        // far from every landmark) or later arithmetic can leave the training
        // scores non-finite although every value of the kernel matrix was.
        if core
            .train_scores
            .iter()
            .chain(&core.train_anomaly)
            .any(|v| !v.is_finite())
        {
            return Err(FitError::NonFiniteKernel);
        }
        let level = 1.0 - false_alarm_rate;
        let threshold = threshold_of(quantile(&core.train_anomaly, level), level, &mut warnings);
        Ok(FittedKpca {
            core,
            method,
            solver,
            kernel,
            standardizer,
            n_train,
            n_features,
            false_alarm_rate,
            threshold,
            warnings,
            preimage: None,
            regression: None,
        })
    }

    /// Number of components k.
    pub fn n_components(&self) -> usize {
        self.core.eigenvalues.len()
    }
    /// Number of input features d.
    pub fn n_features(&self) -> usize {
        self.n_features
    }
    /// Number of training points n.
    pub fn n_train(&self) -> usize {
        self.n_train
    }
    /// Number of stored points m (n for full kernel PCA, the landmarks for Nyström).
    pub fn n_points(&self) -> usize {
        self.core.weights.len()
    }
    /// The kernel with gamma resolved (1/d when it was `None`).
    pub fn kernel(&self) -> KernelSpec {
        self.kernel.spec()
    }
    /// Full or Nyström (with the landmarks).
    pub fn method(&self) -> &Method {
        &self.method
    }
    /// Which eigen solver ran.
    pub fn solver(&self) -> SolverReport {
        self.solver
    }
    /// The per-feature (mean, std) used to standardise, if standardisation is on.
    pub fn standardization(&self) -> Option<(&[f64], &[f64])> {
        self.standardizer
            .as_ref()
            .map(|s| (&s.mean[..], &s.std[..]))
    }
    /// The k eigenvalues mu_l, largest first (the convention of
    /// [`FittedKpca`]: scikit-learn's `eigenvalues_`, for both fits).
    pub fn eigenvalues(&self) -> &[f64] {
        &self.core.eigenvalues
    }
    /// The variance of each training score column, mu_l / n (nystrompca's
    /// `explained_variance_`).
    pub fn score_variances(&self) -> Vec<f64> {
        let n = self.n_train as f64;
        self.core.eigenvalues.iter().map(|mu| mu / n).collect()
    }
    /// The total variance, in the units of the eigenvalues: the denominator of
    /// [`FittedKpca::explained_variance_ratio`].
    pub fn total_variance(&self) -> f64 {
        self.core.total_variance
    }
    /// Every eigenvalue, largest first, negative ones included: all n of Kc for a
    /// dense full fit, all r of N (times n) for Nyström; `None` after the iterative solver,
    /// which computes only the top k.
    pub fn all_eigenvalues(&self) -> Option<&[f64]> {
        self.core.all_eigenvalues.as_deref()
    }
    /// eigenvalue_l / (sum of the positive eigenvalues); after the iterative solver
    /// the total is trace(Kc) (the same for positive semi-definite kernels).
    pub fn explained_variance_ratio(&self) -> &[f64] {
        &self.core.explained_variance_ratio
    }
    /// Training scores, row-major n x k (scikit-learn's `fit_transform`);
    /// empty after a streamed fit ([`FittedKpca::rows_kept`]).
    pub fn train_scores(&self) -> &[f64] {
        &self.core.train_scores
    }
    /// Whether the fit kept the training scores and anomaly scores: true
    /// for a fit of a [`Dataset`], false for a streamed fit
    /// ([`crate::stream::fit_nystrom`]), which reads its rows and keeps only
    /// what the model needs.
    pub fn rows_kept(&self) -> bool {
        // A fit of a dataset has at least k + 1 >= 2 rows, a streamed fit none.
        !self.core.train_anomaly.is_empty()
    }
    /// Anomaly score e(x_j) of each training point (DESIGN.md section 2);
    /// empty after a streamed fit ([`FittedKpca::rows_kept`]).
    pub fn train_anomaly_scores(&self) -> &[f64] {
        &self.core.train_anomaly
    }
    /// Entry q - 1 is the mean training anomaly score (feature-space reconstruction
    /// error) when keeping the first q components, q = 1..=k. It equals
    /// (trace(Kc) - mu_1 - .. - mu_q) / n for full kernel PCA.
    pub fn reconstruction_error_curve(&self) -> &[f64] {
        &self.core.curve
    }
    /// The anomaly threshold: the (1 - rate) quantile of the training anomaly scores
    /// (numpy's linear interpolation); 0 when that is not positive (unset).
    pub fn threshold(&self) -> f64 {
        self.threshold
    }
    /// The false-alarm rate the threshold was set for.
    pub fn false_alarm_rate(&self) -> f64 {
        self.false_alarm_rate
    }
    /// Sets another false-alarm rate and recomputes the threshold. Rate in
    /// (0, 1); [`FitError::RowsNotKept`] after a streamed fit (the threshold
    /// of another rate needs the training anomaly scores).
    pub fn set_false_alarm_rate(&mut self, rate: f64) -> Result<(), FitError> {
        if !self.rows_kept() {
            return Err(FitError::RowsNotKept {
                what: "another false-alarm rate",
            });
        }
        if !(rate > 0.0 && rate < 1.0) {
            return Err(FitError::BadOption {
                name: "false_alarm_rate",
                value: rate,
                expected: "0 < rate < 1",
            });
        }
        let q = quantile(&self.core.train_anomaly, 1.0 - rate).unwrap_or(0.0);
        self.false_alarm_rate = rate;
        self.threshold = q.max(0.0);
        Ok(())
    }
    /// Notes about the fit (for example negative eigenvalues of an indefinite kernel
    /// that were dropped, or an unset threshold); `Display` gives each as a sentence.
    pub fn warnings(&self) -> &[FitWarning] {
        &self.warnings
    }

    /// Scores (rows x k) and anomaly scores of every row, computed in blocks of
    /// [`TRANSFORM_BLOCK`] rows so that memory stays O(m * block).
    fn evaluate(&self, data: &Dataset<'_>) -> Result<(Vec<f64>, Vec<f64>), FitError> {
        data.check_rows(self.n_features)?;
        let d = self.n_features;
        let point_sq = sq_norms(&self.core.points, d);
        let rows = data.n_rows();
        let mut scores = Vec::with_capacity(rows * self.n_components());
        let mut anomaly = Vec::with_capacity(rows);
        for block in data.values().chunks(d * TRANSFORM_BLOCK) {
            let z = match &self.standardizer {
                Some(s) => s.apply_all(block),
                None => block.to_vec(),
            };
            let kx = cross_kernel(&self.kernel, &self.core.points, &point_sq, &z, d)?;
            let self_k: Vec<f64> = sq_norms(&z, d)
                .iter()
                .map(|&s| self.kernel.self_eval(s))
                .collect();
            let (y, e) = self.project_columns(&kx, &self_k);
            scores.extend(y);
            anomaly.extend(e);
        }
        Ok((scores, anomaly))
    }

    /// Scores and anomaly scores from kernel columns.
    fn project_columns(&self, kx: &[f64], self_k: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let m = self.n_points();
        let k = self.n_components();
        let core = &self.core;
        let mut scores = Vec::with_capacity(self_k.len() * k);
        let mut anomaly = Vec::with_capacity(self_k.len());
        for (kappa, &kxx) in kx.chunks_exact(m.max(1)).zip(self_k) {
            let ck: f64 = kappa.iter().zip(&core.weights).map(|(a, b)| a * b).sum();
            let shift = ck - core.s;
            let mut y = vec![0.0; k];
            for ((&kv, &cv), row) in kappa
                .iter()
                .zip(&core.center)
                .zip(core.comp.chunks_exact(k.max(1)))
            {
                let centred = kv - cv - shift;
                for (yl, a) in y.iter_mut().zip(row) {
                    *yl += a * centred;
                }
            }
            let sum_sq: f64 = y.iter().map(|v| v * v).sum();
            anomaly.push(kxx - 2.0 * ck + core.s - sum_sq);
            scores.extend_from_slice(&y);
        }
        (scores, anomaly)
    }

    /// The k kernel-PCA coordinates of each row, row-major (rows x k), in f64 with
    /// the exact centring of the fit (scikit-learn's `transform`; not through the
    /// f32 device model).
    pub fn transform(&self, data: &Dataset<'_>) -> Result<Vec<f64>, FitError> {
        Ok(self.evaluate(data)?.0)
    }

    /// The anomaly score e(x) of each row (DESIGN.md section 2), in f64.
    pub fn anomaly_score(&self, data: &Dataset<'_>) -> Result<Vec<f64>, FitError> {
        Ok(self.evaluate(data)?.1)
    }

    /// Coordinates (rows x k) and anomaly scores in one pass.
    pub fn transform_and_score(
        &self,
        data: &Dataset<'_>,
    ) -> Result<(Vec<f64>, Vec<f64>), FitError> {
        self.evaluate(data)
    }

    /// Whether each row's anomaly score exceeds [`FittedKpca::threshold`].
    pub fn is_anomaly(&self, data: &Dataset<'_>) -> Result<Vec<bool>, FitError> {
        Ok(self
            .anomaly_score(data)?
            .into_iter()
            .map(|e| e > self.threshold)
            .collect())
    }

    /// The device model (DESIGN.md section 2) in f64, before rounding:
    /// A = comp - weights (1'comp) (m x k row-major), b = -comp' center + s comp'1,
    /// so y = A' kappa(x) + b. For full kernel PCA 1'alpha = 0 in exact arithmetic
    /// and this is A = alpha, b = -alpha'r; folding the general form keeps the
    /// rounding residue of 1'alpha out of the device's scores.
    pub(crate) fn folded(&self) -> (Vec<f64>, Vec<f64>) {
        let k = self.n_components();
        let core = &self.core;
        let mut col_sums = vec![0.0; k];
        let mut b = vec![0.0; k];
        for (row, &cv) in core.comp.chunks_exact(k.max(1)).zip(&core.center) {
            for ((cs, bl), a) in col_sums.iter_mut().zip(b.iter_mut()).zip(row) {
                *cs += a;
                *bl -= a * cv;
            }
        }
        for (bl, cs) in b.iter_mut().zip(&col_sums) {
            *bl += core.s * cs;
        }
        let mut a = Vec::with_capacity(core.comp.len());
        for (row, &w) in core.comp.chunks_exact(k.max(1)).zip(&core.weights) {
            for (v, cs) in row.iter().zip(&col_sums) {
                a.push(v - w * cs);
            }
        }
        (a, b)
    }

    /// The standardisation as the device's input map (mean, 1/std in f32),
    /// when it is on.
    fn standardization_map(&self) -> Option<InputMap> {
        self.standardizer.as_ref().map(|s| {
            let mean = s.mean.iter().map(|&v| v as f32).collect();
            (mean, s.std.iter().map(|&v| (1.0 / v) as f32).collect())
        })
    }

    /// The device model's stored points and its input map x' = (x - mean) *
    /// inv_std: the standardisation when it is on; for the shift-invariant
    /// kernels (rbf, laplacian) without it, the stored points' centre with
    /// inv_std = 1, so that the device works with x - centre and z - centre,
    /// near the origin, where ‖x' - z'‖² in f32 keeps its accuracy (the kernel
    /// values are the same: k(x - c, z - c) = k(x, z)); else the points as
    /// they are. The centre is the f32 one the device subtracts.
    fn device_points(&self) -> (Vec<f32>, Option<InputMap>) {
        let to32 = |v: &[f64]| -> Vec<f32> { v.iter().map(|&x| x as f32).collect() };
        let d = self.n_features.max(1);
        if let Some(map) = self.standardization_map() {
            return (to32(&self.core.points), Some(map));
        }
        if !matches!(self.kernel.spec().kind, KernelId::Rbf | KernelId::Laplacian) {
            return (to32(&self.core.points), None);
        }
        let centre32 = centre_of(&self.core.points, d);
        let points = self
            .core
            .points
            .chunks_exact(d)
            .flat_map(|z| {
                z.iter()
                    .zip(&centre32)
                    .map(|(v, &c)| (v - f64::from(c)) as f32)
            })
            .collect();
        (points, Some((centre32, vec![1.0; d])))
    }

    /// The device model in f32, owning its arrays: stored points (standardised when
    /// standardisation is on; relative to their centre for rbf and laplacian
    /// models without it, see `device_points`), their squared norms computed
    /// from the f32 points, row-major A, b, c, s, the eigenvalues as reported by
    /// [`FittedKpca::eigenvalues`], and the threshold. Validated by the core.
    pub fn to_model(&self) -> Result<DeviceModel, FitError> {
        let model = self.device_model()?;
        self.check_device(&model.as_model_ref()?)?;
        Ok(model)
    }

    /// The device model of [`FittedKpca::to_model`], not yet validated.
    fn device_model(&self) -> Result<DeviceModel, FitError> {
        let kernel = self.kernel.to_device();
        let (a, b) = self.folded();
        let to32 = |v: &[f64]| -> Vec<f32> { v.iter().map(|&x| x as f32).collect() };
        let d = self.n_features;
        let k = self.n_components();
        let (points, a, b, c, s, standardize, linear_map) = match self.linear_map(&a, &b) {
            Some((map, standardize)) => (map.points, map.a, map.b, map.c, map.s, standardize, true),
            None => {
                let (points, standardize) = self.device_points();
                let (c, s) = (to32(&self.core.weights), self.core.s as f32);
                (points, to32(&a), to32(&b), c, s, standardize, false)
            }
        };
        let point_sq_norms = points
            .chunks_exact(d.max(1))
            .map(|z| z.iter().map(|v| v * v).sum::<f32>())
            .collect();
        let model = DeviceModel {
            kernel,
            dim: d,
            n_components: k,
            standardize,
            points,
            point_sq_norms,
            a,
            b,
            c,
            s,
            eigenvalues: to32(&self.core.eigenvalues),
            threshold: self.threshold as f32,
            fit: self.fit_info(),
            linear_map,
            preimage: self.device_preimage(),
            regression: self
                .regression
                .as_ref()
                .map(|r| (to32(&r.weights), to32(&r.intercept))),
        };
        Ok(model)
    }

    /// The linear and cosine models folded into a linear map (see
    /// [`crate::linear_map`]) with their input map, when that stores fewer
    /// points: the standardisation when it is on, else, for the linear
    /// kernel, the points' centre.
    fn linear_map(&self, a: &[f64], b: &[f64]) -> Option<(LinearMap, Option<InputMap>)> {
        let kind = self.kernel.spec().kind;
        let k = self.n_components();
        if !matches!(kind, KernelId::Linear | KernelId::Cosine)
            || !worth_folding(self.n_points(), k)
        {
            return None;
        }
        let e = Expansion {
            points: &self.core.points,
            a,
            b,
            c: &self.core.weights,
            s: self.core.s,
            dim: self.n_features,
            n_components: k,
        };
        let standardize = self.standardization_map();
        let map = match kind {
            KernelId::Cosine => fold_cosine(&e),
            _ => fold_linear(&e, standardize.is_none()),
        };
        let input = match &map.centre {
            Some(centre) => Some((centre.clone(), vec![1.0; self.n_features])),
            None => standardize,
        };
        Some((map, input))
    }

    /// What the device model records of this fit: the method, n and the total
    /// variance (not recorded when the total does not fit an f32).
    fn fit_info(&self) -> FitInfo {
        let total = self.core.total_variance as f32;
        let n_train = u32::try_from(self.n_train).ok();
        match (n_train, total.is_finite() && total > 0.0) {
            (Some(n_train), true) => FitInfo {
                method: match self.method {
                    Method::Full => FitMethod::Full,
                    Method::Nystrom { .. } => FitMethod::Nystrom,
                },
                n_train,
                total_variance: total,
            },
            _ => FitInfo::NOT_RECORDED,
        }
    }

    /// Evaluates the f32 device model on its own stored points (the training
    /// points of a full fit, the landmarks of a Nyström fit), given as raw
    /// inputs: f32 arithmetic overflows or underflows where the f64 fit did not
    /// (the cosine kernel on data below about 1e-19, standardisation or kernel
    /// values past the f32 range), and a model the device cannot evaluate on its
    /// own training points is refused rather than exported.
    fn check_device(&self, view: &ModelRef<'_>) -> Result<(), FitError> {
        use rayon::prelude::*;
        let d = self.n_features.max(1);
        let k = self.n_components();
        self.core
            .points
            .par_chunks(d)
            .try_for_each(|z| {
                let x: Vec<f32> = match &self.standardizer {
                    Some(st) => z
                        .iter()
                        .zip(&st.mean)
                        .zip(&st.std)
                        .map(|((v, m), s)| (v * s + m) as f32)
                        .collect(),
                    None => z.iter().map(|&v| v as f32).collect(),
                };
                let mut y = vec![0.0f32; k];
                view.project_and_score(&x, &mut y).map(|_| ())
            })
            .map_err(|source| FitError::Device {
                what: "evaluating the f32 model on its stored points",
                source,
            })
    }

    /// The device model as a blob (the core's binary format) in aligned
    /// memory, with its view ([`ModelBlob::model`]), ready for a file
    /// ([`ModelBlob::as_bytes`]) or [`crate::export`]: the model is validated
    /// once and written once (not read back).
    pub fn to_blob(&self) -> Result<ModelBlob, FitError> {
        let model = self.device_model()?;
        let view = model.as_model_ref()?;
        self.check_device(&view)?;
        write_blob(&view)
    }

    /// The generating parameters, for the comments of exported sources.
    pub fn export_info(&self) -> super::export::ExportInfo {
        let mut params: Vec<(String, String)> = Vec::new();
        let spec = self.kernel.spec();
        params.push(("kernel".into(), spec.kind.name().into()));
        if let Some(g) = spec.gamma {
            params.push(("gamma".into(), format!("{g:?}")));
        }
        if spec.kind.uses().degree {
            params.push(("degree".into(), format!("{}", spec.degree)));
        }
        if spec.kind.uses().coef0 {
            params.push(("coef0".into(), format!("{:?}", spec.coef0)));
        }
        params.push(("n_components".into(), format!("{}", self.n_components())));
        params.push(("n_train".into(), format!("{}", self.n_train)));
        match &self.method {
            Method::Full => params.push(("method".into(), "full".into())),
            Method::Nystrom { landmarks, seed } => {
                params.push(("method".into(), "nystrom".into()));
                params.push(("landmarks".into(), format!("{}", landmarks.len())));
                if let Some(seed) = seed {
                    params.push(("seed".into(), format!("{seed}")));
                }
            }
        }
        let solver = match self.solver {
            SolverReport::Dense => "dense".into(),
            SolverReport::Lanczos { matvecs, .. } => format!("lanczos ({matvecs} products)"),
            SolverReport::NystromDense => "dense (m x m)".into(),
        };
        params.push(("solver".into(), solver));
        params.push((
            "standardize".into(),
            format!("{}", self.standardizer.is_some()),
        ));
        params.push((
            "false_alarm_rate".into(),
            format!("{:?}", self.false_alarm_rate),
        ));
        params.push(("threshold".into(), format!("{:?}", self.threshold)));
        let evs: Vec<String> = self
            .core
            .eigenvalues
            .iter()
            .map(|v| format!("{v:.6e}"))
            .collect();
        params.push(("eigenvalues".into(), evs.join(" ")));
        super::export::ExportInfo { parameters: params }
    }
}
