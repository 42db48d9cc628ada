//! An owned model with fixed capacity, for Rust firmware and for models built or
//! copied into RAM on the device. It becomes the same [`ModelRef`] view.

use crate::error::Error;
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
        })
    }

    /// Standardise inputs with this per-feature mean and 1/std.
    pub fn set_standardization(&mut self, mean: [f32; D], inv_std: [f32; D]) {
        self.standardize = Some((mean, inv_std));
    }

    /// Appends a stored point z (in the standardised space), its row of A and its
    /// centring weight c. [`Error::Capacity`] when `M` points are already stored.
    pub fn push_point(&mut self, z: [f32; D], a_row: [f32; K], c: f32) -> Result<(), Error> {
        if self.points.is_full() {
            return Err(Error::Capacity);
        }
        let sq_norm: f32 = z.iter().map(|v| v * v).sum();
        // Capacity was checked above and the four vectors always have equal lengths.
        self.points.push(z).map_err(|_| Error::Capacity)?;
        self.point_sq_norms
            .push(sq_norm)
            .map_err(|_| Error::Capacity)?;
        self.a.push(a_row).map_err(|_| Error::Capacity)?;
        self.c.push(c).map_err(|_| Error::Capacity)?;
        Ok(())
    }

    /// Sets the projection offset b and the score constant s.
    pub fn set_offsets(&mut self, b: [f32; K], s: f32) {
        self.b = b;
        self.s = s;
    }

    /// Sets the eigenvalues kept for reporting.
    pub fn set_eigenvalues(&mut self, eigenvalues: [f32; K]) {
        self.eigenvalues = eigenvalues;
    }

    /// Sets the anomaly threshold (0 = unset).
    pub fn set_threshold(&mut self, threshold: f32) {
        self.threshold = threshold;
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
        if model.dim != D || model.n_components != K {
            return Err(Error::PartsLength);
        }
        if model.n_points > M {
            return Err(Error::Capacity);
        }
        let mut owned = Self::new(model.kernel)?;
        if let (Ok(mean), Ok(inv_std)) = (model.mean.try_into(), model.inv_std.try_into()) {
            owned.set_standardization(mean, inv_std);
        }
        let rows = model
            .points
            .chunks_exact(D)
            .zip(model.a.chunks_exact(K))
            .zip(model.c);
        for ((z, a_row), &c) in rows {
            let z: [f32; D] = z.try_into().map_err(|_| Error::PartsLength)?;
            let a_row: [f32; K] = a_row.try_into().map_err(|_| Error::PartsLength)?;
            owned.push_point(z, a_row, c)?;
        }
        owned.b = model.b.try_into().map_err(|_| Error::PartsLength)?;
        owned.eigenvalues = model
            .eigenvalues
            .try_into()
            .map_err(|_| Error::PartsLength)?;
        owned.s = model.s;
        owned.threshold = model.threshold;
        Ok(owned)
    }

    /// The validated view of this model (the same checks as loading a blob).
    pub fn as_model_ref(&self) -> Result<ModelRef<'_>, Error> {
        ModelRef::from_parts(ModelParts {
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
        })
    }
}
