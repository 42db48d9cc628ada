//! The no_std core: projection against an independent f64 implementation, the
//! blob format (round trip and every rejection), the owned model and batches.

use kpca_testkit as common;

use common::{all_kernels, AlignedBytes, Lcg, TestModel};
use kpca_core::format::{blob_len_for, HEADER_LEN};
use kpca_core::{Error, Header, Kernel, KernelId, ModelRef, OwnedModel};

/// f32 result against f64 reference, relative to the magnitude of the sums involved.
const PROJECTION_REL_TOL: f64 = 2e-5;

fn assert_matches_reference(model: &TestModel, x: &[f32]) {
    let view = model.view();
    let mut out = vec![0.0f32; model.k];
    let e = view.project_and_score(x, &mut out).unwrap();
    let (y_ref, e_ref) = model.reference(x);
    let scale =
        1.0 + kpca_testkit::max_abs(&y_ref) + model.a.iter().map(|v| v.abs() as f64).sum::<f64>();
    for (got, want) in out.iter().zip(&y_ref) {
        assert!(
            (*got as f64 - want).abs() <= PROJECTION_REL_TOL * scale,
            "{:?} d={} m={} k={} std={}: {got} vs {want}",
            model.kernel,
            model.dim,
            model.c.len(),
            model.k,
            model.standardize.is_some()
        );
    }
    let e_scale = scale * scale;
    assert!(
        (e as f64 - e_ref).abs() <= PROJECTION_REL_TOL * e_scale,
        "{:?}: score {e} vs {e_ref}",
        model.kernel
    );
    // project and anomaly_score agree with the fused call.
    let mut out2 = vec![0.0f32; model.k];
    view.project(x, &mut out2).unwrap();
    assert_eq!(out, out2);
    assert_eq!(view.anomaly_score(x).unwrap(), e);
}

#[test]
fn every_kernel_matches_the_f64_formulas() {
    let mut g = Lcg(99);
    // Under Miri (an interpreter) the first three shapes, one input each.
    let (shapes, inputs) = if cfg!(miri) { (3, 1) } else { (7, 4) };
    for kernel in all_kernels() {
        for &(d, m, k, standardized) in [
            (3, 5, 1, false),
            (8, 37, 4, false),
            (8, 37, 4, true),
            (5, 20, 8, true),
            (7, 19, 13, false),
            (16, 64, 16, true),
            (4, 9, 6, false),
        ]
        .iter()
        .take(shapes)
        {
            let model =
                TestModel::random(kernel, d, m, k, standardized, (d * 131 + m * 7 + k) as u64);
            for _ in 0..inputs {
                let x = g.vec(d, 1.2);
                assert_matches_reference(&model, &x);
            }
        }
    }
}

#[test]
fn blob_round_trip_is_exact_and_zero_copy() {
    for (i, kernel) in all_kernels().into_iter().enumerate() {
        let model = TestModel::random(kernel, 6, 11, 3, i % 2 == 0, 7 + i as u64);
        let blob = model.blob();
        assert_eq!(blob.len(), blob_len_for(6, 11, 3, i % 2 == 0).unwrap());
        let loaded = ModelRef::from_bytes(&blob).unwrap();
        assert_eq!(loaded.kernel(), kernel);
        assert_eq!(
            (loaded.dim(), loaded.n_points(), loaded.n_components()),
            (6, 11, 3)
        );
        assert_eq!(loaded.is_standardized(), i % 2 == 0);
        assert_eq!(loaded.threshold(), model.threshold);
        assert_eq!(loaded.eigenvalues(), &model.eigenvalues[..]);
        // The points are read in place, not copied.
        let p = loaded.parts().points.as_ptr() as usize;
        assert!(
            p >= blob.as_ptr() as usize + HEADER_LEN && p < blob.as_ptr() as usize + blob.len()
        );
        // Writing the loaded model gives the same bytes.
        let mut again = vec![0u8; loaded.blob_len()];
        loaded.write_to(&mut again).unwrap();
        assert_eq!(again, &blob[..]);
        let x = [0.3f32, -0.2, 0.9, 0.0, 1.1, -0.7];
        let mut a = [0.0f32; 3];
        let mut b = [0.0f32; 3];
        model.view().project(&x, &mut a).unwrap();
        loaded.project(&x, &mut b).unwrap();
        assert_eq!(a, b);
    }
}

