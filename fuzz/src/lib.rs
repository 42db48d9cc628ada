//! Helpers shared by the fuzz targets: splitting an input into a blob and the
//! bytes that feed the projections, decoding hostile f32 values, aligned
//! copies, and the oracle that every projection of a loaded model must satisfy.
//!
//! Input layout of `load_and_project` and `capi` (also the seed corpus format):
//! byte 0 controls where the blob ends (see [`split_input`]), then the blob,
//! then the bytes the input vectors and call options are decoded from.

use kpca_blob::AlignedBytes;
use kpca_core::{Error, Header, ModelRef, OwnedModel};

pub use kpca_core::format::HEADER_LEN;

/// Splits a fuzz input into (blob, rest). The low two bits of byte 0 choose where
/// the blob ends: 0 at its own total-length field (the whole input when it has
/// no readable header), 1 at the end of the input
/// (rest empty), 2 that many bytes (byte 0 >> 2) before the total length, 3 that
/// many after it. Clamped to the input.
pub fn split_input(data: &[u8]) -> (&[u8], &[u8]) {
    let Some((&ctrl, body)) = data.split_first() else {
        return (&[], &[]);
    };
    let total = Header::read(body).map_or(body.len(), |h| h.total_len as usize);
    let delta = usize::from(ctrl >> 2);
    let cut = match ctrl & 3 {
        0 => total,
        1 => body.len(),
        2 => total.saturating_sub(delta),
        _ => total.saturating_add(delta),
    }
    .min(body.len());
    body.split_at(cut)
}

/// The little-endian u32 at `at`, if the bytes are there.
pub fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Values that are hard on float code: NaN, infinities, the extremes, denormals,
/// signed zeros and values whose squares overflow.
pub const SPECIAL: [f32; 16] = [
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    1e30,
    -1e30,
    f32::MAX,
    f32::MIN,
    f32::MIN_POSITIVE,
    1e-45, // the smallest denormal
    -1e-40,
    0.0,
    -0.0,
    1e19,
    2e19, // its square overflows f32
    1e-30,
    f32::EPSILON,
];

/// A stream of bytes decoded into option bytes and hostile f32 values; reads
/// past the end give 0.
pub struct Values<'a> {
    bytes: &'a [u8],
}

impl<'a> Values<'a> {
    /// A stream over `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Values { bytes }
    }

    /// Whether every byte was used.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The next byte (0 past the end).
    pub fn byte(&mut self) -> u8 {
        match self.bytes.split_first() {
            Some((&b, rest)) => {
                self.bytes = rest;
                b
            }
            None => 0,
        }
    }

    /// The next little-endian u16 (0-padded).
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    /// The next little-endian u32 (0-padded).
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    /// The next value: a selector byte below 16 picks [`SPECIAL`], 16..128 a
    /// moderate value in [-3.5, 3.4] (near the stored points of a typical
    /// model), 128 and above the raw bits of the next four bytes (any f32: NaN
    /// payloads, denormals, huge values).
    pub fn value(&mut self) -> f32 {
        let sel = self.byte();
        match sel {
            0..=15 => SPECIAL[usize::from(sel)],
            16..=127 => (f32::from(sel) - 72.0) / 16.0,
            _ => f32::from_bits(self.u32()),
        }
    }

    /// `n` values.
    pub fn values(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.value()).collect()
    }
}

/// A copy of some bytes at a chosen distance (0..3) past a 4-byte boundary,
/// in the workspace's aligned storage ([`AlignedBytes`]).
pub struct Aligned {
    buf: AlignedBytes,
    start: usize,
}

impl Aligned {
    /// `bytes` copied to an address that is `misalign % 4` bytes past a 4-byte boundary.
    pub fn new(bytes: &[u8], misalign: usize) -> Aligned {
        let start = misalign % 4;
        let mut buf = AlignedBytes::zeroed(start + bytes.len());
        buf[start..].copy_from_slice(bytes);
        Aligned { buf, start }
    }

    /// The copy.
    pub fn bytes(&self) -> &[u8] {
        &self.buf[self.start..]
    }
}

/// A float whose bits mark "never written" in output buffers.
pub const SENTINEL_BITS: u32 = 0x4EAD_BEEF;

fn sentinel(n: usize) -> Vec<f32> {
    vec![f32::from_bits(SENTINEL_BITS); n]
}

