//! The on-device fit and recalibration (`kpca_core::learn`, and the same through
//! the C ABI's `kpca_fit_sizes` / `kpca_fit` / `kpca_recalibrate`) on any n,
//! d, k, kernel parameters, rate, buffer sizes and contents (NaN, infinities,
//! denormals, huge values, constant columns).
//!
//! Oracle: no panic, no out-of-bounds access (ASan); the C calls return the
//! Rust calls' status; on success the blob has the length `fit_sizes` gave,
//! loads with `ModelRef::from_bytes`, records a full fit of n rows and a
//! threshold >= 0, and recalibrating it leaves a blob that loads with the
//! returned threshold; on a recalibration failure the blob is unchanged.
#![no_main]

use core::ffi::c_void;
use kpca_core::learn::{fit, fit_sizes, recalibrate, FitParams};
use kpca_core::{FitMethod, Kernel, KernelId, ModelRef};
use kpca_capi::{kpca_fit, kpca_fit_params, kpca_recalibrate, KPCA_OK};
use kpca_blob::AlignedBytes;
use kpca_fuzz::Values;
use libfuzzer_sys::fuzz_target;

/// A 4-byte-aligned byte buffer of `len` bytes (zeroed).
fn aligned(len: usize) -> AlignedBytes {
    AlignedBytes::zeroed(len)
}

fn bytes(v: &mut AlignedBytes) -> &mut [u8] {
    v.as_mut_bytes()
}

fuzz_target!(|data: &[u8]| {
    let mut v = Values::new(data);
    let n = usize::from(v.byte() % 24);
    let d = usize::from(v.byte() % 9);
    let k = usize::from(v.byte() % 18);
    let id = v.byte() % 7;
    let gamma = v.value();
    let degree = u32::from(v.byte() % 18);
    let coef0 = v.value();
    let standardize = v.byte() & 1 == 1;
    let rate = match v.byte() % 4 {
        0 => v.value(),
        r => f32::from(r) * 0.1,
    };
    let x = v.values(n * d);
    let cparams = kpca_fit_params {
        kernel: u32::from(id),
        degree,
        gamma,
        coef0,
        n_components: k as u32,
        standardize: u32::from(standardize),
        false_alarm_rate: rate,
    };
    // As kpca_fit: d = 0 first, then the kernel (gamma 0 means 1/d).
    let kernel = (if d == 0 { Err(kpca_core::Error::ZeroDimension) } else { Ok(()) })
        .and_then(|()| KernelId::try_from(u16::from(id)))
        .and_then(|id| Kernel::from_parts(id, if gamma == 0.0 && d > 0 { 1.0 / d as f32 } else { gamma }, degree, coef0));
    let (ws_len, out_len) = match kernel.and_then(|kernel| {
        let p = FitParams { kernel, n_components: k, standardize, false_alarm_rate: rate };
        fit_sizes(n, d, &p).map(|s| (p, s))
    }) {
        Ok((_, s)) => match v.byte() % 4 {
            0 => (s.workspace_floats.saturating_sub(1), s.model_bytes),
            1 => (s.workspace_floats, s.model_bytes.saturating_sub(1 + usize::from(v.byte() % 8))),
            _ => (s.workspace_floats, s.model_bytes),
        },
        Err(_) => (usize::from(v.u16()), usize::from(v.u16())),
    };
    let mut ws = vec![0.0f32; ws_len];
    let mut out = aligned(out_len);
    let rust = kernel.and_then(|kernel| {
        let p = FitParams { kernel, n_components: k, standardize, false_alarm_rate: rate };
        fit(&x, d, &p, &mut ws, &mut bytes(&mut out)[..out_len])
    });
    // The same through the C ABI, into fresh buffers.
    let mut ws_c = vec![0.0f32; ws_len];
    let mut out_c = aligned(out_len);
    let mut len_c = usize::MAX;
    // SAFETY: every pointer is valid for the length given with it.
    let status = unsafe {
        kpca_fit(
            if x.is_empty() { std::ptr::null() } else { x.as_ptr() },
            x.len(),
            d,
            &cparams,
            ws_c.as_mut_ptr().cast::<c_void>(),
            ws_len * 4,
            bytes(&mut out_c).as_mut_ptr(),
            out_len,
            &mut len_c,
        )
    };
    match rust {
        Ok(report) => {
            assert_eq!(status, KPCA_OK);
            assert_eq!(len_c, report.model_len);
            let blob = &mut bytes(&mut out)[..report.model_len];
            assert_eq!(blob, &bytes(&mut out_c)[..report.model_len]);
            let model = ModelRef::from_bytes(blob).expect("a fitted blob loads");
            assert_eq!(model.fit_info().method, FitMethod::Full);
            assert_eq!(model.fit_info().n_train as usize, n);
            assert!(model.threshold() >= 0.0 && model.threshold() == report.threshold);
            recalibrate_checks(&mut v, blob, &x, d);
        }
        Err(e) => {
            assert_eq!(status, e.code(), "C and Rust disagree: {e}");
            assert_eq!(len_c, usize::MAX, "model_len written on failure");
        }
    }
});

/// Recalibrates the valid blob `blob` on hostile normals (or the training
/// rows) with a hostile scratch length, directly and through the C ABI.
fn recalibrate_checks(v: &mut Values<'_>, blob: &mut [u8], x: &[f32], d: usize) {
    let normals = if v.byte() & 1 == 0 {
        x.to_vec()
    } else {
        let rows = usize::from(v.byte() % 12);
        let extra = usize::from(v.byte() % 2);
        v.values(rows * d + extra)
    };
    let rate = if v.byte() & 1 == 0 { 0.1 } else { v.value() };
    let scratch_len = (normals.len() / d.max(1) + usize::from(v.byte() % 3)).saturating_sub(1);
    let before = blob.to_vec();
    let mut scratch = vec![0.0f32; scratch_len];
    let rust = recalibrate(blob, &normals, rate, &mut scratch);
    // The same through the C ABI, on an aligned copy of the blob before.
    let mut c_blob = aligned(before.len());
    bytes(&mut c_blob)[..before.len()].copy_from_slice(&before);
    let mut t = -1.0f32;
    // SAFETY: every pointer is valid for the length given with it.
    let status = unsafe {
        kpca_recalibrate(
            bytes(&mut c_blob).as_mut_ptr(),
            before.len(),
            if normals.is_empty() { std::ptr::null() } else { normals.as_ptr() },
            normals.len(),
            rate,
            if scratch.is_empty() { std::ptr::null_mut() } else { scratch.as_mut_ptr() },
            scratch_len,
            &mut t,
        )
    };
    let c_bytes = &bytes(&mut c_blob)[..before.len()];
    match rust {
        Ok(threshold) => {
            let model = ModelRef::from_bytes(blob).expect("a recalibrated blob loads");
            assert!(threshold > 0.0 && model.threshold() == threshold);
            assert_eq!(status, KPCA_OK);
            assert_eq!(t, threshold);
            assert_eq!(c_bytes, &blob[..], "C and Rust wrote different blobs");
        }
        Err(e) => {
            assert_eq!(blob, &before[..], "blob changed on failure");
            assert_eq!(status, e.code());
            assert_eq!(t, -1.0, "threshold written on failure");
            assert_eq!(c_bytes, &before[..], "C changed the blob on failure");
        }
    }
}
