//! The device model: the fit folded into the core's f32 model, owning its
//! arrays, and its blob ([`ModelBlob`], validated once).

use crate::error::FitError;
use kpca_blob::ModelBlob;
use kpca_core::model::{ModelParts, ModelRef};
use kpca_core::FitInfo;
use std::vec::Vec;

/// A device model in f32 owning its arrays (row-major), convertible to the core's
/// [`ModelRef`] and to a blob.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceModel {
    /// Kernel and parameters (f32).
    pub kernel: kpca_core::Kernel,
    /// Input dimension d.
    pub dim: usize,
    /// Components k.
    pub n_components: usize,
    /// (mean, 1/std) per feature when inputs are standardised.
    pub standardize: Option<(Vec<f32>, Vec<f32>)>,
    /// Stored points, m x d row-major (standardised).
    pub points: Vec<f32>,
    /// ‖z_i‖² of each stored point, from the f32 points.
    pub point_sq_norms: Vec<f32>,
    /// A, m x k row-major.
    pub a: Vec<f32>,
    /// b (k).
    pub b: Vec<f32>,
    /// c (m).
    pub c: Vec<f32>,
    /// s.
    pub s: f32,
    /// The k eigenvalues (as [`crate::FittedKpca::eigenvalues`]).
    pub eigenvalues: Vec<f32>,
    /// Anomaly threshold (0 = unset).
    pub threshold: f32,
    /// What the model records of its fit.
    pub fit: FitInfo,
    /// Whether the points are a folded linear map (linear and cosine
    /// models; see `kpca_core::ModelParts::linear_map`).
    pub linear_map: bool,
    /// The pre-image section (score vectors rows x k, dual coefficients
    /// rows x d in the device's input space), when the fit has one.
    pub preimage: Option<(Vec<f32>, Vec<f32>)>,
    /// The regression section (weights k x t, intercepts t), when the fit
    /// has one.
    pub regression: Option<(Vec<f32>, Vec<f32>)>,
}

impl DeviceModel {
    /// The validated core view (the same checks as loading a blob).
    pub fn as_model_ref(&self) -> Result<ModelRef<'_>, FitError> {
        ModelRef::from_parts(ModelParts {
            kernel: self.kernel,
            dim: self.dim,
            n_components: self.n_components,
            standardize: self.standardize.as_ref().map(|(m, s)| (&m[..], &s[..])),
            points: &self.points,
            point_sq_norms: &self.point_sq_norms,
            a: &self.a,
            b: &self.b,
            c: &self.c,
            s: self.s,
            eigenvalues: &self.eigenvalues,
            threshold: self.threshold,
            fit: self.fit,
            linear_map: self.linear_map,
        })
        .and_then(|view| {
            view.with_heads(kpca_core::Heads {
                preimage: self
                    .preimage
                    .as_ref()
                    .map(|(scores, coef)| kpca_core::PreImageParts { scores, coef }),
                regression: self
                    .regression
                    .as_ref()
                    .map(|(weights, intercept)| kpca_core::RegressionParts { weights, intercept }),
            })
        })
        .map_err(|source| FitError::Device {
            what: "validating the f32 model",
            source,
        })
    }

    /// The blob, written by the core's writer into aligned memory, with its
    /// view: validated once ([`DeviceModel::as_model_ref`]), not read back.
    pub fn to_blob(&self) -> Result<ModelBlob, FitError> {
        write_blob(&self.as_model_ref()?)
    }
}

/// The blob of a validated model ([`ModelBlob::from_model`]).
pub(crate) fn write_blob(view: &ModelRef<'_>) -> Result<ModelBlob, FitError> {
    ModelBlob::from_model(view).map_err(|source| FitError::Device {
        what: "writing the blob",
        source,
    })
}