fn untouched(buf: &[f32]) -> bool {
    buf.iter().all(|v| v.to_bits() == SENTINEL_BITS)
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The error a finite-or-not input must give when the call fails after the
/// length checks: non-finite input is reported as such, otherwise only the
/// result can be at fault.
fn expected_failure(x: &[f32]) -> Error {
    if x.iter().all(|v| v.is_finite()) {
        Error::NonFiniteResult
    } else {
        Error::NonFiniteInput
    }
}

/// One input vector (length d) through every single-vector call, checking:
/// Ok results are finite and write exactly k values; failures are
/// `NonFiniteInput` for non-finite input and otherwise `NonFiniteResult`, and
/// write nothing; the fused and separate calls agree bit for bit; `is_anomaly`
/// is the score against the threshold. Returns the coordinates and score.
pub fn check_single(
    view: &ModelRef<'_>,
    x: &[f32],
) -> (Result<Vec<f32>, Error>, Result<f32, Error>) {
    let k = view.n_components();
    let mut out = sentinel(k + 1);
    let projected = view.project(x, &mut out);
    match projected {
        Ok(()) => {
            assert!(
                x.iter().all(|v| v.is_finite()),
                "Ok for non-finite input {x:?}"
            );
            assert!(
                out[..k].iter().all(|v| v.is_finite()),
                "non-finite output {out:?} for {x:?}"
            );
            assert_eq!(out[k].to_bits(), SENTINEL_BITS, "wrote past k");
        }
        Err(e) => {
            assert_eq!(e, expected_failure(x), "project({x:?})");
            assert!(untouched(&out), "output written on error {e:?}");
        }
    }
    let score = view.anomaly_score(x);
    match score {
        Ok(s) => {
            assert!(s.is_finite(), "score {s} for {x:?}");
            assert!(
                projected.is_ok(),
                "score Ok but projection failed for {x:?}"
            );
        }
        Err(e) => assert_eq!(e, expected_failure(x), "anomaly_score({x:?})"),
    }
    let mut both = sentinel(k);
    match view.project_and_score(x, &mut both) {
        Ok(s) => {
            assert_eq!(
                Ok(s.to_bits()),
                score.map(f32::to_bits),
                "fused score differs"
            );
            assert_eq!(bits(&both), bits(&out[..k]), "fused coordinates differ");
        }
        Err(e) => {
            assert_eq!(Err(e), score, "fused call fails differently");
            assert!(untouched(&both), "fused output written on error");
        }
    }
    let flag = view.is_anomaly(x);
    if view.threshold() <= 0.0 {
        assert_eq!(flag, Err(Error::ThresholdUnset));
    } else {
        assert_eq!(flag, score.map(|s| s > view.threshold()));
    }
    // A short output buffer is refused before anything else, whatever the input.
    if k > 0 {
        let mut short = sentinel(k - 1);
        assert_eq!(view.project(x, &mut short), Err(Error::OutputLength));
        assert!(untouched(&short));
    }
    let y = projected.map(|()| out[..k].to_vec());
    check_kernel_entry(view, x, &y, score);
    (y, score)
}

/// The single-kernel entry points ([`kpca_core::single`]) give the generic calls'
/// results bit for bit for the model's kernel and `KernelMismatch` for any
/// other kernel.
pub fn check_kernel_entry(
    view: &ModelRef<'_>,
    x: &[f32],
    y: &Result<Vec<f32>, Error>,
    score: Result<f32, Error>,
) {
    use kpca_core::single::{Cosine, KernelKind, Laplacian, Linear, Polynomial, Rbf, Sigmoid};
    fn one<K: KernelKind>(
        view: &ModelRef<'_>,
        x: &[f32],
        y: &Result<Vec<f32>, Error>,
        score: Result<f32, Error>,
    ) {
        let Ok(single) = view.for_kernel::<K>() else {
            assert_ne!(
                view.kernel().id(),
                K::ID,
                "for_kernel refused its own kernel"
            );
            return;
        };
        assert_eq!(view.kernel().id(), K::ID, "for_kernel took another kernel");
        let k = view.n_components();
        let mut out = sentinel(k);
        let got = single.project(x, &mut out).map(|()| bits(&out));
        assert_eq!(
            got,
            y.as_ref().map(|v| bits(v)).map_err(|e| *e),
            "single-kernel project"
        );
        let s = single.anomaly_score(x).map(f32::to_bits);
        assert_eq!(s, score.map(f32::to_bits), "single-kernel score");
    }
    one::<Linear>(view, x, y, score);
    one::<Polynomial>(view, x, y, score);
    one::<Rbf>(view, x, y, score);
    one::<Laplacian>(view, x, y, score);
    one::<Sigmoid>(view, x, y, score);
    one::<Cosine>(view, x, y, score);
}

/// A batch (any length) through both batch calls, checking the length and
/// input errors write nothing, and that each written row is the single call's
/// result bit for bit (rows before a `NonFiniteResult` row are written).
pub fn check_batch(view: &ModelRef<'_>, xs: &[f32]) {
    let (d, k) = (view.dim(), view.n_components());
    let rows = xs.len() / d;
    let whole = xs.len() % d == 0;
    let finite = xs.iter().all(|v| v.is_finite());
    let mut out = sentinel(rows * k);
    let mut scores = sentinel(rows);
    let rp = view.project_batch(xs, &mut out);
    let rs = view.anomaly_score_batch(xs, &mut scores);
    if !whole {
        assert_eq!(rp, Err(Error::BatchLength));
        assert_eq!(rs, Err(Error::BatchLength));
        assert!(untouched(&out) && untouched(&scores));
        return;
    }
    if !finite {
        assert_eq!(rp, Err(Error::NonFiniteInput));
        assert_eq!(rs, Err(Error::NonFiniteInput));
        assert!(untouched(&out) && untouched(&scores));
        return;
    }
    let singles: Vec<_> = xs.chunks_exact(d).map(|x| check_single(view, x)).collect();
    let first_bad_y = singles.iter().position(|(y, _)| y.is_err());
    let first_bad_s = singles.iter().position(|(_, s)| s.is_err());
    match first_bad_y {
        None => assert_eq!(rp, Ok(rows)),
        Some(_) => assert_eq!(rp, Err(Error::NonFiniteResult)),
    }
    match first_bad_s {
        None => assert_eq!(rs, Ok(rows)),
        Some(_) => assert_eq!(rs, Err(Error::NonFiniteResult)),
    }
    let written_y = first_bad_y.unwrap_or(rows);
    for (i, (y, _)) in singles.iter().enumerate() {
        let row = &out[i * k..(i + 1) * k];
        if i < written_y {
            assert_eq!(
                bits(row),
                bits(y.as_ref().expect("ok row")),
                "batch row {i}"
            );
        } else {
            assert!(
                untouched(row),
                "batch row {i} written after the failing row"
            );
        }
    }
    let written_s = first_bad_s.unwrap_or(rows);
    for (i, (_, s)) in singles.iter().enumerate() {
        if i < written_s {
            assert_eq!(
                Ok(scores[i].to_bits()),
                s.map(f32::to_bits),
                "batch score {i}"
            );
        } else {
            assert_eq!(
                scores[i].to_bits(),
                SENTINEL_BITS,
                "score {i} written after the failing row"
            );
        }
    }
}

/// Input vectors decoded from `vals` through every call of a loaded model:
/// one to three vectors, one of the wrong length, and a batch.
pub fn exercise(view: &ModelRef<'_>, vals: &mut Values<'_>) {
    let (d, k) = (view.dim(), view.n_components());
    let n = 1 + usize::from(vals.byte() % 3);
    for _ in 0..n {
        let x = vals.values(d);
        let _ = check_single(view, &x);
    }
    let wrong = usize::from(vals.byte()) % (d + 3);
    if wrong != d {
        let x = vals.values(wrong);
        let mut out = sentinel(k);
        assert_eq!(view.project(&x, &mut out), Err(Error::InputLength));
        assert_eq!(view.anomaly_score(&x), Err(Error::InputLength));
        assert!(untouched(&out));
    }
    let len = usize::from(vals.byte() % 6) * d + usize::from(vals.byte() % 4 == 0);
    let xs = vals.values(len.min(64 * d));
    check_batch(view, &xs);
    let x = vals.values(d);
    check_sections(view, &x);
}

/// `reconstruct` and `predict` on `x`: without the section, its own error;
/// with it, finite outputs of exactly d (t) values, or the projection's error
/// (or a non-finite result) with the output untouched (for d <= 64, where the
/// sums stay on the stack).
pub fn check_sections(view: &ModelRef<'_>, x: &[f32]) {
    let (d, t) = (view.dim(), view.n_targets());
    let projected = view.project(x, &mut sentinel(view.n_components()));
    let mut out = sentinel(d + 1);
    match view.reconstruct(x, &mut out) {
        Ok(()) => {
            assert!(view.n_preimage_rows() > 0 && projected.is_ok());
            assert!(out[..d].iter().all(|v| v.is_finite()), "pre-image {out:?}");
            assert_eq!(out[d].to_bits(), SENTINEL_BITS, "wrote past d");
        }
        Err(Error::NoPreImage) => assert_eq!(view.n_preimage_rows(), 0),
        Err(e) => {
            assert!(
                projected == Err(e) || e == Error::NonFiniteResult,
                "reconstruct: {e:?}"
            );
            assert!(
                d > 64 || untouched(&out),
                "pre-image written on error {e:?}"
            );
        }
    }
    let mut out = sentinel(t + 1);
    match view.predict(x, &mut out) {
        Ok(()) => {
            assert!(t > 0 && projected.is_ok());
            assert!(out[..t].iter().all(|v| v.is_finite()), "prediction {out:?}");
            assert_eq!(out[t].to_bits(), SENTINEL_BITS, "wrote past t");
        }
        Err(Error::NoRegression) => assert_eq!(t, 0),
        Err(e) => {
            assert!(
                projected == Err(e) || e == Error::NonFiniteResult,
                "predict: {e:?}"
            );
            assert!(untouched(&out), "prediction written on error {e:?}");
        }
    }
}

/// Reserialising a loaded model gives back the blob, except the kernel
/// parameters the kernel does not use (the reader ignores them, the writer
/// writes 0), the version (an older blob is rewritten in the current
/// format, the same bytes otherwise) and so the CRC; and the rewritten blob
/// loads to the same model.
pub fn check_rewrite(view: &ModelRef<'_>, blob: &[u8]) {
    let len = view.blob_len();
    assert_eq!(len, blob.len(), "blob_len of a loaded model");
    let mut again = vec![0u8; len + 4];
    assert_eq!(
        view.write_to(&mut again[..len - 1]),
        Err(Error::BufferTooSmall)
    );
    assert_eq!(view.write_to(&mut again), Ok(len));
    assert_eq!(&again[len..], &[0u8; 4], "wrote past the blob");
    again.truncate(len);
    let version = u16::from_le_bytes([again[4], again[5]]);
    assert_eq!(version, kpca_core::format::FORMAT_VERSION, "written version");
    assert_eq!(again[..4], blob[..4], "magic");
    assert_eq!(again[6..28], blob[6..28], "header");
    assert_eq!(again[40..len - 4], blob[40..len - 4], "sections");
    let copy = Aligned::new(&again, 0);
    let reloaded = ModelRef::from_bytes(copy.bytes()).expect("a rewritten model loads");
    let mut third = vec![0u8; len];
    reloaded.write_to(&mut third).expect("write");
    assert_eq!(third, again, "the writer is a fixed point");
}

macro_rules! owned_shapes {
    ($view:expr, $x:expr, $(($d:literal, $k:literal)),*) => {
        match ($view.dim(), $view.n_components()) {
            $(($d, $k) => check_owned::<$d, 24, $k>($view, $x),)*
            _ => {}
        }
    };
}

/// Copies the model into an [`OwnedModel`] when its d and k are among a few
/// fixed shapes: it must copy (or report `Capacity` past 24 points), validate,
/// and project exactly like the loaded model when the stored norms are the
/// recomputed ones.
pub fn check_owned_copy(view: &ModelRef<'_>, x: &[f32]) {
    owned_shapes!(
        view,
        x,
        (1, 1),
        (1, 2),
        (2, 1),
        (2, 2),
        (3, 1),
        (3, 2),
        (3, 3),
        (4, 2),
        (4, 4),
        (6, 3),
        (8, 2),
        (8, 4)
    );
}

fn check_owned<const D: usize, const M: usize, const K: usize>(view: &ModelRef<'_>, x: &[f32]) {
    let owned = OwnedModel::<D, M, K>::from_model_ref(view);
    if view.n_points() > M {
        assert_eq!(owned.err(), Some(Error::Capacity));
        return;
    }
    let owned = owned.expect("a loaded model fits its own shape");
    assert_eq!(owned.len(), view.n_points());
    let ov = owned.as_model_ref().expect("a copied model validates");
    assert_eq!(ov.kernel(), view.kernel());
    assert_eq!(ov.threshold().to_bits(), view.threshold().to_bits());
    let parts = view.parts();
    let same_norms = parts
        .points
        .chunks_exact(D)
        .zip(parts.point_sq_norms)
        .all(|(z, n)| z.iter().map(|v| v * v).sum::<f32>().to_bits() == n.to_bits());
    if same_norms && x.len() == D {
        let mut a = sentinel(K);
        let mut b = sentinel(K);
        let ra = view.project_and_score(x, &mut a);
        let rb = ov.project_and_score(x, &mut b);
        assert_eq!(ra.map(f32::to_bits), rb.map(f32::to_bits));
        assert_eq!(bits(&a), bits(&b));
    }
}
