//! The single-kernel entry points: `kpca_<kernel>_project`,
//! `kpca_<kernel>_anomaly_score`, `kpca_<kernel>_project_and_score` and
//! `kpca_<kernel>_is_anomaly` for each kernel. Each does what its
//! `kpca_project` counterpart does for a model of its kernel (the same
//! results bit for bit) and returns `KPCA_ERR_KERNEL_MISMATCH` for a model
//! of another; a firmware that calls only one kernel's links only that
//! kernel's code (the generated model header names its kernel's functions).

use kpca_core::single::{Cosine, Laplacian, Linear, Polynomial, Rbf, Sigmoid};

use super::{
    is_anomaly_with, kpca_model, kpca_status, project_and_score_with, project_with, score_with,
    Only,
};

/// `kpca_project` for linear models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_project`.
#[no_mangle]
pub unsafe extern "C" fn kpca_linear_project(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { project_with::<Only<Linear>>(model, x, x_len, out, out_len) }
}

/// `kpca_anomaly_score` for linear models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_anomaly_score`.
#[no_mangle]
pub unsafe extern "C" fn kpca_linear_anomaly_score(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { score_with::<Only<Linear>>(model, x, x_len, score) }
}

/// `kpca_project_and_score` for linear models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_project_and_score`.
#[no_mangle]
pub unsafe extern "C" fn kpca_linear_project_and_score(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { project_and_score_with::<Only<Linear>>(model, x, x_len, out, out_len, score) }
}

/// `kpca_is_anomaly` for linear models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_is_anomaly`.
#[no_mangle]
pub unsafe extern "C" fn kpca_linear_is_anomaly(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    is_anomaly: *mut u8,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { is_anomaly_with::<Only<Linear>>(model, x, x_len, is_anomaly) }
}

/// `kpca_project` for polynomial models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_project`.
#[no_mangle]
pub unsafe extern "C" fn kpca_polynomial_project(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { project_with::<Only<Polynomial>>(model, x, x_len, out, out_len) }
}

/// `kpca_anomaly_score` for polynomial models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_anomaly_score`.
#[no_mangle]
pub unsafe extern "C" fn kpca_polynomial_anomaly_score(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { score_with::<Only<Polynomial>>(model, x, x_len, score) }
}

/// `kpca_project_and_score` for polynomial models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_project_and_score`.
#[no_mangle]
pub unsafe extern "C" fn kpca_polynomial_project_and_score(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { project_and_score_with::<Only<Polynomial>>(model, x, x_len, out, out_len, score) }
}

/// `kpca_is_anomaly` for polynomial models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_is_anomaly`.
#[no_mangle]
pub unsafe extern "C" fn kpca_polynomial_is_anomaly(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    is_anomaly: *mut u8,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { is_anomaly_with::<Only<Polynomial>>(model, x, x_len, is_anomaly) }
}

/// `kpca_project` for rbf models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_project`.
#[no_mangle]
pub unsafe extern "C" fn kpca_rbf_project(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { project_with::<Only<Rbf>>(model, x, x_len, out, out_len) }
}

/// `kpca_anomaly_score` for rbf models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_anomaly_score`.
#[no_mangle]
pub unsafe extern "C" fn kpca_rbf_anomaly_score(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { score_with::<Only<Rbf>>(model, x, x_len, score) }
}

/// `kpca_project_and_score` for rbf models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_project_and_score`.
#[no_mangle]
pub unsafe extern "C" fn kpca_rbf_project_and_score(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { project_and_score_with::<Only<Rbf>>(model, x, x_len, out, out_len, score) }
}

/// `kpca_is_anomaly` for rbf models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_is_anomaly`.
#[no_mangle]
pub unsafe extern "C" fn kpca_rbf_is_anomaly(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    is_anomaly: *mut u8,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { is_anomaly_with::<Only<Rbf>>(model, x, x_len, is_anomaly) }
}

/// `kpca_project` for laplacian models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_project`.
#[no_mangle]
pub unsafe extern "C" fn kpca_laplacian_project(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { project_with::<Only<Laplacian>>(model, x, x_len, out, out_len) }
}

/// `kpca_anomaly_score` for laplacian models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_anomaly_score`.
#[no_mangle]
pub unsafe extern "C" fn kpca_laplacian_anomaly_score(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { score_with::<Only<Laplacian>>(model, x, x_len, score) }
}

/// `kpca_project_and_score` for laplacian models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_project_and_score`.
#[no_mangle]
pub unsafe extern "C" fn kpca_laplacian_project_and_score(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { project_and_score_with::<Only<Laplacian>>(model, x, x_len, out, out_len, score) }
}

/// `kpca_is_anomaly` for laplacian models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_is_anomaly`.
#[no_mangle]
pub unsafe extern "C" fn kpca_laplacian_is_anomaly(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    is_anomaly: *mut u8,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { is_anomaly_with::<Only<Laplacian>>(model, x, x_len, is_anomaly) }
}

/// `kpca_project` for sigmoid models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_project`.
#[no_mangle]
pub unsafe extern "C" fn kpca_sigmoid_project(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { project_with::<Only<Sigmoid>>(model, x, x_len, out, out_len) }
}

/// `kpca_anomaly_score` for sigmoid models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_anomaly_score`.
#[no_mangle]
pub unsafe extern "C" fn kpca_sigmoid_anomaly_score(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { score_with::<Only<Sigmoid>>(model, x, x_len, score) }
}

/// `kpca_project_and_score` for sigmoid models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_project_and_score`.
#[no_mangle]
pub unsafe extern "C" fn kpca_sigmoid_project_and_score(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { project_and_score_with::<Only<Sigmoid>>(model, x, x_len, out, out_len, score) }
}

/// `kpca_is_anomaly` for sigmoid models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_is_anomaly`.
#[no_mangle]
pub unsafe extern "C" fn kpca_sigmoid_is_anomaly(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    is_anomaly: *mut u8,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { is_anomaly_with::<Only<Sigmoid>>(model, x, x_len, is_anomaly) }
}

/// `kpca_project` for cosine models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_project`.
#[no_mangle]
pub unsafe extern "C" fn kpca_cosine_project(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { project_with::<Only<Cosine>>(model, x, x_len, out, out_len) }
}

/// `kpca_anomaly_score` for cosine models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_anomaly_score`.
#[no_mangle]
pub unsafe extern "C" fn kpca_cosine_anomaly_score(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { score_with::<Only<Cosine>>(model, x, x_len, score) }
}

/// `kpca_project_and_score` for cosine models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_project_and_score`.
#[no_mangle]
pub unsafe extern "C" fn kpca_cosine_project_and_score(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    out: *mut f32,
    out_len: usize,
    score: *mut f32,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { project_and_score_with::<Only<Cosine>>(model, x, x_len, out, out_len, score) }
}

/// `kpca_is_anomaly` for cosine models only (`KPCA_ERR_KERNEL_MISMATCH` otherwise).
///
/// # Safety
/// As `kpca_is_anomaly`.
#[no_mangle]
pub unsafe extern "C" fn kpca_cosine_is_anomaly(
    model: *const kpca_model,
    x: *const f32,
    x_len: usize,
    is_anomaly: *mut u8,
) -> kpca_status {
    // SAFETY: caller contract, forwarded.
    unsafe { is_anomaly_with::<Only<Cosine>>(model, x, x_len, is_anomaly) }
}
