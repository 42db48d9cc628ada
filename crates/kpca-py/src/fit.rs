//! `fit(...)` and the `Fitted` class: a host fit and what it computes in f64.

use kpca_fit::{
    Dataset, ErrorEstimate, FitError, FittedKpca, KernelId, KernelPca, KernelPcaParams, KernelSpec,
    LandmarkMethod, Method, Nystrom, PrecomputedKpca, Selection, Solver,
};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::borrow::Cow;

/// A fit error as a Python `ValueError`.
pub fn value_error(e: FitError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The rows of a 2-D float64 array: borrowed when C-contiguous, else copied.
pub fn rows<'a>(x: &'a PyReadonlyArray2<'_, f64>) -> (Cow<'a, [f64]>, usize) {
    let cols = x.shape()[1];
    match x.as_slice() {
        Ok(s) => (Cow::Borrowed(s), cols),
        Err(_) => (Cow::Owned(x.as_array().iter().copied().collect()), cols),
    }
}

/// A dataset of the array's rows.
pub fn dataset<'a>(x: &'a PyReadonlyArray2<'_, f64>) -> PyResult<Dataset<'a>> {
    let (values, cols) = rows(x);
    Dataset::new(values, cols).map_err(value_error)
}

/// `values` (rows x cols, row-major) as a 2-D numpy array.
pub fn matrix<'py, T: numpy::Element>(
    py: Python<'py>,
    values: Vec<T>,
    cols: usize,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    let n = values.len() / cols.max(1);
    PyArray1::from_vec(py, values).reshape([n, cols])
}

/// The names of a table, quoted and comma-separated: `'a', 'b', 'c'`.
fn quoted<const N: usize>(names: [&str; N]) -> String {
    names.map(|n| format!("'{n}'")).join(", ")
}

/// The kernel of the arguments, by scikit-learn's name.
pub fn kernel_spec(
    name: &str,
    gamma: Option<f64>,
    degree: u32,
    coef0: f64,
) -> PyResult<KernelSpec> {
    let kind = KernelId::from_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "kernel {name:?} is not supported: use one of {}",
            quoted(KernelId::ALL.map(KernelId::name))
        ))
    })?;
    let mut spec = KernelSpec::new(kind);
    spec.gamma = gamma;
    spec.degree = degree;
    spec.coef0 = coef0;
    Ok(spec)
}

/// The parameters with the Nyström choice of the arguments (none when both
/// `nystrom` and `landmarks` are `None`).
pub fn with_landmarks(
    mut params: KernelPcaParams,
    nystrom: Option<usize>,
    landmarks: Option<Vec<usize>>,
    seed: u64,
    landmark_method: &str,
) -> PyResult<KernelPcaParams> {
    if let Some(m) = nystrom {
        let method = LandmarkMethod::from_name(landmark_method).ok_or_else(|| {
            PyValueError::new_err(format!(
                "landmark_method {landmark_method:?}: use one of {}",
                quoted(LandmarkMethod::ALL.map(LandmarkMethod::name))
            ))
        })?;
        params = params.nystrom(method.nystrom(m, seed));
    }
    if let Some(idx) = landmarks {
        params = params.nystrom(Nystrom::indices(idx));
    }
    Ok(params)
}

/// Fits kernel PCA on the rows of `x` (the GIL released during the fit).
#[pyfunction]
#[pyo3(signature = (x, n_components, kernel="linear", gamma=None, degree=3, coef0=1.0,
    standardize=false, nystrom=None, landmarks=None, seed=0, solver="auto",
    landmark_method="uniform",
    false_alarm_rate=0.01, tol=None, max_iter=None, clip_components=false))]
#[allow(clippy::too_many_arguments)]
pub fn fit(
    py: Python<'_>,
    x: PyReadonlyArray2<'_, f64>,
    n_components: usize,
    kernel: &str,
    gamma: Option<f64>,
    degree: u32,
    coef0: f64,
    standardize: bool,
    nystrom: Option<usize>,
    landmarks: Option<Vec<usize>>,
    seed: u64,
    solver: &str,
    landmark_method: &str,
    false_alarm_rate: f64,
    tol: Option<f64>,
    max_iter: Option<usize>,
    clip_components: bool,
) -> PyResult<Option<Fitted>> {
    let solver = Solver::from_name(solver).ok_or_else(|| {
        PyValueError::new_err(format!(
            "solver {solver:?}: use one of {}",
            quoted(Solver::ALL.map(Solver::name))
        ))
    })?;
    let mut params = KernelPca::params()
        .kernel(kernel_spec(kernel, gamma, degree, coef0)?)
        .n_components(n_components)
        .standardize(standardize)
        .false_alarm_rate(false_alarm_rate)
        .solver(solver);
    if let Some(t) = tol.filter(|&t| t > 0.0) {
        params = params.tol(t);
    }
    if let Some(it) = max_iter {
        params = params.max_iter(it);
    }
    params = with_landmarks(params, nystrom, landmarks, seed, landmark_method)?;
    let data = dataset(&x)?;
    let valid = params.clone().check().map_err(value_error)?;
    let fitted = match py.allow_threads(|| valid.fit(&data)) {
        // With clip_components (scikit-learn's n_components=None, or zero
        // columns for zero eigenvalues), keep only the components with a
        // positive eigenvalue: None when there is none.
        Err(FitError::TooManyComponents { positive, .. }) if clip_components && positive > 0 => {
            let valid = params.n_components(positive).check().map_err(value_error)?;
            py.allow_threads(|| valid.fit(&data))
        }
        Err(FitError::TooManyComponents { positive: 0, .. } | FitError::ConstantData)
            if clip_components =>
        {
            return Ok(None)
        }
        other => other,
    }
    .map_err(value_error)?;
    Ok(Some(Fitted { inner: fitted }))
}