fn load(bytes: &[u8]) -> Result<(), Error> {
    ModelRef::from_bytes(&AlignedBytes::from_bytes(bytes)).map(|_| ())
}

/// Rewrites the CRC after a deliberate header edit, so the edit itself is tested.
fn fix_crc(blob: &mut [u8]) {
    let n = blob.len() - 4;
    let crc = kpca_core::crc32::crc32(&blob[..n]);
    blob[n..].copy_from_slice(&crc.to_le_bytes());
}

fn edited(blob: &[u8], at: usize, bytes: &[u8]) -> Vec<u8> {
    let mut b = blob.to_vec();
    b[at..at + bytes.len()].copy_from_slice(bytes);
    fix_crc(&mut b);
    b
}

#[test]
fn every_kind_of_bad_blob_has_its_own_error() {
    let model = TestModel::random(Kernel::Rbf { gamma: 0.5 }, 4, 9, 2, true, 3);
    let blob = model.blob();
    assert_eq!(load(&blob), Ok(()));
    assert_eq!(load(&[]), Err(Error::Truncated));
    assert_eq!(load(&blob[..3]), Err(Error::Truncated));
    assert_eq!(load(&blob[..40]), Err(Error::Truncated));
    assert_eq!(load(&blob[..blob.len() - 1]), Err(Error::Truncated));
    assert_eq!(load(&edited(&blob, 0, b"KPCB")), Err(Error::BadMagic));
    for version in [0u16, kpca_core::format::FORMAT_VERSION + 1, 0xFFFF] {
        assert_eq!(
            load(&edited(&blob, 4, &version.to_le_bytes())),
            Err(Error::UnsupportedVersion)
        );
    }
    assert_eq!(
        load(&edited(&blob, 6, &0xFFFEu16.to_le_bytes())),
        Err(Error::ByteOrder)
    );
    assert_eq!(
        load(&edited(&blob, 8, &60u16.to_le_bytes())),
        Err(Error::BadHeader)
    );
    assert_eq!(
        load(&edited(&blob, 12, &3u32.to_le_bytes())),
        Err(Error::BadHeader)
    );
    assert_eq!(
        load(&edited(&blob, 56, &1u32.to_le_bytes())),
        Err(Error::BadHeader)
    );
    // A flipped payload bit without a CRC fix.
    let mut flipped = blob.clone();
    flipped[HEADER_LEN + 5] ^= 0x10;
    assert_eq!(load(&flipped), Err(Error::CrcMismatch));
    // Dims that disagree with the length.
    assert_eq!(
        load(&edited(&blob, 20, &10u32.to_le_bytes())),
        Err(Error::LengthMismatch)
    );
    let mut longer = blob.to_vec();
    longer.extend_from_slice(&[0; 4]);
    assert_eq!(load(&longer), Err(Error::LengthMismatch));
    assert_eq!(
        load(&edited(&blob, 16, &0u32.to_le_bytes())),
        Err(Error::ZeroDimension)
    );
    assert_eq!(
        load(&edited(&blob, 24, &0u32.to_le_bytes())),
        Err(Error::ZeroDimension)
    );
    assert_eq!(
        load(&edited(&blob, 16, &5000u32.to_le_bytes())),
        Err(Error::DimensionTooLarge)
    );
    assert_eq!(
        load(&edited(&blob, 24, &17u32.to_le_bytes())),
        Err(Error::DimensionTooLarge)
    );
    assert_eq!(
        load(&edited(&blob, 10, &9u16.to_le_bytes())),
        Err(Error::UnknownKernel)
    );
    assert_eq!(
        load(&edited(&blob, 32, &(-1.0f32).to_le_bytes())),
        Err(Error::BadKernelParameter)
    );
    assert_eq!(
        load(&edited(&blob, HEADER_LEN + 8 * 4, &f32::NAN.to_le_bytes())),
        Err(Error::NonFiniteModel)
    );
    assert_eq!(
        load(&edited(&blob, 40, &f32::INFINITY.to_le_bytes())),
        Err(Error::NonFiniteModel)
    );
    assert_eq!(
        load(&edited(&blob, 40, &(-1.0f32).to_le_bytes())),
        Err(Error::InconsistentModel)
    );
    // Stored norm that is not the norm of its point (first norm after mean, inv_std, points).
    assert_eq!(
        load(&edited(
            &blob,
            HEADER_LEN + (8 + 36) * 4,
            &100.0f32.to_le_bytes()
        )),
        Err(Error::InconsistentModel)
    );
    // Misaligned start.
    let buf = AlignedBytes::from_bytes(&[&[0u8][..], &blob[..]].concat());
    assert_eq!(
        ModelRef::from_bytes(&buf[1..]).map(|_| ()).unwrap_err(),
        Error::Misaligned
    );
}

