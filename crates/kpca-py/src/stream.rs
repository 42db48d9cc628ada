//! The streamed Nyström fit's stages for the Python package's dask fit
//! (`python/kpca/_dask.py`): each pass runs on a partition and returns its
//! part as a flat float64 array (it pickles and merges anywhere); the plan,
//! the landmarks and the solution are rebuilt from the merged parts, which
//! are small (the sums are m (m + 1) / 2 numbers).

use crate::fit::{dataset, kernel_spec, value_error, with_landmarks, Fitted};
use kpca_fit::stream::{ColumnSurvey, ScoreSummary, StreamLandmarks, StreamPlan, StreamSolution};
use kpca_fit::{KernelPca, ValidKernelPcaParams};
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The keys of a streamed fit's `spec`: the arguments of `fit` that apply
/// to a Nyström fit.
const SPEC_KEYS: [&str; 11] = [
    "n_components",
    "kernel",
    "gamma",
    "degree",
    "coef0",
    "standardize",
    "nystrom",
    "landmarks",
    "seed",
    "landmark_method",
    "false_alarm_rate",
];

/// `spec[key]`, or `default` when it is missing or None.
fn get<'py, T: FromPyObject<'py>>(spec: &Bound<'py, PyDict>, key: &str, default: T) -> PyResult<T> {
    match spec.get_item(key)? {
        Some(v) if !v.is_none() => v.extract(),
        _ => Ok(default),
    }
}

/// The checked parameters of a streamed fit from `spec` (a dict of
/// [`SPEC_KEYS`]; `n_components` required).
fn spec_params(spec: &Bound<'_, PyDict>) -> PyResult<ValidKernelPcaParams> {
    for key in spec.keys() {
        let key: String = key.extract()?;
        if !SPEC_KEYS.contains(&key.as_str()) {
            return Err(PyValueError::new_err(format!("spec: unknown key {key:?}")));
        }
    }
    let k: usize = match spec.get_item("n_components")? {
        Some(v) => v.extract()?,
        None => return Err(PyValueError::new_err("spec: n_components is required")),
    };
    let kernel: String = get(spec, "kernel", "rbf".to_string())?;
    let kernel = kernel_spec(
        &kernel,
        get(spec, "gamma", None)?,
        get(spec, "degree", 3)?,
        get(spec, "coef0", 1.0)?,
    )?;
    let params = KernelPca::params()
        .kernel(kernel)
        .n_components(k)
        .standardize(get(spec, "standardize", false)?)
        .false_alarm_rate(get(spec, "false_alarm_rate", 0.01)?);
    let method: String = get(spec, "landmark_method", "uniform".to_string())?;
    with_landmarks(
        params,
        get(spec, "nystrom", None)?,
        get(spec, "landmarks", None)?,
        get(spec, "seed", 0)?,
        &method,
    )?
    .check()
    .map_err(value_error)
}

/// An f64 vector as a numpy array.
fn array(py: Python<'_>, v: Vec<f64>) -> Bound<'_, PyArray1<f64>> {
    PyArray1::from_vec(py, v)
}

/// The column survey of a partition's rows.
#[pyfunction]
pub fn stream_survey<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'_, f64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let data = dataset(&x)?;
    let mut survey = ColumnSurvey::new(data.n_features());
    survey.update(&data).map_err(value_error)?;
    Ok(array(py, survey.to_array()))
}

/// Two surveys merged (`a` of the earlier rows).
#[pyfunction]
pub fn stream_survey_merge<'py>(
    py: Python<'py>,
    a: PyReadonlyArray1<'_, f64>,
    b: PyReadonlyArray1<'_, f64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let mut s = ColumnSurvey::from_array(a.as_slice()?).map_err(value_error)?;
    s.merge(&ColumnSurvey::from_array(b.as_slice()?).map_err(value_error)?)
        .map_err(value_error)?;
    Ok(array(py, s.to_array()))
}

/// The plan of the surveyed rows for `spec`.
fn plan_of(survey: &[f64], spec: &Bound<'_, PyDict>) -> PyResult<StreamPlan> {
    let params = spec_params(spec)?;
    let survey = ColumnSurvey::from_array(survey).map_err(value_error)?;
    StreamPlan::new(&params, &survey).map_err(value_error)
}