/// A fitted model on the host (f64): scores, pre-images, predictions, the
/// reconstruction errors and the Nyström bound, and the device blob.
#[pyclass(module = "kpca._kpca")]
pub struct Fitted {
    pub(crate) inner: FittedKpca,
}

#[pymethods]
impl Fitted {
    /// Number of components k.
    #[getter]
    fn n_components(&self) -> usize {
        self.inner.n_components()
    }
    /// Number of input features d.
    #[getter]
    fn n_features(&self) -> usize {
        self.inner.n_features()
    }
    /// Number of training rows n.
    #[getter]
    fn n_train(&self) -> usize {
        self.inner.n_train()
    }
    /// Number of stored points m (n for a full fit, the landmarks for Nyström).
    #[getter]
    fn n_points(&self) -> usize {
        self.inner.n_points()
    }
    /// The kernel's gamma as fitted (1/d when it was not given).
    #[getter]
    fn gamma(&self) -> Option<f64> {
        self.inner.kernel().gamma
    }
    /// Whether the fit is Nyström's.
    #[getter]
    fn is_nystrom(&self) -> bool {
        !matches!(self.inner.method(), Method::Full)
    }
    /// Eigenvalues mu_l of the centred kernel matrix (scikit-learn's eigenvalues_).
    #[getter]
    fn eigenvalues<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.inner.eigenvalues())
    }
    /// Share of the total variance explained by each component.
    #[getter]
    fn explained_variance_ratio<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.inner.explained_variance_ratio())
    }
    /// Whether the fit kept the training scores (False after a streamed or
    /// dask fit).
    #[getter]
    fn rows_kept(&self) -> bool {
        self.inner.rows_kept()
    }
    /// The training rows' scores (n x k).
    #[getter]
    fn train_scores<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let k = self.inner.n_components();
        matrix(py, self.inner.train_scores().to_vec(), k)
    }
    /// The training rows' anomaly scores (n).
    #[getter]
    fn train_anomaly_scores<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.inner.train_anomaly_scores())
    }
    /// The anomaly threshold (0 when unset).
    #[getter]
    fn threshold(&self) -> f64 {
        self.inner.threshold()
    }
    /// Sets the threshold to the (1 - rate) quantile of the training scores.
    fn set_false_alarm_rate(&mut self, rate: f64) -> PyResult<()> {
        self.inner.set_false_alarm_rate(rate).map_err(value_error)
    }
    /// Scores of the rows of `x` (rows x k).
    fn transform<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'_, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let data = dataset(&x)?;
        let y = py
            .allow_threads(|| self.inner.transform(&data))
            .map_err(value_error)?;
        matrix(py, y, self.inner.n_components())
    }
    /// Anomaly scores (feature-space reconstruction errors) of the rows of `x`.
    fn anomaly_score<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'_, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let data = dataset(&x)?;
        let e = py
            .allow_threads(|| self.inner.anomaly_score(&data))
            .map_err(value_error)?;
        Ok(PyArray1::from_vec(py, e))
    }
    /// Fits the learned pre-image map with ridge `alpha`.
    fn fit_inverse_transform(&mut self, py: Python<'_>, alpha: f64) -> PyResult<()> {
        let inner = &mut self.inner;
        py.allow_threads(|| inner.fit_inverse_transform(alpha))
            .map_err(value_error)
    }
    /// The learned pre-image map applied to score rows (rows x k) -> rows x d.
    fn inverse_transform<'py>(
        &self,
        py: Python<'py>,
        y: PyReadonlyArray2<'_, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (scores, cols) = rows(&y);
        if cols != self.inner.n_components() {
            return Err(PyValueError::new_err(format!(
                "the score rows have {cols} columns, but the model has {} components",
                self.inner.n_components()
            )));
        }
        let x = self.inner.inverse_transform(&scores).map_err(value_error)?;
        matrix(py, x, self.inner.n_features())
    }
    /// Pre-images of the rows of `x`, with `steps` fixed-point steps (rbf).
    #[pyo3(signature = (x, steps=0))]
    fn preimage<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'_, f64>,
        steps: usize,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let data = dataset(&x)?;
        let z = self.inner.preimage(&data, steps).map_err(value_error)?;
        matrix(py, z, self.inner.n_features())
    }
    /// Fits the regression head on `targets` (one row per training row).
    fn fit_regression(&mut self, targets: PyReadonlyArray2<'_, f64>) -> PyResult<()> {
        let data = dataset(&targets)?;
        self.inner.fit_regression(&data).map_err(value_error)
    }
    /// The regression head's predictions for the rows of `x` (rows x t).
    fn predict<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'_, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let data = dataset(&x)?;
        let t = self.inner.regression_head().map_or(1, |r| r.n_targets());
        let p = self.inner.predict(&data).map_err(value_error)?;
        matrix(py, p, t)
    }
    /// Reconstruction errors for q = 1..k of the training rows `x` (None for a
    /// full fit), exact or nystrompca's estimate.
    #[pyo3(signature = (x=None, exact=true))]
    fn reconstruction_errors<'py>(
        &self,
        py: Python<'py>,
        x: Option<PyReadonlyArray2<'_, f64>>,
        exact: bool,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let estimate = if exact {
            ErrorEstimate::Exact
        } else {
            ErrorEstimate::Approximate
        };
        let data = x.as_ref().map(dataset).transpose()?;
        let r = self
            .inner
            .reconstruction_errors(data.as_ref(), estimate)
            .map_err(value_error)?;
        Ok(PyArray1::from_vec(py, r))
    }
    /// The Nyström confidence bound at `confidence` for q = 1..k.
    #[pyo3(signature = (confidence=0.9))]
    fn confidence_bound<'py>(
        &self,
        py: Python<'py>,
        confidence: f64,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let b = self
            .inner
            .confidence_bound(confidence)
            .map_err(value_error)?;
        Ok(PyArray1::from_vec(py, b))
    }
    /// The hints of `kpca fit` about a likely useless model (column scales
    /// far apart, little kept variance, nearly equal eigenvalues) for this
    /// fit of the training rows `x`, named as the Python parameters.
    fn hints(&self, x: PyReadonlyArray2<'_, f64>) -> Vec<String> {
        let (values, d) = rows(&x);
        let (_, std) = kpca_fit::hints::column_stats(&values, d);
        kpca_fit::hints::fit_hints(
            &self.inner,
            &values,
            &std,
            |c| format!("feature {c}"),
            &kpca_fit::hints::Spelling::PYTHON,
        )
    }
    /// The device model blob (what `kpca fit` writes).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let blob = self.inner.to_blob().map_err(value_error)?;
        Ok(PyBytes::new(py, blob.as_bytes()))
    }
    /// C (`format="c"`) or Rust (`format="rust"`) source of the device model.
    fn export_source(&self, format: &str, name: &str) -> PyResult<Vec<(String, String)>> {
        crate::device::export_source(&self.inner, format, name)
    }
}

