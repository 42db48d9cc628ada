//! Rust firmware for QEMU `mps2-an386` (Cortex-M4F) using the `kpca` crate
//! directly, with owned fixed-capacity models.
//!
//! 1. Loads the embedded model blob in place (`ModelRef::from_bytes`).
//! 2. Copies it into an `OwnedModel<D, M, K>` (`OwnedModel::from_model_ref`).
//! 3. Builds a second `OwnedModel` point by point from the first one's parts
//!    (`new`, `set_standardization`, `push_point`, `set_offsets`,
//!    `set_eigenvalues`, `set_threshold`) and checks that one more point is
//!    refused with `Error::Capacity`.
//! 4. Projects and scores each embedded test vector through the blob view and
//!    through `as_model_ref()` of both owned models, and compares with the host's
//!    f32 results: each coordinate within 1e-5 of its component's scale (the
//!    largest |expected| of that component over the test vectors), each score
//!    within 1e-5 of the scores' scale.
//!
//! Exits through semihosting: status 0 when everything matches, 1 otherwise
//! (also on a panic or a fault). The model, the test vectors and the expected
//! values come from `generated/` (written by `cargo xtask gen-model rust-fw`, see
//! `scripts/firmware-rust.sh`).
#![no_std]
#![no_main]

use core::panic::PanicInfo;
use cortex_m_rt::{entry, exception, ExceptionFrame};
use cortex_m_semihosting::{debug, hprintln};
use kpca::{Error, ModelParts, ModelRef, OwnedModel};

mod dims {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/generated/dims.rs"));
}
use dims::{D, K, M, N_TEST};

/// Relative tolerance against each component's scale.
const REL_TOL: f32 = 1e-5;

/// Gives its contents (the blob) the 4-byte alignment `ModelRef::from_bytes` needs.
#[repr(C, align(4))]
struct Aligned<B: ?Sized>(B);

static MODEL_BLOB: &Aligned<[u8]> = &Aligned(*include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/generated/model.kpca"
)));
/// N_TEST x D little-endian f32 (a size mismatch with dims.rs does not compile).
static XS: [u8; N_TEST * D * 4] =
    *include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/generated/xs.bin"));
/// N_TEST x (K coordinates, score) little-endian f32.
static EXPECTED: [u8; N_TEST * (K + 1) * 4] = *include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/generated/expected.bin"
));

type Model = OwnedModel<D, M, K>;

/// The `i`-th little-endian f32 of `bytes` (NaN past the end: never matches).
fn f32_at(bytes: &[u8], i: usize) -> f32 {
    bytes
        .get(4 * i..4 * i + 4)
        .and_then(|b| b.try_into().ok())
        .map(f32::from_le_bytes)
        .unwrap_or(f32::NAN)
}

fn test_vector(i: usize) -> [f32; D] {
    core::array::from_fn(|j| f32_at(&XS, i * D + j))
}

fn expected_y(i: usize) -> [f32; K] {
    core::array::from_fn(|l| f32_at(&EXPECTED, i * (K + 1) + l))
}

fn expected_e(i: usize) -> f32 {
    f32_at(&EXPECTED, i * (K + 1) + K)
}

/// The second owned model, built point by point from `parts` with the on-device
/// building API.
fn build_point_by_point(parts: &ModelParts<'_>) -> Result<Model, Error> {
    let mut model = Model::new(parts.kernel)?;
    if let Some((mean, inv_std)) = parts.standardize {
        let mean: [f32; D] = mean.try_into().map_err(|_| Error::PartsLength)?;
        let inv_std: [f32; D] = inv_std.try_into().map_err(|_| Error::PartsLength)?;
        model.set_standardization(mean, inv_std)?;
    }
    let rows = parts
        .points
        .chunks_exact(D)
        .zip(parts.a.chunks_exact(K))
        .zip(parts.c);
    for ((z, a_row), &c) in rows {
        let z: [f32; D] = z.try_into().map_err(|_| Error::PartsLength)?;
        let a_row: [f32; K] = a_row.try_into().map_err(|_| Error::PartsLength)?;
        model.push_point(z, a_row, c)?;
    }
    let b: [f32; K] = parts.b.try_into().map_err(|_| Error::PartsLength)?;
    let eigenvalues: [f32; K] = parts
        .eigenvalues
        .try_into()
        .map_err(|_| Error::PartsLength)?;
    model.set_offsets(b, parts.s)?;
    model.set_eigenvalues(eigenvalues)?;
    model.set_threshold(parts.threshold)?;
    Ok(model)
}

/// Per-component scales: the largest |expected| of each coordinate, and of the score.
fn scales() -> ([f32; K], f32) {
    let mut y_scale = [0.0f32; K];
    let mut e_scale = 0.0f32;
    for i in 0..N_TEST {
        for (s, y) in y_scale.iter_mut().zip(expected_y(i)) {
            *s = s.max(y.abs());
        }
        e_scale = e_scale.max(expected_e(i).abs());
    }
    (y_scale, e_scale)
}

