//! A valid model built from the fuzz input (kernel, parameters, small d, m, k,
//! optional standardisation, values; the stored norms computed as the loader
//! computes them), written by the writer, then mutated (bit flips, byte
//! overwrites, truncation, extension, header and float field writes, CRC
//! recomputation) and loaded again.
//!
//! Oracle: the valid model must validate, write and load back to the same
//! projections; a mutated blob whose CRC no longer matches must be refused
//! (payload-only edits exactly with `CrcMismatch`); a mutated blob that loads
//! must have a consistent length and CRC and then behaves like any loaded model.
#![no_main]

use kpca_core::crc32::crc32;
use kpca_core::format::blob_len_for;
use kpca_core::{Error, Kernel, KernelId, ModelParts, ModelRef};
use kpca_fuzz::{check_rewrite, check_single, exercise, Aligned, Values, HEADER_LEN, SPECIAL};
use libfuzzer_sys::fuzz_target;

const GAMMAS: [f32; 8] = [1e-3, 0.05, 0.25, 0.5, 1.0, 2.0, 10.0, 1e3];

/// A finite model value: mostly a multiple of 1/32 in [-4, 4], sometimes any
/// finite f32 up to 1e6 in magnitude (denormals included).
fn model_value(v: &mut Values<'_>) -> f32 {
    if v.byte() < 200 {
        f32::from(v.byte() as i8) / 32.0
    } else {
        let x = f32::from_bits(v.u32());
        if x.is_finite() && x.abs() <= 1e6 {
            x
        } else {
            0.5
        }
    }
}

fn kernel(v: &mut Values<'_>) -> Kernel {
    let id = KernelId::try_from(u16::from(v.byte() % 6)).expect("id < 6");
    let gamma = match v.byte() {
        b @ 0..=239 => GAMMAS[usize::from(b % 8)],
        _ => {
            let g = f32::from_bits(v.u32()).abs();
            if g.is_finite() && g > 0.0 {
                g
            } else {
                1.0
            }
        }
    };
    let degree = 1 + u32::from(v.byte() % 16);
    let coef0 = model_value(v);
    Kernel::from_parts(id, gamma, degree, coef0).expect("valid parameters")
}

fn header_value(v: &mut Values<'_>, total: u32) -> u32 {
    match v.byte() % 20 {
        0 => 0,
        1 => 1,
        2 => 2,
        3 => 5,
        4 => 6,
        5 => 16,
        6 => 17,
        7 => 64,
        8 => 4096,
        9 => 4097,
        10 => 1 << 20,
        11 => (1 << 20) + 1,
        12 => u32::MAX,
        13 => total,
        14 => total.wrapping_add(4),
        15 => total.wrapping_sub(4),
        16 => 0xFEFF,
        17 => f32::NAN.to_bits(),
        18 => (-1.0f32).to_bits(),
        _ => v.u32(),
    }
}

fn fix_crc(b: &mut [u8]) {
    if b.len() >= 4 {
        let n = b.len() - 4;
        let crc = crc32(&b[..n]);
        b[n..].copy_from_slice(&crc.to_le_bytes());
    }
}