#[test]
fn every_single_byte_flip_and_truncation_is_rejected() {
    let model = TestModel::random(
        Kernel::Polynomial {
            gamma: 0.5,
            degree: 2,
            coef0: 1.0,
        },
        3,
        4,
        2,
        false,
        5,
    );
    let blob = model.blob();
    // Under Miri (an interpreter) every 37th byte: the same checks on a sample.
    let step = if cfg!(miri) { 37 } else { 1 };
    for i in (0..blob.len()).step_by(step) {
        for bit in 0..8 {
            let mut b = blob.clone();
            b[i] ^= 1 << bit;
            assert!(load(&b).is_err(), "flip of byte {i} bit {bit} accepted");
        }
    }
    for n in (0..blob.len()).step_by(step) {
        assert!(load(&blob[..n]).is_err(), "truncation to {n} accepted");
    }
}

/// Every single-bit change of the header, with the CRC re-stamped so that the
/// CRC cannot be what catches it: either the loader refuses the blob with a
/// check of its own (never the CRC's), or it accepts it and the model it
/// loaded is the one the edited header describes.
#[test]
fn header_checks_decide_on_their_own_when_the_crc_is_restamped() {
    let model = TestModel::random(Kernel::Rbf { gamma: 0.5 }, 4, 9, 2, true, 3);
    let blob = model.blob();
    // The magic, version, byte order, header length (bytes 0..10), flags and
    // sizes (12..28), total length and fit record (48..64) admit no other
    // value for this blob, except versions 2 and 1 for 3 (the same layout:
    // version 3 only adds a flag, version 2 the fit record, which this blob
    // does not set); the kernel id, degree and float fields may.
    let older_version = |i: usize, bit: usize| i == 4 && bit < 2;
    let must_refuse = |i: usize| i < 10 || (12..28).contains(&i) || i >= 48;
    let mut accepted = 0;
    // Under Miri (an interpreter) every 11th bit: the same checks on a sample.
    let step = if cfg!(miri) { 11 } else { 1 };
    for flip in (0..8 * HEADER_LEN).step_by(step) {
        let (i, bit) = (flip / 8, flip % 8);
        let mut b = AlignedBytes::from_bytes(&blob);
        b[i] ^= 1 << bit;
        fix_crc(&mut b);
        match ModelRef::from_bytes(&b) {
            Err(e) => assert_ne!(e, Error::CrcMismatch, "byte {i} bit {bit}"),
            Ok(view) => {
                assert!(
                    !must_refuse(i) || older_version(i, bit),
                    "byte {i} bit {bit} accepted"
                );
                let h = Header::parse(&b).expect("an accepted header parses");
                let loaded = Header::of(&view);
                let id = KernelId::try_from(h.kernel).expect("an accepted kernel id");
                let kernel = Kernel::from_parts(id, h.gamma, h.degree, h.coef0);
                assert_eq!(Ok(view.kernel()), kernel, "byte {i} bit {bit}");
                // Parameters the kernel does not use are stored as 0.
                let (gamma, degree, coef0) = view.kernel().params();
                let described = Header {
                    gamma,
                    degree,
                    coef0,
                    version: kpca_core::format::FORMAT_VERSION,
                    ..h
                };
                assert_eq!(loaded, described, "byte {i} bit {bit}");
                accepted += 1;
            }
        }
    }
    assert!(accepted > 0);
}

