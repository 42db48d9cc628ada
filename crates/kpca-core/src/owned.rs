//! An owned model with fixed capacity, for Rust firmware and for models built or
//! copied into RAM on the device. It becomes the same [`ModelRef`] view.

use crate::error::Error;
use crate::fit_info::FitInfo;
use crate::kernel::Kernel;
use crate::model::{check_dims, ModelParts, ModelRef};
use heapless::Vec;

/// A model with input dimension `D`, `K` components and room for up to `M`
/// stored points, held by value (no heap). Fill it point by point with
/// [`OwnedModel::push_point`] or copy a loaded blob with [`OwnedModel::from_model_ref`],
/// then call [`OwnedModel::as_model_ref`] to project.
#[derive(Clone, Debug)]
pub struct OwnedModel<const D: usize, const M: usize, const K: usize> {
    kernel: Kernel,
    standardize: Option<([f32; D], [f32; D])>,
    points: Vec<[f32; D], M>,
    point_sq_norms: Vec<f32, M>,
    a: Vec<[f32; K], M>,
    c: Vec<f32, M>,
    b: [f32; K],
    s: f32,
    eigenvalues: [f32; K],
    threshold: f32,
    fit: FitInfo,
    linear_map: bool,
}

impl<const D: usize, const M: usize, const K: usize> OwnedModel<D, M, K> {
    /// An empty model (no points yet) with this kernel. Checks the kernel's
    /// parameters and that `D`, `K` and `M` are non-zero and within the maxima.
    pub fn new(kernel: Kernel) -> Result<Self, Error> {
        check_dims(D, M, K)?;
        kernel.validate()?;
        Ok(OwnedModel {
            kernel,
            standardize: None,
            points: Vec::new(),
            point_sq_norms: Vec::new(),
            a: Vec::new(),
            c: Vec::new(),
            b: [0.0; K],
            s: 0.0,
            eigenvalues: [0.0; K],
            threshold: 0.0,
            fit: FitInfo::NOT_RECORDED,
            linear_map: false,
        })
    }

    /// Standardise inputs with this per-feature mean and 1/std.
    /// [`Error::NonFiniteModel`] unless every value is finite,
    /// [`Error::InconsistentModel`] unless every 1/std is > 0; nothing changes
    /// on error.
    pub fn set_standardization(&mut self, mean: [f32; D], inv_std: [f32; D]) -> Result<(), Error> {
        finite(&mean)?;
        finite(&inv_std)?;
        if inv_std.iter().any(|&v| v <= 0.0) {
            return Err(Error::InconsistentModel);
        }
        self.standardize = Some((mean, inv_std));
        Ok(())
    }

    /// Appends a stored point z (in the standardised space), its row of A and its
    /// centring weight c. [`Error::Capacity`] when `M` points are already
    /// stored, [`Error::NonFiniteModel`] when a value (or ‖z‖² in f32) is not
    /// finite; nothing changes on error.
    pub fn push_point(&mut self, z: [f32; D], a_row: [f32; K], c: f32) -> Result<(), Error> {
        let sq_norm: f32 = z.iter().map(|v| v * v).sum();
        self.push_point_with_norm(z, sq_norm, a_row, c)
    }

    /// [`OwnedModel::push_point`] with the point's squared norm given (a
    /// copied model keeps its source's stored norm, bit for bit).
    fn push_point_with_norm(
        &mut self,
        z: [f32; D],
        sq_norm: f32,
        a_row: [f32; K],
        c: f32,
    ) -> Result<(), Error> {
        if self.points.is_full() {
            return Err(Error::Capacity);
        }
        finite(&z)?;
        finite(&a_row)?;
        finite(&[c, sq_norm])?;
        // Capacity was checked above and the four vectors always have equal lengths.
        self.points.push(z).map_err(|_| Error::Capacity)?;
        self.point_sq_norms
            .push(sq_norm)
            .map_err(|_| Error::Capacity)?;
        self.a.push(a_row).map_err(|_| Error::Capacity)?;
        self.c.push(c).map_err(|_| Error::Capacity)?;
        Ok(())
    }

    /// Sets the projection offset b and the score constant s
    /// ([`Error::NonFiniteModel`] unless all finite; nothing changes on error).
    pub fn set_offsets(&mut self, b: [f32; K], s: f32) -> Result<(), Error> {
        finite(&b)?;
        finite(&[s])?;
        self.b = b;
        self.s = s;
        Ok(())
    }

    /// Sets the eigenvalues kept for reporting ([`Error::NonFiniteModel`]
    /// unless all finite; nothing changes on error).
    pub fn set_eigenvalues(&mut self, eigenvalues: [f32; K]) -> Result<(), Error> {
        finite(&eigenvalues)?;
        self.eigenvalues = eigenvalues;
        Ok(())
    }

    /// Sets the anomaly threshold (0 = unset): [`Error::NonFiniteModel`] unless
    /// finite, [`Error::InconsistentModel`] when negative; nothing changes on error.
    pub fn set_threshold(&mut self, threshold: f32) -> Result<(), Error> {
        finite(&[threshold])?;
        if threshold < 0.0 {
            return Err(Error::InconsistentModel);
        }
        self.threshold = threshold;
        Ok(())
    }

