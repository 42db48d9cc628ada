//! Entry points for one kernel: [`SingleKernel`], a [`ModelRef`] checked to
//! be of the kernel `K`, whose projection is compiled for that kernel alone.
//!
//! [`ModelRef::project`] and the other methods serve every kernel, so a
//! firmware that calls them links every kernel's loops. A firmware that
//! projects only through a [`SingleKernel`] (in C: `kpca_rbf_project` and
//! the other `kpca_<kernel>_*` functions) links one kernel's: the same code
//! path with the kernel a constant, the same results bit for bit.
//!
//! ```
//! use kpca_core::single::Rbf;
//! # fn demo(model: &kpca_core::ModelRef<'_>) -> Result<(), kpca_core::Error> {
//! let rbf = model.for_kernel::<Rbf>()?; // Error::KernelMismatch otherwise
//! let mut y = [0.0f32; 16];
//! let score = rbf.project_and_score(&[0.5, 1.5], &mut y)?;
//! # let _ = score; Ok(())
//! # }
//! ```

use core::marker::PhantomData;

use crate::error::Error;
use crate::kernel::KernelId;
use crate::model::ModelRef;
use crate::project::evaluate;

mod sealed {
    pub trait Sealed {}
}

/// A kernel as a type, for [`ModelRef::for_kernel`]: [`Linear`],
/// [`Polynomial`], [`Rbf`], [`Laplacian`], [`Sigmoid`], [`Cosine`].
pub trait KernelKind: sealed::Sealed {
    /// The kernel's id.
    const ID: KernelId;
}

macro_rules! kernel_kinds {
    ($($(#[$doc:meta])* $name:ident,)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl KernelKind for $name {
            const ID: KernelId = KernelId::$name;
        }
    )*};
}

kernel_kinds! {
    /// The linear kernel x'z.
    Linear,
    /// The polynomial kernel (gamma x'z + coef0)^degree.
    Polynomial,
    /// The RBF kernel exp(-gamma ‖x - z‖²).
    Rbf,
    /// The Laplacian kernel exp(-gamma ‖x - z‖₁).
    Laplacian,
    /// The sigmoid kernel tanh(gamma x'z + coef0).
    Sigmoid,
    /// The cosine kernel x'z / (‖x‖ ‖z‖).
    Cosine,
}

/// A model view of the kernel `K` (see the [module](self) documentation);
/// made by [`ModelRef::for_kernel`].
#[derive(Clone, Copy)]
pub struct SingleKernel<'m, 'a, K: KernelKind> {
    model: &'m ModelRef<'a>,
    kind: PhantomData<K>,
}

impl<'a> ModelRef<'a> {
    /// This model as a [`SingleKernel`] of the kernel `K`;
    /// [`Error::KernelMismatch`] when the model's kernel is another.
    pub fn for_kernel<K: KernelKind>(&self) -> Result<SingleKernel<'_, 'a, K>, Error> {
        if self.raw.kernel != K::ID as u32 {
            return Err(Error::KernelMismatch);
        }
        Ok(SingleKernel {
            model: self,
            kind: PhantomData,
        })
    }
}

impl<K: KernelKind> SingleKernel<'_, '_, K> {
    /// As [`ModelRef::project`].
    pub fn project(&self, x: &[f32], out: &mut [f32]) -> Result<(), Error> {
        evaluate_as::<K>(self.model, x, Some(out), None)
    }

    /// As [`ModelRef::anomaly_score`].
    pub fn anomaly_score(&self, x: &[f32]) -> Result<f32, Error> {
        let mut e = 0.0;
        evaluate_as::<K>(self.model, x, None, Some(&mut e))?;
        Ok(e)
    }

    /// As [`ModelRef::project_and_score`].
    pub fn project_and_score(&self, x: &[f32], out: &mut [f32]) -> Result<f32, Error> {
        let mut e = 0.0;
        evaluate_as::<K>(self.model, x, Some(out), Some(&mut e))?;
        Ok(e)
    }

    /// As [`ModelRef::evaluate`].
    pub fn evaluate(
        &self,
        x: &[f32],
        out: Option<&mut [f32]>,
        score: Option<&mut f32>,
    ) -> Result<(), Error> {
        evaluate_as::<K>(self.model, x, out, score)
    }

    /// As [`ModelRef::is_anomaly`].
    pub fn is_anomaly(&self, x: &[f32]) -> Result<bool, Error> {
        let threshold = self.model.raw.threshold;
        if threshold <= 0.0 {
            return Err(Error::ThresholdUnset);
        }
        Ok(self.anomaly_score(x)? > threshold)
    }
}

/// [`evaluate`] compiled for the kernel `K` alone.
#[inline(always)]
fn evaluate_as<K: KernelKind>(
    model: &ModelRef<'_>,
    x: &[f32],
    out: Option<&mut [f32]>,
    score: Option<&mut f32>,
) -> Result<(), Error> {
    match K::ID {
        KernelId::Linear => evaluate::<{ KernelId::Linear as u32 }>(model, x, out, score),
        KernelId::Polynomial => evaluate::<{ KernelId::Polynomial as u32 }>(model, x, out, score),
        KernelId::Rbf => evaluate::<{ KernelId::Rbf as u32 }>(model, x, out, score),
        KernelId::Laplacian => evaluate::<{ KernelId::Laplacian as u32 }>(model, x, out, score),
        KernelId::Sigmoid => evaluate::<{ KernelId::Sigmoid as u32 }>(model, x, out, score),
        KernelId::Cosine => evaluate::<{ KernelId::Cosine as u32 }>(model, x, out, score),
    }
}