#[test]
fn header_round_trips_through_its_writer() {
    let model = TestModel::random(
        Kernel::Sigmoid {
            gamma: 0.2,
            coef0: -0.5,
        },
        5,
        7,
        3,
        false,
        4,
    );
    let blob = model.blob();
    let header = Header::parse(&blob).unwrap();
    assert_eq!(Header::read(&blob), Some(header));
    assert_eq!(header, Header::of(&ModelRef::from_bytes(&blob).unwrap()));
    let mut bytes = [0u8; HEADER_LEN];
    header.write_to(&mut bytes);
    assert_eq!(&bytes[..], &blob[..HEADER_LEN]);
    assert_eq!(Header::read(&blob[..HEADER_LEN - 1]), None);
    assert_eq!(Header::read(b"KPCB").map(|h| h.version), None);
}

#[test]
fn bad_inputs_are_errors_and_leave_outputs_alone() {
    let model = TestModel::random(Kernel::Rbf { gamma: 0.5 }, 4, 9, 3, false, 11);
    let view = model.view();
    let mut out = [7.0f32; 3];
    assert_eq!(view.project(&[0.0; 3], &mut out), Err(Error::InputLength));
    assert_eq!(view.project(&[0.0; 5], &mut out), Err(Error::InputLength));
    assert_eq!(
        view.project(&[0.0; 4], &mut out[..2]),
        Err(Error::OutputLength)
    );
    assert_eq!(
        view.project(&[0.0, f32::NAN, 0.0, 0.0], &mut out),
        Err(Error::NonFiniteInput)
    );
    assert_eq!(
        view.project(&[0.0, 0.0, f32::INFINITY, 0.0], &mut out),
        Err(Error::NonFiniteInput)
    );
    assert_eq!(out, [7.0; 3]);
    assert_eq!(
        view.anomaly_score(&[f32::NEG_INFINITY; 4]),
        Err(Error::NonFiniteInput)
    );
    // A longer output buffer is fine; only the first k are written.
    let mut long = [7.0f32; 5];
    view.project(&[0.1; 4], &mut long).unwrap();
    assert_eq!(&long[3..], &[7.0, 7.0]);
    // Threshold.
    let score = view.anomaly_score(&[0.1; 4]).unwrap();
    assert_eq!(view.is_anomaly(&[0.1; 4]).unwrap(), score > model.threshold);
    let mut unset = model.clone();
    unset.threshold = 0.0;
    assert_eq!(
        unset.view().is_anomaly(&[0.1; 4]),
        Err(Error::ThresholdUnset)
    );
}

#[test]
fn polynomial_overflow_is_reported_not_returned() {
    let model = TestModel::random(
        Kernel::Polynomial {
            gamma: 1.0,
            degree: 16,
            coef0: 1.0,
        },
        4,
        5,
        2,
        false,
        13,
    );
    let view = model.view();
    let mut out = [7.0f32; 2];
    assert_eq!(
        view.project(&[1e5; 4], &mut out),
        Err(Error::NonFiniteResult)
    );
    assert_eq!(out, [7.0; 2]);
}

