//! What a model records of the fit that made it ([`FitInfo`]): the method, the
//! number of training rows and the total variance, so that the stored
//! eigenvalues can be read as shares of the variance.
//!
//! Eigenvalue convention (blob format 2, every fit): the stored eigenvalues are
//! mu_l, the eigenvalues of the centred n x n kernel matrix Kc (scikit-learn's
//! `KernelPCA.eigenvalues_`); for a Nyström fit, of its Nyström approximation.
//! The variance of score column l over the training rows is mu_l / n (the
//! `explained_variance_` of the `nystrompca` package), and the share of the
//! variance it explains is mu_l / [`FitInfo::total_variance`]. A format-1 blob
//! records none of this ([`FitMethod::NotRecorded`]); its eigenvalues are mu_l
//! for a full fit but mu_l / n for a Nyström fit.

use crate::error::Error;

/// How the model was fitted.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FitMethod {
    /// Not recorded (a format-1 blob, or a model built by hand).
    NotRecorded = 0,
    /// Full kernel PCA: the stored points are the n training rows.
    Full = 1,
    /// Nyström kernel PCA: the stored points are m landmarks.
    Nystrom = 2,
}

impl FitMethod {
    /// The method of a stored code, `None` for an unknown one.
    pub fn from_u32(code: u32) -> Option<FitMethod> {
        match code {
            0 => Some(FitMethod::NotRecorded),
            1 => Some(FitMethod::Full),
            2 => Some(FitMethod::Nystrom),
            _ => None,
        }
    }
}

/// What a model records of its fit (see the module doc for the eigenvalue
/// convention). Either nothing ([`FitInfo::NOT_RECORDED`]: every field zero)
/// or all of it: a method, n >= 1 training rows (n = m for a full fit) and a
/// finite total variance > 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitInfo {
    /// Full or Nyström.
    pub method: FitMethod,
    /// Number of training rows n of the fit.
    pub n_train: u32,
    /// The total variance, in the units of the eigenvalues: the denominator
    /// of the fit's explained-variance ratios.
    pub total_variance: f32,
}

impl FitInfo {
    /// Nothing recorded.
    pub const NOT_RECORDED: FitInfo = FitInfo {
        method: FitMethod::NotRecorded,
        n_train: 0,
        total_variance: 0.0,
    };

    /// Whether the fit is recorded.
    pub fn is_recorded(&self) -> bool {
        self.method != FitMethod::NotRecorded
    }

    /// Checks the record for a model of `n_points` stored points (a folded
    /// linear map when `linear_map`, whose points are not the training rows):
    /// [`Error::NonFiniteModel`] for a non-finite total,
    /// [`Error::InconsistentModel`] for anything else that breaks the rules
    /// of [`FitInfo`].
    pub(crate) fn check(&self, n_points: usize, linear_map: bool) -> Result<(), Error> {
        if !self.total_variance.is_finite() {
            return Err(Error::NonFiniteModel);
        }
        if record_is_valid(
            self.method as u32,
            self.n_train,
            self.total_variance,
            n_points,
            linear_map,
        ) {
            Ok(())
        } else {
            Err(Error::InconsistentModel)
        }
    }

    /// The record of the stored words (method code, n, total), as a blob's
    /// header and a loaded model hold them; [`FitInfo::NOT_RECORDED`] for an
    /// unknown method code (which the loader refuses).
    pub fn from_words(method: u32, n_train: u32, total_variance: f32) -> FitInfo {
        match FitMethod::from_u32(method) {
            Some(method) => FitInfo {
                method,
                n_train,
                total_variance,
            },
            None => FitInfo::NOT_RECORDED,
        }
    }
}

/// The rules of [`FitInfo`] on the stored words (method code, n, total), for
/// a model of `n_points` stored points: nothing recorded (all bits zero), a
/// full fit with n = m, or a Nyström fit with n >= 1, each with a total that
/// is finite and positive. One comparison chain, shared by the loader and
/// [`FitInfo::check`] (the loader's code size counts on the device).
#[inline]
pub(crate) fn record_is_valid(
    method: u32,
    n_train: u32,
    total: f32,
    n_points: usize,
    linear_map: bool,
) -> bool {
    let positive = total > 0.0 && total <= f32::MAX;
    match method {
        0 => n_train == 0 && total.to_bits() == 0,
        1 if linear_map => n_train != 0 && positive,
        1 => usize::try_from(n_train) == Ok(n_points) && positive,
        2 => n_train != 0 && positive,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_all_or_nothing() {
        assert_eq!(FitInfo::NOT_RECORDED.check(5, false), Ok(()));
        let full = FitInfo {
            method: FitMethod::Full,
            n_train: 5,
            total_variance: 2.0,
        };
        assert_eq!(full.check(5, false), Ok(()));
        assert_eq!(full.check(4, false), Err(Error::InconsistentModel));
        // A folded linear map stores k + 1 points, not the n training rows.
        assert_eq!(full.check(4, true), Ok(()));
        let no_rows = FitInfo { n_train: 0, ..full };
        assert_eq!(no_rows.check(4, true), Err(Error::InconsistentModel));
        let ny = FitInfo {
            method: FitMethod::Nystrom,
            n_train: 1000,
            ..full
        };
        assert_eq!(ny.check(5, false), Ok(()));
        for bad in [
            FitInfo {
                n_train: 3,
                ..FitInfo::NOT_RECORDED
            },
            FitInfo {
                total_variance: 1.0,
                ..FitInfo::NOT_RECORDED
            },
            FitInfo {
                total_variance: 0.0,
                ..ny
            },
            FitInfo {
                total_variance: -1.0,
                ..ny
            },
            FitInfo { n_train: 0, ..ny },
            FitInfo {
                total_variance: -0.0,
                ..FitInfo::NOT_RECORDED
            },
        ] {
            assert_eq!(
                bad.check(5, false),
                Err(Error::InconsistentModel),
                "{bad:?}"
            );
        }
        let nan = FitInfo {
            total_variance: f32::NAN,
            ..ny
        };
        assert_eq!(nan.check(5, false), Err(Error::NonFiniteModel));
    }

    #[test]
    fn stored_codes_round_trip() {
        for m in [FitMethod::NotRecorded, FitMethod::Full, FitMethod::Nystrom] {
            assert_eq!(FitMethod::from_u32(m as u32), Some(m));
        }
        assert_eq!(FitMethod::from_u32(3), None);
        assert_eq!(
            FitInfo::from_words(2, 7, 1.5),
            FitInfo {
                method: FitMethod::Nystrom,
                n_train: 7,
                total_variance: 1.5
            }
        );
        assert_eq!(FitInfo::from_words(9, 7, 1.5), FitInfo::NOT_RECORDED);
    }
}
