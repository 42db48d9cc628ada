//! The `kpca._kpca` extension module: the Rust fit ([`kpca_fit`]) and the
//! device model's f32 code ([`kpca_core::ModelRef`]) for the Python package in
//! `python/kpca` (its estimators wrap these two classes).
//!
//! Arrays come in as numpy arrays, borrowed without a copy when they are
//! C-contiguous float64 (float32 for the device model); the GIL is released
//! during fits. Every error is a Python `ValueError` with the library's
//! message; panics unwind (the `python` profile) and PyO3 turns them into
//! exceptions, so none aborts the interpreter.

mod device;
mod fit;
mod stream;

use pyo3::prelude::*;

/// The module: `Fitted` (a host fit) and `DeviceModel` (a loaded blob).
#[pymodule]
fn _kpca(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<fit::Fitted>()?;
    m.add_class::<device::DeviceModel>()?;
    m.add_class::<fit::Precomputed>()?;
    m.add_function(wrap_pyfunction!(fit::fit, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_precomputed, m)?)?;
    m.add_class::<stream::Landmarks>()?;
    m.add_class::<stream::Solution>()?;
    m.add_function(wrap_pyfunction!(stream::stream_survey, m)?)?;
    m.add_function(wrap_pyfunction!(stream::stream_survey_merge, m)?)?;
    m.add_function(wrap_pyfunction!(stream::stream_rows_needed, m)?)?;
    m.add_function(wrap_pyfunction!(stream::stream_landmarks, m)?)?;
    // The name tables of the core and the fit, for the estimators' checks.
    let kernels: Vec<&str> = kpca_core::KernelId::ALL.iter().map(|k| k.name()).collect();
    m.add("KERNELS", kernels)?;
    let landmarks: Vec<&str> = kpca_fit::LandmarkMethod::ALL
        .iter()
        .map(|l| l.name())
        .collect();
    m.add("LANDMARK_METHODS", landmarks)?;
    m.add("MAX_COMPONENTS", kpca_core::MAX_COMPONENTS)?;
    m.add("MAX_DIM", kpca_core::MAX_DIM)?;
    m.add("MAX_POINTS", kpca_core::MAX_POINTS)?;
    m.add("MAX_FULL_POINTS", kpca_fit::MAX_FULL_POINTS)?;
    // The crate's version; maturin gives the Python package the same one.
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_TARGETS", kpca_core::MAX_TARGETS)?;
    m.add("FORMAT_VERSION", kpca_core::format::FORMAT_VERSION)?;
    Ok(())
}