#[test]
fn rbf_far_from_every_point_underflows_to_the_offset() {
    let model = TestModel::random(Kernel::Rbf { gamma: 1.0 }, 4, 5, 2, false, 17);
    let view = model.view();
    let mut out = [0.0f32; 2];
    view.project(&[1e18; 4], &mut out).unwrap();
    assert_eq!(out, [model.b[0], model.b[1]]);
    let e = view.anomaly_score(&[1e18; 4]).unwrap();
    let want = 1.0 + model.s - model.b.iter().map(|v| v * v).sum::<f32>();
    assert!((e - want).abs() < 1e-6);
}

#[test]
fn batches_equal_row_by_row_calls() {
    let model = TestModel::random(Kernel::Laplacian { gamma: 0.5 }, 3, 10, 2, true, 19);
    let view = model.view();
    let xs = Lcg(5).vec(3 * 6, 1.0);
    let mut out = vec![0.0f32; 12];
    let mut scores = vec![0.0f32; 6];
    assert_eq!(view.project_batch(&xs, &mut out), Ok(6));
    assert_eq!(view.anomaly_score_batch(&xs, &mut scores), Ok(6));
    for (i, x) in xs.chunks(3).enumerate() {
        let mut y = [0.0f32; 2];
        view.project(x, &mut y).unwrap();
        assert_eq!(&out[i * 2..i * 2 + 2], &y);
        assert_eq!(scores[i], view.anomaly_score(x).unwrap());
    }
    assert_eq!(
        view.project_batch(&xs[..7], &mut out),
        Err(Error::BatchLength)
    );
    assert_eq!(
        view.project_batch(&xs, &mut out[..11]),
        Err(Error::OutputLength)
    );
    assert_eq!(
        view.anomaly_score_batch(&xs, &mut scores[..5]),
        Err(Error::OutputLength)
    );
    let mut bad = xs.clone();
    bad[17] = f32::NAN;
    let before = out.clone();
    assert_eq!(
        view.project_batch(&bad, &mut out),
        Err(Error::NonFiniteInput)
    );
    assert_eq!(out, before);
}

#[test]
fn owned_model_is_the_same_model() {
    let model = TestModel::random(Kernel::Rbf { gamma: 0.3 }, 4, 6, 2, true, 23);
    let blob = model.blob();
    let loaded = ModelRef::from_bytes(&blob).unwrap();
    let owned: OwnedModel<4, 8, 2> = OwnedModel::from_model_ref(&loaded).unwrap();
    assert_eq!(owned.len(), 6);
    let view = owned.as_model_ref().unwrap();
    let x = [0.5f32, -0.5, 0.25, 1.0];
    let (mut a, mut b) = ([0.0f32; 2], [0.0f32; 2]);
    loaded.project(&x, &mut a).unwrap();
    view.project(&x, &mut b).unwrap();
    assert_eq!(a, b);
    assert_eq!(loaded.anomaly_score(&x), view.anomaly_score(&x));
    // Capacity and shape errors.
    assert_eq!(
        OwnedModel::<4, 5, 2>::from_model_ref(&loaded).unwrap_err(),
        Error::Capacity
    );
    assert_eq!(
        OwnedModel::<3, 8, 2>::from_model_ref(&loaded).unwrap_err(),
        Error::PartsLength
    );
    let mut small: OwnedModel<2, 1, 1> = OwnedModel::new(Kernel::Linear).unwrap();
    small.push_point([1.0, 2.0], [0.5], 1.0).unwrap();
    assert_eq!(
        small.push_point([1.0, 2.0], [0.5], 1.0),
        Err(Error::Capacity)
    );
    assert_eq!(
        OwnedModel::<2, 1, 1>::new(Kernel::Rbf { gamma: 0.0 }).unwrap_err(),
        Error::BadKernelParameter
    );
    assert_eq!(
        OwnedModel::<0, 1, 1>::new(Kernel::Linear).unwrap_err(),
        Error::ZeroDimension
    );
    // An empty owned model is not a model.
    let empty: OwnedModel<2, 4, 1> = OwnedModel::new(Kernel::Linear).unwrap();
    assert_eq!(empty.as_model_ref().unwrap_err(), Error::ZeroDimension);
}

