//! The `DeviceModel` class: a model blob loaded by the `no_std` core, every
//! call running the core's f32 code (what the firmware computes).

use crate::fit::{matrix, value_error};
use kpca_core::ModelRef;
use kpca_fit::{export, FittedKpca, ModelBlob};
use numpy::{
    AllowTypeChange, PyArray1, PyArray2, PyArrayLike2, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// A core error as a Python `ValueError`, with the C status code.
fn core_error(e: kpca_core::Error) -> PyErr {
    PyValueError::new_err(format!("{e} (kpca status {} {e:?})", e.code()))
}

/// A validated model blob and the core's f32 computations on it.
#[pyclass(module = "kpca._kpca")]
pub struct DeviceModel {
    blob: ModelBlob,
}

impl DeviceModel {
    /// The model view, in O(1): the blob was validated once, when this
    /// object was made, and carries its record.
    fn model(&self) -> &ModelRef<'_> {
        self.blob.model()
    }

    /// Runs `f` on each row of `x` (as f32) into `width` outputs per row.
    fn per_row(
        model: &ModelRef<'_>,
        x: &PyReadonlyArray2<'_, f32>,
        width: usize,
        f: impl Fn(&ModelRef<'_>, &[f32], &mut [f32]) -> Result<(), kpca_core::Error>,
    ) -> PyResult<Vec<f32>> {
        let d = model.dim();
        if x.shape()[1] != d {
            return Err(PyValueError::new_err(format!(
                "X has {} features, but the model's input dimension is d = {d}",
                x.shape()[1]
            )));
        }
        // Borrowed when C-contiguous, else copied.
        let values: std::borrow::Cow<'_, [f32]> = match x.as_slice() {
            Ok(s) => s.into(),
            Err(_) => x.as_array().iter().copied().collect::<Vec<f32>>().into(),
        };
        let mut out = vec![0.0f32; values.len() / d.max(1) * width];
        for (row, o) in values
            .chunks_exact(d.max(1))
            .zip(out.chunks_exact_mut(width.max(1)))
        {
            f(model, row, o).map_err(core_error)?;
        }
        Ok(out)
    }
}

#[pymethods]
impl DeviceModel {
    /// Loads and validates a blob (a copy is kept).
    #[staticmethod]
    fn from_bytes(blob: &[u8]) -> PyResult<DeviceModel> {
        let blob = ModelBlob::from_bytes(blob).map_err(core_error)?;
        Ok(DeviceModel { blob })
    }
    /// Loads and validates the blob in the file `path` (what `kpca fit` or
    /// `export(..., format="blob")` wrote).
    #[staticmethod]
    fn load(path: std::path::PathBuf) -> PyResult<DeviceModel> {
        let bytes = std::fs::read(&path).map_err(|e| {
            pyo3::exceptions::PyOSError::new_err(format!("{}: {e}", path.display()))
        })?;
        DeviceModel::from_bytes(&bytes)
    }
    /// The blob.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.blob.as_bytes())
    }
    /// Input dimension d.
    #[getter]
    fn dim(&self) -> usize {
        self.model().dim()
    }
    /// Components k.
    #[getter]
    fn n_components(&self) -> usize {
        self.model().n_components()
    }
    /// Stored points m.
    #[getter]
    fn n_points(&self) -> usize {
        self.model().n_points()
    }
    /// Regression targets t (0 without a regression head).
    #[getter]
    fn n_targets(&self) -> usize {
        self.model().n_targets()
    }
    /// Whether the model has a pre-image map.
    #[getter]
    fn has_preimage(&self) -> bool {
        self.model().n_preimage_rows() > 0
    }
    /// The anomaly threshold (0 when unset).
    #[getter]
    fn threshold(&self) -> f32 {
        self.model().threshold()
    }
    /// The k coordinates of each row (rows x k, float32).
    fn project<'py>(
        &self,
        py: Python<'py>,
        x: PyArrayLike2<'_, f32, AllowTypeChange>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let model = self.model();
        let k = model.n_components();
        let y = Self::per_row(model, &x, k, |m, row, o| m.project(row, o))?;
        matrix(py, y, k)
    }
    /// The anomaly score of each row (float32).
    fn anomaly_score<'py>(
        &self,
        py: Python<'py>,
        x: PyArrayLike2<'_, f32, AllowTypeChange>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let e = Self::per_row(self.model(), &x, 1, |m, row, o| {
            o[0] = m.anomaly_score(row)?;
            Ok(())
        })?;
        Ok(PyArray1::from_vec(py, e))
    }
    /// Whether each row's score is above the threshold.
    fn is_anomaly<'py>(
        &self,
        py: Python<'py>,
        x: PyArrayLike2<'_, f32, AllowTypeChange>,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let flags = Self::per_row(self.model(), &x, 1, |m, row, o| {
            o[0] = if m.is_anomaly(row)? { 1.0 } else { 0.0 };
            Ok(())
        })?;
        Ok(PyArray1::from_vec(
            py,
            flags.iter().map(|&f| f > 0.5).collect(),
        ))
    }
    /// The regression head's predictions (rows x t, float32).
    fn predict<'py>(
        &self,
        py: Python<'py>,
        x: PyArrayLike2<'_, f32, AllowTypeChange>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let model = self.model();
        let t = model.n_targets();
        if t == 0 {
            return Err(core_error(kpca_core::Error::NoRegression));
        }
        let p = Self::per_row(model, &x, t, |m, row, o| m.predict(row, o))?;
        matrix(py, p, t)
    }
    /// The pre-image of each row (rows x d, float32).
    fn reconstruct<'py>(
        &self,
        py: Python<'py>,
        x: PyArrayLike2<'_, f32, AllowTypeChange>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let model = self.model();
        let d = model.dim();
        if model.n_preimage_rows() == 0 {
            return Err(core_error(kpca_core::Error::NoPreImage));
        }
        let r = Self::per_row(model, &x, d, |m, row, o| m.reconstruct(row, o))?;
        matrix(py, r, d)
    }
}

/// (file name, text) pairs of the C or Rust source of a fitted model.
pub fn export_source(
    fitted: &FittedKpca,
    format: &str,
    name: &str,
) -> PyResult<Vec<(String, String)>> {
    let blob = fitted.to_blob().map_err(value_error)?;
    match format {
        "c" => {
            let (h, c) =
                export::c_source(&blob, name, &fitted.export_info()).map_err(value_error)?;
            Ok(vec![(format!("{name}.h"), h), (format!("{name}.c"), c)])
        }
        "rust" => {
            let rs = export::rust_source(&blob, name).map_err(value_error)?;
            Ok(vec![(format!("{name}.rs"), rs)])
        }
        other => Err(PyValueError::new_err(format!(
            "format {other:?}: use 'blob', 'c' or 'rust'"
        ))),
    }
}
