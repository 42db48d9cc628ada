//! The streamed Nyström fit's stages for the Python package's dask fit
//! (`python/kpca/_dask.py`): each pass runs on a partition and returns its
//! part as a flat float64 array (it pickles and merges anywhere); the plan,
//! the landmarks and the solution are rebuilt from the merged parts, which
//! are small (the sums are m (m + 1) / 2 numbers).

use crate::fit::{dataset, kernel_spec, value_error, with_landmarks, Fitted};
use kpca_fit::stream::{ColumnSurvey, ScoreSummary, StreamLandmarks, StreamPlan, StreamSolution};
use kpca_fit::{KernelPca, ValidKernelPcaParams};
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

/// The checked parameters of a streamed fit (the arguments of `fit` that
/// apply to a Nyström fit).
#[allow(clippy::too_many_arguments)]
fn stream_params(
    n_components: usize,
    kernel: &str,
    gamma: Option<f64>,
    degree: u32,
    coef0: f64,
    standardize: bool,
    nystrom: Option<usize>,
    landmarks: Option<Vec<usize>>,
    seed: u64,
    landmark_method: &str,
    false_alarm_rate: f64,
) -> PyResult<ValidKernelPcaParams> {
    let params = KernelPca::params()
        .kernel(kernel_spec(kernel, gamma, degree, coef0)?)
        .n_components(n_components)
        .standardize(standardize)
        .false_alarm_rate(false_alarm_rate);
    with_landmarks(params, nystrom, landmarks, seed, landmark_method)?
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

/// The plan of the surveyed rows with the fit's arguments.
#[allow(clippy::too_many_arguments)]
fn plan_of(
    survey: &[f64],
    n_components: usize,
    kernel: &str,
    gamma: Option<f64>,
    degree: u32,
    coef0: f64,
    standardize: bool,
    nystrom: Option<usize>,
    landmarks: Option<Vec<usize>>,
    seed: u64,
    landmark_method: &str,
    false_alarm_rate: f64,
) -> PyResult<StreamPlan> {
    let params = stream_params(
        n_components,
        kernel,
        gamma,
        degree,
        coef0,
        standardize,
        nystrom,
        landmarks,
        seed,
        landmark_method,
        false_alarm_rate,
    )?;
    let survey = ColumnSurvey::from_array(survey).map_err(value_error)?;
    StreamPlan::new(&params, &survey).map_err(value_error)
}

/// The row indices the landmarks come from (in order), for the survey.
#[pyfunction]
#[pyo3(signature = (survey, n_components, kernel="rbf", gamma=None, degree=3, coef0=1.0,
    standardize=false, nystrom=None, landmarks=None, seed=0, landmark_method="uniform",
    false_alarm_rate=0.01))]
#[allow(clippy::too_many_arguments)]
pub fn stream_rows_needed(
    survey: PyReadonlyArray1<'_, f64>,
    n_components: usize,
    kernel: &str,
    gamma: Option<f64>,
    degree: u32,
    coef0: f64,
    standardize: bool,
    nystrom: Option<usize>,
    landmarks: Option<Vec<usize>>,
    seed: u64,
    landmark_method: &str,
    false_alarm_rate: f64,
) -> PyResult<Vec<usize>> {
    let plan = plan_of(
        survey.as_slice()?,
        n_components,
        kernel,
        gamma,
        degree,
        coef0,
        standardize,
        nystrom,
        landmarks,
        seed,
        landmark_method,
        false_alarm_rate,
    )?;
    Ok(plan.rows_needed().to_vec())
}

/// The landmarks of the survey from the rows it needs (`rows`, in the
/// order of `stream_rows_needed`).
#[pyfunction]
#[pyo3(signature = (survey, rows, n_components, kernel="rbf", gamma=None, degree=3, coef0=1.0,
    standardize=false, nystrom=None, landmarks=None, seed=0, landmark_method="uniform",
    false_alarm_rate=0.01))]
#[allow(clippy::too_many_arguments)]
pub fn stream_landmarks(
    py: Python<'_>,
    survey: PyReadonlyArray1<'_, f64>,
    rows: PyReadonlyArray2<'_, f64>,
    n_components: usize,
    kernel: &str,
    gamma: Option<f64>,
    degree: u32,
    coef0: f64,
    standardize: bool,
    nystrom: Option<usize>,
    landmarks: Option<Vec<usize>>,
    seed: u64,
    landmark_method: &str,
    false_alarm_rate: f64,
) -> PyResult<Landmarks> {
    let plan = plan_of(
        survey.as_slice()?,
        n_components,
        kernel,
        gamma,
        degree,
        coef0,
        standardize,
        nystrom,
        landmarks,
        seed,
        landmark_method,
        false_alarm_rate,
    )?;
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
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("the solution was finished"))
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
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("the solution was finished"))?;
        let inner = solution.finish(&summary).map_err(value_error)?;
        Ok(Fitted { inner })
    }
}
