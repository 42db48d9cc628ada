//! The `DeviceModel` class: a model blob loaded by the `no_std` core, every
//! call running the core's f32 code (what the firmware computes).

use crate::fit::{matrix, value_error};
use kpca_core::ModelRef;
use kpca_fit::{export, FittedKpca, ModelBlob};
use numpy::{AllowTypeChange, PyArray1, PyArrayLike1, PyArrayLike2, PyUntypedArrayMethods};
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

/// The rows a method was given: a batch (`n x d`) or one vector (`d`), as
/// float32 (other dtypes are cast, as numpy's `astype`).
struct Input {
    values: Vec<f32>,
    /// One vector (1-D input): the result drops the row axis.
    one: bool,
}

impl Input {
    /// The rows of `x` for a model of input dimension `d`; a `ValueError`
    /// saying what shape is wanted for anything else.
    fn of(x: &Bound<'_, PyAny>, d: usize) -> PyResult<Input> {
        let wanted = || format!("one vector of shape ({d},) or rows of shape (n, {d})");
        let (values, cols, one) =
            if let Ok(a) = x.extract::<PyArrayLike2<'_, f32, AllowTypeChange>>() {
                (a.as_array().iter().copied().collect(), a.shape()[1], false)
            } else if let Ok(a) = x.extract::<PyArrayLike1<'_, f32, AllowTypeChange>>() {
                (a.as_array().to_vec(), a.shape()[0], true)
            } else {
                let shape = match x.getattr("shape") {
                    Ok(s) => format!("shape {}", s.str()?),
                    Err(_) => format!("a {}", x.get_type().name()?),
                };
                return Err(PyValueError::new_err(format!(
                    "X must be {}: numbers, float32 or cast to it; got {shape}",
                    wanted()
                )));
            };
        if cols != d {
            return Err(PyValueError::new_err(format!(
                "X has {cols} features, but the model's input dimension is d = {d}: give {}",
                wanted()
            )));
        }
        Ok(Input { values, one })
    }
}

impl DeviceModel {
    /// The model view, in O(1): the blob was validated once, when this
    /// object was made, and carries its record.
    fn model(&self) -> &ModelRef<'_> {
        self.blob.model()
    }

    /// Runs `f` on each row of `x` into `width` outputs per row.
    fn per_row(
        model: &ModelRef<'_>,
        x: &Input,
        width: usize,
        f: impl Fn(&ModelRef<'_>, &[f32], &mut [f32]) -> Result<(), kpca_core::Error>,
    ) -> PyResult<Vec<f32>> {
        let d = model.dim().max(1);
        let mut out = vec![0.0f32; x.values.len() / d * width];
        for (row, o) in x
            .values
            .chunks_exact(d)
            .zip(out.chunks_exact_mut(width.max(1)))
        {
            f(model, row, o).map_err(core_error)?;
        }
        Ok(out)
    }

    /// `width` outputs per row as rows x width, or as one row (width) for one
    /// vector.
    fn rows_out<'py>(
        py: Python<'py>,
        out: Vec<f32>,
        width: usize,
        one: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        if one {
            Ok(PyArray1::from_vec(py, out).into_any())
        } else {
            Ok(matrix(py, out, width)?.into_any())
        }
    }

    /// One output per row as an array, or as a numpy scalar for one vector.
    fn scalars_out<'py, T: numpy::Element>(
        py: Python<'py>,
        out: Vec<T>,
        one: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let a = PyArray1::from_vec(py, out).into_any();
        if one {
            a.get_item(0)
        } else {
            Ok(a)
        }
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
    /// The k coordinates of each row (rows x k, float32), or of one
    /// vector (k).
    fn project<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let model = self.model();
        let x = Input::of(x, model.dim())?;
        let k = model.n_components();
        let y = Self::per_row(model, &x, k, |m, row, o| m.project(row, o))?;
        Self::rows_out(py, y, k, x.one)
    }
    /// The anomaly score of each row (float32), or of one vector (a numpy
    /// float32 scalar).
    fn anomaly_score<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let x = Input::of(x, self.dim())?;
        let e = Self::per_row(self.model(), &x, 1, |m, row, o| {
            o[0] = m.anomaly_score(row)?;
            Ok(())
        })?;
        Self::scalars_out(py, e, x.one)
    }
    /// Whether each row's score is above the threshold (bool), or one
    /// vector's (a numpy bool scalar).
    fn is_anomaly<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let x = Input::of(x, self.dim())?;
        let flags = Self::per_row(self.model(), &x, 1, |m, row, o| {
            o[0] = if m.is_anomaly(row)? { 1.0 } else { 0.0 };
            Ok(())
        })?;
        Self::scalars_out(py, flags.iter().map(|&f| f > 0.5).collect(), x.one)
    }
    /// The regression head's predictions (rows x t, float32), or one
    /// vector's (t).
    fn predict<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let model = self.model();
        let t = model.n_targets();
        if t == 0 {
            return Err(core_error(kpca_core::Error::NoRegression));
        }
        let x = Input::of(x, model.dim())?;
        let p = Self::per_row(model, &x, t, |m, row, o| m.predict(row, o))?;
        Self::rows_out(py, p, t, x.one)
    }
    /// The pre-image of each row (rows x d, float32), or of one vector (d).
    fn reconstruct<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let model = self.model();
        let d = model.dim();
        if model.n_preimage_rows() == 0 {
            return Err(core_error(kpca_core::Error::NoPreImage));
        }
        let x = Input::of(x, d)?;
        let r = Self::per_row(model, &x, d, |m, row, o| m.reconstruct(row, o))?;
        Self::rows_out(py, r, d, x.one)
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