    /// Sets the threshold from normal vectors without refitting, as
    /// [`crate::learn::recalibrate`] does for a blob: the (1 -
    /// `false_alarm_rate`) quantile of the anomaly scores of the row-major
    /// `normals`, with one float of `scratch` per vector. Returns the
    /// threshold; nothing changes on error (the errors of
    /// [`crate::learn::recalibrate`]).
    pub fn recalibrate(
        &mut self,
        normals: &[f32],
        false_alarm_rate: f32,
        scratch: &mut [f32],
    ) -> Result<f32, Error> {
        let threshold = crate::learn::threshold_from(
            &self.as_model_ref()?,
            normals,
            false_alarm_rate,
            scratch,
        )?;
        self.set_threshold(threshold)?;
        Ok(threshold)
    }

    /// Number of points stored so far.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether no point is stored yet.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Copies a model (for example one read from a blob) into owned storage.
    /// [`Error::PartsLength`] when its d or k differ from `D`, `K`;
    /// [`Error::Capacity`] when it has more than `M` points.
    pub fn from_model_ref(model: &ModelRef<'_>) -> Result<Self, Error> {
        if model.dim() != D || model.n_components() != K {
            return Err(Error::PartsLength);
        }
        if model.n_points() > M {
            return Err(Error::Capacity);
        }
        let parts = model.parts();
        let mut owned = Self::new(parts.kernel)?;
        if let Some((mean, inv_std)) = parts.standardize {
            let mean = mean.try_into().map_err(|_| Error::PartsLength)?;
            let inv_std = inv_std.try_into().map_err(|_| Error::PartsLength)?;
            owned.set_standardization(mean, inv_std)?;
        }
        let rows = parts
            .points
            .chunks_exact(D)
            .zip(parts.a.chunks_exact(K))
            .zip(parts.c)
            .zip(parts.point_sq_norms);
        for (((z, a_row), &c), &norm) in rows {
            let z: [f32; D] = z.try_into().map_err(|_| Error::PartsLength)?;
            let a_row: [f32; K] = a_row.try_into().map_err(|_| Error::PartsLength)?;
            // The stored norm as it was (the source's own, checked when it was
            // loaded), so the copy is the same model bit for bit.
            owned.push_point_with_norm(z, norm, a_row, c)?;
        }
        let b = parts.b.try_into().map_err(|_| Error::PartsLength)?;
        owned.set_offsets(b, parts.s)?;
        let eigenvalues = parts
            .eigenvalues
            .try_into()
            .map_err(|_| Error::PartsLength)?;
        owned.set_eigenvalues(eigenvalues)?;
        owned.set_threshold(parts.threshold)?;
        owned.fit = parts.fit;
        owned.linear_map = parts.linear_map;
        Ok(owned)
    }

    /// Records the fit that made the model (see [`FitInfo`]). The record is
    /// checked against the stored points by [`OwnedModel::as_model_ref`]
    /// (n = m for a full fit), here only for a finite total
    /// ([`Error::NonFiniteModel`]).
    pub fn set_fit_info(&mut self, fit: FitInfo) -> Result<(), Error> {
        finite(&[fit.total_variance])?;
        self.fit = fit;
        Ok(())
    }

    /// Marks the stored points as a folded linear map (see
    /// [`ModelParts::linear_map`]): [`Error::InconsistentModel`] unless the
    /// kernel is linear or cosine; nothing changes on error.
    pub fn set_linear_map(&mut self, linear_map: bool) -> Result<(), Error> {
        if linear_map && !crate::kernel::folds_to_linear_map(self.kernel.id() as u32) {
            return Err(Error::InconsistentModel);
        }
        self.linear_map = linear_map;
        Ok(())
    }

    /// The view of this model. Every setter checked its values, so this costs
    /// no validation of the numbers: [`Error::ZeroDimension`] while no point
    /// is stored, and the fit record's O(1) check against the number of
    /// points ([`Error::InconsistentModel`]).
    pub fn as_model_ref(&self) -> Result<ModelRef<'_>, Error> {
        if self.points.is_empty() {
            return Err(Error::ZeroDimension);
        }
        self.fit.check(self.points.len(), self.linear_map)?;
        let parts = ModelParts {
            kernel: self.kernel,
            dim: D,
            n_components: K,
            standardize: self.standardize.as_ref().map(|(m, s)| (&m[..], &s[..])),
            points: self.points.as_slice().as_flattened(),
            point_sq_norms: &self.point_sq_norms,
            a: self.a.as_slice().as_flattened(),
            b: &self.b,
            c: &self.c,
            s: self.s,
            eigenvalues: &self.eigenvalues,
            threshold: self.threshold,
            fit: self.fit,
            linear_map: self.linear_map,
        };
        // The kernel and sizes were checked by `new`, every value by the
        // setters (finite; 1/std > 0; threshold >= 0) and each stored norm is
        // the f32 sum of its point's squares (or, for a copy, the source's
        // checked norm): the invariant of `ModelRef` holds.
        Ok(ModelRef::from_checked_parts(&parts, self.points.len()))
    }
}

/// [`Error::NonFiniteModel`] unless every value is finite.
fn finite(values: &[f32]) -> Result<(), Error> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(Error::NonFiniteModel)
    }
}