#[test]
fn writer_needs_a_big_enough_buffer() {
    let model = TestModel::random(Kernel::Cosine, 2, 3, 1, false, 29);
    let view = model.view();
    let mut buf = vec![0u8; view.blob_len() - 1];
    assert_eq!(view.write_to(&mut buf), Err(Error::BufferTooSmall));
}

/// A model with its fit recorded (format 2) writes and reads it back, also
/// through an owned copy; every header bit of the record is either refused or
/// describes another valid record, never silently lost.
#[test]
fn the_fit_record_round_trips_and_is_checked_at_load() {
    use kpca_core::{FitInfo, FitMethod};
    let model = TestModel::random(Kernel::Rbf { gamma: 0.5 }, 4, 9, 2, false, 5);
    for fit in [
        FitInfo {
            method: FitMethod::Full,
            n_train: 9,
            total_variance: 12.5,
        },
        FitInfo {
            method: FitMethod::Nystrom,
            n_train: 100_000,
            total_variance: 3.0e4,
        },
    ] {
        let parts = kpca_core::ModelParts {
            fit,
            ..model.parts()
        };
        let view = ModelRef::from_parts(parts).unwrap();
        let mut blob = AlignedBytes::zeroed(view.blob_len());
        view.write_to(&mut blob).unwrap();
        let loaded = ModelRef::from_bytes(&blob).unwrap();
        assert_eq!(loaded.fit_info(), fit);
        assert_eq!(loaded.total_variance(), Some(fit.total_variance));
        assert_eq!(
            Header::parse(&blob).unwrap().version,
            kpca_core::format::FORMAT_VERSION
        );
        let owned: OwnedModel<4, 16, 2> = OwnedModel::from_model_ref(&loaded).unwrap();
        assert_eq!(owned.as_model_ref().unwrap().fit_info(), fit);
        // The recorded n of a full fit must be m; a Nyström n anything >= 1.
        for (at, value) in [(52usize, 0u32), (60, 3), (56, (-1.0f32).to_bits())] {
            let bad = edited(&blob, at, &value.to_le_bytes());
            assert_eq!(
                load(&bad),
                Err(Error::BadHeader),
                "offset {at} = {value:#x}"
            );
        }
        let other_n = edited(&blob, 52, &8u32.to_le_bytes());
        let want = if fit.method == FitMethod::Full {
            Err(Error::BadHeader)
        } else {
            Ok(())
        };
        assert_eq!(load(&other_n), want);
    }
    // The record must agree with the stored points in from_parts too.
    let parts = kpca_core::ModelParts {
        fit: FitInfo {
            method: FitMethod::Full,
            n_train: 10,
            total_variance: 1.0,
        },
        ..model.parts()
    };
    assert_eq!(
        ModelRef::from_parts(parts).unwrap_err(),
        Error::InconsistentModel
    );
}

/// A format-1 blob (no fit record: the words at 52..64 were reserved, 0)
/// still loads, projects as before and reports no record; with anything but
/// zeros there it is refused.
#[test]
fn format_1_blobs_load_without_a_fit_record() {
    let model = TestModel::random(Kernel::Laplacian { gamma: 0.3 }, 5, 7, 3, true, 9);
    let v2 = model.blob();
    let v1 = edited(&v2, 4, &1u16.to_le_bytes());
    let bytes = AlignedBytes::from_bytes(&v1);
    let loaded = ModelRef::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.fit_info(), kpca_core::FitInfo::NOT_RECORDED);
    assert_eq!(loaded.total_variance(), None);
    let x = [0.4f32, -1.0, 0.2, 0.8, 0.1];
    let (mut a, mut b) = ([0.0f32; 3], [0.0f32; 3]);
    let ea = model.view().project_and_score(&x, &mut a).unwrap();
    let eb = loaded.project_and_score(&x, &mut b).unwrap();
    assert_eq!((a, ea), (b, eb));
    for at in [52usize, 56, 60] {
        let with_record = edited(&v1, at, &1u32.to_le_bytes());
        assert_eq!(load(&with_record), Err(Error::BadHeader), "offset {at}");
    }
}