/// Projects and scores every test vector through `model`; returns the number of
/// mismatches and the largest deviation relative to the scale. Prints every
/// vector when `verbose`, and every mismatch or error always.
fn check(name: &str, model: &ModelRef<'_>, verbose: bool) -> (usize, f32) {
    let (y_scale, e_scale) = scales();
    let mut failures = 0;
    let mut worst = 0.0f32;
    // Relative deviation, or infinity when it exceeds the tolerance in a way
    // the comparison cannot express (NaN).
    let mut compare = |got: f32, want: f32, scale: f32| -> bool {
        let dev = (got - want).abs();
        let ok = dev <= REL_TOL * scale;
        let rel = if scale > 0.0 { dev / scale } else { dev };
        worst = if rel.is_nan() {
            f32::INFINITY
        } else {
            worst.max(rel)
        };
        ok
    };
    for i in 0..N_TEST {
        let x = test_vector(i);
        let want_y = expected_y(i);
        let want_e = expected_e(i);
        let mut y = [0.0f32; K];
        let result = model
            .project(&x, &mut y)
            .and_then(|()| model.anomaly_score(&x));
        let e = match result {
            Ok(e) => e,
            Err(err) => {
                hprintln!("{} x[{}]: error {:?}", name, i, err);
                failures += 1;
                continue;
            }
        };
        let mut ok = true;
        for l in 0..K {
            ok &= compare(y[l], want_y[l], y_scale[l]);
        }
        ok &= compare(e, want_e, e_scale);
        if !ok {
            failures += 1;
        }
        if verbose || !ok {
            hprintln!(
                "{} x[{:2}]: y = {:?} e = {:.6} {}",
                name,
                i,
                y,
                e,
                if ok { "ok" } else { "MISMATCH" }
            );
            if !ok {
                hprintln!("      expected y = {:?} e = {:.6}", want_y, want_e);
            }
        }
    }
    (failures, worst)
}

fn run() -> Result<bool, Error> {
    hprintln!(
        "kpca Rust firmware on mps2-an386: d={} m={} k={}, {} test vectors, blob {} bytes",
        D,
        M,
        K,
        N_TEST,
        MODEL_BLOB.0.len()
    );
    let blob = ModelRef::from_bytes(&MODEL_BLOB.0)?;
    hprintln!(
        "blob loaded in place: kernel {:?}, standardised {}, threshold {}",
        blob.kernel(),
        blob.is_standardized(),
        blob.threshold()
    );

    let copied = Model::from_model_ref(&blob)?;
    let copied_view = copied.as_model_ref()?;
    hprintln!("owned copy (from_model_ref): {} points", copied.len());

    let mut built = build_point_by_point(&copied_view.parts())?;
    let mut passed = true;
    match built.push_point([0.0; D], [0.0; K], 0.0) {
        Err(Error::Capacity) => {}
        other => {
            hprintln!(
                "push_point past capacity M={}: {:?}, expected Err(Capacity)",
                M,
                other
            );
            passed = false;
        }
    }
    let built_view = built.as_model_ref()?;
    hprintln!(
        "owned model built point by point (push_point): {} points, capacity {}",
        built.len(),
        M
    );

    let (y_scale, e_scale) = scales();
    hprintln!(
        "scales: y {:?}, e {:.6}; tolerance {:e} x scale",
        y_scale,
        e_scale,
        REL_TOL
    );
    let checks = [
        ("blob ", &blob, false),
        ("copy ", &copied_view, true),
        ("built", &built_view, false),
    ];
    for (name, view, verbose) in checks {
        let (failures, worst) = check(name, view, verbose);
        hprintln!(
            "{}: {}/{} vectors match, max deviation {:e} x scale",
            name,
            N_TEST - failures,
            N_TEST,
            worst
        );
        passed &= failures == 0;
    }
    Ok(passed)
}

#[entry]
fn main() -> ! {
    let status = match run() {
        Ok(true) => {
            hprintln!("kpca firmware: PASS");
            debug::EXIT_SUCCESS
        }
        Ok(false) => {
            hprintln!("kpca firmware: FAIL");
            debug::EXIT_FAILURE
        }
        Err(err) => {
            hprintln!("kpca firmware: FAIL: {:?} ({})", err, err.message());
            debug::EXIT_FAILURE
        }
    };
    debug::exit(status);
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(info: &PanicInfo<'_>) -> ! {
    hprintln!("kpca firmware: PANIC: {}", info);
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    hprintln!("kpca firmware: HARD FAULT at pc {:#010x}", frame.pc());
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    hprintln!("kpca firmware: unexpected exception {}", irqn);
    debug::exit(debug::EXIT_FAILURE);
}