/// The row indices the landmarks come from (in order), for the survey.
#[pyfunction]
pub fn stream_rows_needed(
    survey: PyReadonlyArray1<'_, f64>,
    spec: &Bound<'_, PyDict>,
) -> PyResult<Vec<usize>> {
    Ok(plan_of(survey.as_slice()?, spec)?.rows_needed().to_vec())
}

/// The landmarks of the survey from the rows it needs (`rows`, in the
/// order of `stream_rows_needed`).
#[pyfunction]
pub fn stream_landmarks(
    py: Python<'_>,
    survey: PyReadonlyArray1<'_, f64>,
    rows: PyReadonlyArray2<'_, f64>,
    spec: &Bound<'_, PyDict>,
) -> PyResult<Landmarks> {
    let plan = plan_of(survey.as_slice()?, spec)?;
    let data = dataset(&rows)?;
    let inner = py
        .allow_threads(|| plan.landmarks(&data))
        .map_err(value_error)?;
    Ok(Landmarks { inner })
}

/// The landmarks of a streamed fit: the sums of a partition, and the solve.
#[pyclass(module = "kpca._kpca")]
pub struct Landmarks {
    inner: StreamLandmarks,
}

#[pymethods]
impl Landmarks {
    /// The landmarks' training row indices.
    #[getter]
    fn indices(&self) -> Vec<usize> {
        self.inner.indices().to_vec()
    }

    /// The Nyström sums of a partition's rows.
    fn sums<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'_, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let data = dataset(&x)?;
        let mut sums = self.inner.new_sums();
        py.allow_threads(|| self.inner.update(&mut sums, &data))
            .map_err(value_error)?;
        Ok(array(py, sums.sums_array()))
    }

    /// Two partitions' sums added.
    fn merge_sums<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray1<'_, f64>,
        b: PyReadonlyArray1<'_, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let mut sums = self.inner.new_sums();
        sums.merge_array(a.as_slice()?).map_err(value_error)?;
        sums.merge_array(b.as_slice()?).map_err(value_error)?;
        Ok(array(py, sums.sums_array()))
    }

    /// The fit solved from the sums over every row.
    fn solve(&self, py: Python<'_>, sums: PyReadonlyArray1<'_, f64>) -> PyResult<Solution> {
        let mut total = self.inner.new_sums();
        total.merge_array(sums.as_slice()?).map_err(value_error)?;
        let inner = py
            .allow_threads(|| self.inner.solve(total))
            .map_err(value_error)?;
        Ok(Solution { inner: Some(inner) })
    }
}

/// A solved streamed fit: the score summaries of partitions, then the model.
#[pyclass(module = "kpca._kpca")]
pub struct Solution {
    inner: Option<StreamSolution>,
}

impl Solution {
    fn solution(&self) -> PyResult<&StreamSolution> {
        self.inner
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("the solution was finished"))
    }
}

#[pymethods]
impl Solution {
    /// The score summary of a partition's rows.
    fn score<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'_, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let solution = self.solution()?;
        let data = dataset(&x)?;
        let mut summary = solution.new_summary();
        py.allow_threads(|| solution.score(&mut summary, &data))
            .map_err(value_error)?;
        Ok(array(py, summary.to_array()))
    }

    /// Two summaries merged (`a` of the earlier rows).
    #[staticmethod]
    fn merge_scores<'py>(
        py: Python<'py>,
        a: PyReadonlyArray1<'_, f64>,
        b: PyReadonlyArray1<'_, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let mut s = ScoreSummary::from_array(a.as_slice()?).map_err(value_error)?;
        s.merge(&ScoreSummary::from_array(b.as_slice()?).map_err(value_error)?)
            .map_err(value_error)?;
        Ok(array(py, s.to_array()))
    }

    /// The fitted model from the summary over every row (once).
    fn finish(&mut self, summary: PyReadonlyArray1<'_, f64>) -> PyResult<Fitted> {
        let summary = ScoreSummary::from_array(summary.as_slice()?).map_err(value_error)?;
        let solution = self
            .inner
            .take()
            .ok_or_else(|| PyValueError::new_err("the solution was finished"))?;
        let inner = solution.finish(&summary).map_err(value_error)?;
        Ok(Fitted { inner })
    }
}