/// The folded-linear-map flag: a version-3 flag, for linear and cosine
/// models only, that lets a full fit's record keep its n training rows
/// while the model stores k + 1 points; it survives the blob and the owned
/// copy, and is refused on other kernels and in older versions.
#[test]
fn linear_map_flag_is_checked_and_kept() {
    use kpca_core::format::FLAG_LINEAR_MAP;
    use kpca_core::{FitInfo, FitMethod};
    let fit = FitInfo {
        method: FitMethod::Full,
        n_train: 500,
        total_variance: 2.0,
    };
    for kernel in [Kernel::Linear, Kernel::Cosine] {
        let model = TestModel::random(kernel, 4, 3, 2, false, 5);
        let unflagged = kpca_core::ModelParts {
            fit,
            ..model.view().parts()
        };
        // n = 500 with m = 3 points is inconsistent for training points...
        assert_eq!(
            ModelRef::from_parts(unflagged).unwrap_err(),
            Error::InconsistentModel
        );
        // ... and the record of a folded map.
        let parts = kpca_core::ModelParts {
            linear_map: true,
            ..unflagged
        };
        let view = ModelRef::from_parts(parts).unwrap();
        assert!(view.is_linear_map());
        let mut blob = AlignedBytes::zeroed(view.blob_len());
        view.write_to(&mut blob).unwrap();
        let h = Header::parse(&blob).unwrap();
        assert_eq!(h.flags & FLAG_LINEAR_MAP, FLAG_LINEAR_MAP);
        assert_eq!(h.version, kpca_core::format::FORMAT_VERSION);
        let loaded = ModelRef::from_bytes(&blob).unwrap();
        assert!(loaded.is_linear_map());
        assert_eq!(loaded.fit_info(), fit);
        let owned: OwnedModel<4, 3, 2> = OwnedModel::from_model_ref(&loaded).unwrap();
        assert!(owned.as_model_ref().unwrap().is_linear_map());
        // Version 2 did not define the flag.
        assert_eq!(
            load(&edited(&blob, 4, &2u16.to_le_bytes())),
            Err(Error::BadHeader)
        );
        // Without the flag the record is the full fit's again (n = m).
        let flags = h.flags & !FLAG_LINEAR_MAP;
        assert_eq!(
            load(&edited(&blob, 12, &flags.to_le_bytes())),
            Err(Error::BadHeader)
        );
    }
    let rbf = TestModel::random(Kernel::Rbf { gamma: 0.5 }, 4, 3, 2, false, 5);
    let parts = kpca_core::ModelParts {
        linear_map: true,
        ..rbf.view().parts()
    };
    assert_eq!(
        ModelRef::from_parts(parts).unwrap_err(),
        Error::InconsistentModel
    );
    let mut owned: OwnedModel<4, 3, 2> = OwnedModel::from_model_ref(&rbf.view()).unwrap();
    assert_eq!(owned.set_linear_map(true), Err(Error::InconsistentModel));
    let blob = rbf.blob();
    let flags = Header::parse(&blob).unwrap().flags | FLAG_LINEAR_MAP;
    assert_eq!(
        load(&edited(&blob, 12, &flags.to_le_bytes())),
        Err(Error::BadHeader)
    );
}