/// Fits kernel PCA on a precomputed n x n kernel matrix (host only; no
/// device model): at most `n_components` components, those with a positive
/// eigenvalue; `largest_modulus` selects as scikit-learn's randomized solver.
#[pyfunction]
#[pyo3(signature = (kmat, n_components, largest_modulus=false))]
pub fn fit_precomputed(
    py: Python<'_>,
    kmat: PyReadonlyArray2<'_, f64>,
    n_components: usize,
    largest_modulus: bool,
) -> PyResult<Precomputed> {
    let n = kmat.shape()[0];
    let (values, cols) = rows(&kmat);
    if cols != n {
        return Err(value_error(FitError::NotSquare {
            len: values.len(),
            rows: n,
        }));
    }
    let selection = if largest_modulus {
        Selection::LargestModulus
    } else {
        Selection::Largest
    };
    let fit = py
        .allow_threads(|| PrecomputedKpca::fit(&values, n, n_components, selection))
        .map_err(value_error)?;
    Ok(Precomputed { inner: fit })
}

/// A kernel PCA fitted on a precomputed kernel matrix.
#[pyclass(module = "kpca._kpca")]
pub struct Precomputed {
    inner: PrecomputedKpca,
}

#[pymethods]
impl Precomputed {
    /// Number of components kept.
    #[getter]
    fn n_components(&self) -> usize {
        self.inner.n_components()
    }
    /// The kept eigenvalues of the centred matrix.
    #[getter]
    fn eigenvalues<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.inner.eigenvalues())
    }
    /// The training rows' scores (n x k).
    #[getter]
    fn train_scores<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        matrix(
            py,
            self.inner.train_scores().to_vec(),
            self.inner.n_components(),
        )
    }
    /// Scores of rows of kernel values against the training points (rows x n).
    fn transform<'py>(
        &self,
        py: Python<'py>,
        k: PyReadonlyArray2<'_, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (values, _) = rows(&k);
        let y = self.inner.transform(&values).map_err(value_error)?;
        matrix(py, y, self.inner.n_components())
    }
}