fuzz_target!(|data: &[u8]| {
    let mut v = Values::new(data);
    let kernel = kernel(&mut v);
    let d = 1 + usize::from(v.byte() % 8);
    let m = 1 + usize::from(v.byte() % 12);
    let k = 1 + usize::from(v.byte() % 16);
    let standardized = v.byte() & 1 == 1;
    let mean: Vec<f32> = (0..d).map(|_| model_value(&mut v)).collect();
    let inv_std: Vec<f32> = (0..d)
        .map(|_| model_value(&mut v).abs().max(1e-3))
        .collect();
    let points: Vec<f32> = (0..m * d).map(|_| model_value(&mut v)).collect();
    // The loader's own computation, so the check is exact.
    let norms: Vec<f32> = points
        .chunks_exact(d)
        .map(|z| z.iter().map(|x| x * x).sum())
        .collect();
    let a: Vec<f32> = (0..m * k).map(|_| model_value(&mut v)).collect();
    let b: Vec<f32> = (0..k).map(|_| model_value(&mut v)).collect();
    let c: Vec<f32> = (0..m).map(|_| model_value(&mut v)).collect();
    let eig: Vec<f32> = (0..k).map(|_| model_value(&mut v)).collect();
    let s = model_value(&mut v);
    let threshold = model_value(&mut v).abs();
    let parts = ModelParts {
        kernel,
        dim: d,
        n_components: k,
        standardize: standardized.then_some((&mean[..], &inv_std[..])),
        points: &points,
        point_sq_norms: &norms,
        a: &a,
        b: &b,
        c: &c,
        s,
        eigenvalues: &eig,
        threshold,
        fit: kpca_core::FitInfo::NOT_RECORDED,
        // The folded-map flag (linear and cosine only) on half the shapes, so
        // the mutations also meet a format-3 flag.
        linear_map: matches!(kernel, kpca_core::Kernel::Linear | kpca_core::Kernel::Cosine)
            && (m + d).is_multiple_of(2),
    };
    let view = ModelRef::from_parts(parts).expect("a valid model validates");
    let total = view.blob_len();
    assert_eq!(Some(total), blob_len_for(d, m, k, standardized));
    let mut original = vec![0u8; total];
    assert_eq!(view.write_to(&mut original), Ok(total));
    let copy = Aligned::new(&original, 0);
    let loaded = ModelRef::from_bytes(copy.bytes()).expect("a written model loads");
    assert_eq!(loaded.kernel(), kernel);
    assert_eq!(
        (loaded.dim(), loaded.n_points(), loaded.n_components()),
        (d, m, k)
    );
    assert_eq!(loaded.is_standardized(), standardized);
    // The writer is a fixed point: the loaded model writes the same bytes.
    let mut again = vec![0u8; total];
    assert_eq!(loaded.write_to(&mut again), Ok(total));
    assert_eq!(again, original, "rewrite of a loaded model");
    let x: Vec<f32> = (0..d).map(|_| v.value()).collect();
    let (y1, e1) = check_single(&view, &x);
    let (y2, e2) = check_single(&loaded, &x);
    assert_eq!(
        y1.map(|y| y.iter().map(|f| f.to_bits()).collect::<Vec<_>>()),
        y2.map(|y| y.iter().map(|f| f.to_bits()).collect::<Vec<_>>())
    );
    assert_eq!(e1.map(f32::to_bits), e2.map(f32::to_bits));

    // Mutations.
    let mut blob = original.clone();
    let n_ops = 1 + v.byte() % 6;
    for _ in 0..n_ops {
        let len = blob.len();
        match v.byte() % 8 {
            0 if len > 0 => {
                let at = usize::from(v.u16()) % len;
                blob[at] ^= 1 << (v.byte() % 8);
            }
            1 if len > 0 => {
                let at = usize::from(v.u16()) % len;
                blob[at] = v.byte();
            }
            2 if len > 0 => blob.truncate(usize::from(v.u16()) % len),
            3 => {
                for _ in 0..1 + v.byte() % 16 {
                    blob.push(v.byte());
                }
            }
            4 => fix_crc(&mut blob),
            5 => {
                let at = 4 * usize::from(v.byte() % 16);
                let value = header_value(&mut v, total as u32);
                if let Some(dst) = blob.get_mut(at..at + 4) {
                    dst.copy_from_slice(&value.to_le_bytes());
                }
            }
            6 if len >= 8 => {
                let at = 4 * (usize::from(v.u16()) % (len / 4));
                let value = SPECIAL[usize::from(v.byte() % 16)];
                if let Some(dst) = blob.get_mut(at..at + 4) {
                    dst.copy_from_slice(&value.to_le_bytes());
                }
            }
            _ => {
                // Header edit and CRC fix together: the edit itself is tested.
                let at = 4 * usize::from(v.byte() % 16);
                let value = header_value(&mut v, total as u32);
                if let Some(dst) = blob.get_mut(at..at + 4) {
                    dst.copy_from_slice(&value.to_le_bytes());
                }
                fix_crc(&mut blob);
            }
        }
    }
    let copy = Aligned::new(&blob, 0);
    let result = ModelRef::from_bytes(copy.bytes());
    let len = blob.len();
    if blob == original {
        assert!(result.is_ok(), "the unchanged blob is refused: {result:?}");
        return;
    }
    let crc_ok = len >= 4 && kpca_fuzz::u32_at(&blob, len - 4) == Some(crc32(&blob[..len - 4]));
    if !crc_ok {
        assert!(result.is_err(), "a blob with a wrong CRC is accepted");
    }
    if len == total && blob[len - 4..] == original[len - 4..] {
        // Same length, CRC field untouched: any change is before the CRC.
        let first = blob
            .iter()
            .zip(&original)
            .position(|(x, y)| x != y)
            .expect("changed");
        if first >= HEADER_LEN && !crc_ok {
            assert_eq!(
                result.err(),
                Some(Error::CrcMismatch),
                "payload edit at {first}"
            );
        }
    }
    if let Ok(view) = result {
        assert_eq!(
            kpca_core::Header::read(&blob).map(|h| h.total_len),
            Some(len as u32)
        );
        check_rewrite(&view, &blob);
        exercise(&view, &mut v);
    }
});