/// The single-kernel views ([`kpca_core::single`]) give the generic methods'
/// results bit for bit for the model's own kernel, over every projection
/// path's shapes, and refuse every other kernel with `KernelMismatch`.
#[test]
fn single_kernel_views_match_the_generic_calls_and_refuse_other_kernels() {
    use kpca_core::single::{Cosine, KernelKind, Laplacian, Linear, Polynomial, Rbf, Sigmoid};
    fn check<K: KernelKind>(view: &ModelRef<'_>, x: &[f32]) {
        let k = view.n_components();
        let Ok(single) = view.for_kernel::<K>() else {
            assert_ne!(view.kernel().id(), K::ID);
            assert_eq!(view.for_kernel::<K>().err(), Some(Error::KernelMismatch));
            return;
        };
        assert_eq!(view.kernel().id(), K::ID);
        let (mut a, mut b) = (vec![0.0f32; k], vec![0.0f32; k]);
        let ea = view.project_and_score(x, &mut a).unwrap();
        let eb = single.project_and_score(x, &mut b).unwrap();
        assert_eq!(ea.to_bits(), eb.to_bits(), "{:?}", view.kernel());
        assert_eq!(
            a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            b.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        single.project(x, &mut b).unwrap();
        assert_eq!(a, b);
        assert_eq!(single.anomaly_score(x).unwrap().to_bits(), ea.to_bits());
        assert_eq!(single.is_anomaly(x), view.is_anomaly(x));
    }
    let mut g = Lcg(5);
    let shapes = if cfg!(miri) { 2 } else { 6 };
    for kernel in all_kernels() {
        for &(d, m, k) in [
            (3, 5, 1),
            (8, 37, 4),
            (9, 40, 9),
            (17, 18, 5),
            (64, 20, 16),
            (70, 9, 3),
        ]
        .iter()
        .take(shapes)
        {
            let model = TestModel::random(kernel, d, m, k, d % 2 == 1, (d * 7 + m) as u64);
            let view = model.view();
            let x = g.vec(d, 1.0);
            check::<Linear>(&view, &x);
            check::<Polynomial>(&view, &x);
            check::<Rbf>(&view, &x);
            check::<Laplacian>(&view, &x);
            check::<Sigmoid>(&view, &x);
            check::<Cosine>(&view, &x);
        }
    }
}

/// `RawModel::load_into` reads a blob into the caller's slot as
/// `ModelRef::from_bytes` does, and `RawModel::copy_into` (the C API's load
/// path, without `memcpy`) copies it field for field: the copy, read back as
/// a view, projects exactly as the loaded view. A failing load is an error.
#[test]
fn records_load_in_place_and_copy_word_by_word() {
    use core::mem::MaybeUninit;
    use kpca_core::RawModel;
    let mut g = Lcg(5);
    let model = TestModel::random(Kernel::Rbf { gamma: 0.3 }, 6, 11, 3, true, 5);
    let blob = model.blob();
    let view = ModelRef::from_bytes(&blob).unwrap();
    let mut slot = MaybeUninit::uninit();
    let raw = RawModel::load_into(&mut slot, &blob).unwrap();
    assert_eq!(format!("{raw:?}"), format!("{:?}", view.as_raw()));
    // The copy starts as another model's record: every size and pointer differs.
    let other = TestModel::random(Kernel::Linear, 2, 3, 1, false, 9).blob();
    let mut copy = *ModelRef::from_bytes(&other).unwrap().as_raw();
    raw.copy_into(&mut copy);
    assert_eq!(format!("{copy:?}"), format!("{raw:?}"));
    // SAFETY: `copy` equals the record of `view`, whose blob outlives it.
    let copied = unsafe { ModelRef::from_raw(&copy) }.unwrap();
    let x = g.vec(6, 1.0);
    let (mut a, mut b) = (vec![0.0f32; 3], vec![0.0f32; 3]);
    let ea = view.project_and_score(&x, &mut a).unwrap();
    let eb = copied.project_and_score(&x, &mut b).unwrap();
    assert_eq!((a, ea.to_bits()), (b, eb.to_bits()));
    // A truncated blob: the loader's error.
    let mut other = MaybeUninit::uninit();
    let truncated = RawModel::load_into(&mut other, &blob[..blob.len() - 4]).map(|_| ());
    assert_eq!(
        truncated,
        ModelRef::from_bytes(&blob[..blob.len() - 4]).map(|_| ())
    );
    assert!(truncated.is_err());
}
