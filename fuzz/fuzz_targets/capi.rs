//! The C ABI (feature `capi`) on the same inputs as `load_and_project`: the blob
//! through `kpca_model_from_bytes` (NULL, misaligned or short choices for the
//! model pointer, the blob and its length), then every per-vector call, batch
//! call and getter with each pointer argument chosen valid, NULL or misaligned
//! and each length chosen exact or arbitrary (never past the real buffer: that
//! would break the caller's side of the contract), plus an unloaded model and
//! `kpca_status_str` of an arbitrary code.
//!
//! Oracle: with every argument valid the status and outputs are exactly the
//! Rust API's (bit for bit); with a bad argument the status is that argument's
//! code, a length code, or the Rust API's own error, never OK; outputs and the
//! model struct are never written on failure.
#![no_main]

use kpca_core::{Error, ModelRef};
use kpca_capi::*;
use kpca_fuzz::{split_input, Aligned, Values};
use libfuzzer_sys::fuzz_target;
use std::ffi::CStr;
use std::mem::size_of;
use std::ptr::{null, null_mut};

const FILL: u8 = 0xA5;
const LOADED_MAGIC: u32 = 0x4B50_4341;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Valid,
    Null,
    Misaligned,
}

fn kind(v: &mut Values<'_>) -> Kind {
    match v.byte() {
        0..=215 => Kind::Valid,
        216..=235 => Kind::Null,
        _ => Kind::Misaligned,
    }
}

/// A pointer argument: storage for `cap` elements of `size` bytes at an
/// 8-aligned address, or 1..3 bytes past it, or NULL.
struct Arg {
    store: Vec<u8>,
    start: usize,
    bytes: usize,
    kind: Kind,
}

impl Arg {
    fn new(kind: Kind, cap: usize, size: usize, shift: u8) -> Arg {
        let bytes = cap * size;
        let mut store = vec![FILL; bytes + 16];
        let addr = store.as_ptr() as usize;
        let mut start = (8 - addr % 8) % 8;
        if kind == Kind::Misaligned {
            start += 1 + usize::from(shift % 3);
        }
        store.truncate(start + bytes + 1);
        Arg {
            store,
            start,
            bytes,
            kind,
        }
    }
    fn input(kind: Kind, values: &[f32], shift: u8) -> Arg {
        let mut a = Arg::new(kind, values.len(), 4, shift);
        for (i, x) in values.iter().enumerate() {
            a.store[a.start + 4 * i..a.start + 4 * i + 4].copy_from_slice(&x.to_le_bytes());
        }
        a
    }
    fn ptr<T>(&self) -> *const T {
        match self.kind {
            Kind::Null => null(),
            _ => self.store[self.start..].as_ptr().cast(),
        }
    }
    fn mut_ptr<T>(&mut self) -> *mut T {
        match self.kind {
            Kind::Null => null_mut(),
            _ => self.store[self.start..].as_mut_ptr().cast(),
        }
    }
    fn region(&self) -> &[u8] {
        &self.store[self.start..self.start + self.bytes]
    }
    fn untouched(&self) -> bool {
        self.store.iter().all(|&b| b == FILL) || self.kind == Kind::Null
    }
    fn floats(&self) -> Vec<f32> {
        self.region()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }
    /// The status a bad pointer with this length must give (None if fine).
    fn bad(&self, len: usize) -> Option<kpca_status> {
        match self.kind {
            Kind::Null if len > 0 => Some(KPCA_ERR_NULL_POINTER),
            Kind::Misaligned => Some(KPCA_ERR_MISALIGNED_BUFFER),
            _ => None,
        }
    }
    /// Like `bad` for a pointer to one value (NULL is always bad).
    fn bad_one(&self) -> Option<kpca_status> {
        self.bad(1)
    }
}

fn code(r: Result<impl Sized, Error>) -> kpca_status {
    match r {
        Ok(_) => KPCA_OK,
        Err(e) => e.code(),
    }
}

/// Length: mostly the exact one, sometimes anything up to the capacity.
fn length(v: &mut Values<'_>, exact: usize, cap: usize) -> usize {
    match v.byte() {
        0..=191 => exact,
        b => usize::from(b) % (cap + 1),
    }
}

/// Checks a call's status against the oracle.
fn judge(
    what: &str,
    status: kpca_status,
    bad: &[Option<kpca_status>],
    lengths: &[kpca_status],
    rust: Option<kpca_status>,
) {
    let bad: Vec<kpca_status> = bad.iter().flatten().copied().collect();
    if bad.is_empty() {
        assert_eq!(
            Some(status),
            rust,
            "{what}: status {status} vs the Rust API"
        );
    } else {
        assert_ne!(status, KPCA_OK, "{what}: OK with a bad argument");
        assert!(
            bad.contains(&status) || lengths.contains(&status) || rust == Some(status),
            "{what}: status {status}, bad arguments {bad:?}, lengths {lengths:?}, Rust {rust:?}"
        );
    }
}

unsafe fn load(v: &mut Values<'_>, blob: &[u8]) -> Option<(kpca_model, Aligned, usize)> {
    let misalign = match v.byte() {
        0..=223 => 0,
        b => usize::from(b % 3) + 1,
    };
    let copy = Aligned::new(blob, misalign);
    let blob_kind = kind(v);
    let len = match v.byte() {
        0..=223 => blob.len(),
        b => usize::from(b) % (blob.len() + 1),
    };
    let model_kind = kind(v);
    let mut model_arg = Arg::new(model_kind, 1, size_of::<kpca_model>(), v.byte());
    let blob_ptr = if blob_kind == Kind::Null {
        null()
    } else {
        copy.bytes().as_ptr()
    };
    let st = kpca_model_from_bytes(model_arg.mut_ptr(), blob_ptr, len);
    let bytes = if blob_kind == Kind::Null {
        &[][..]
    } else {
        &copy.bytes()[..len]
    };
    let rust = (blob_kind != Kind::Null || len == 0).then(|| code(ModelRef::from_bytes(bytes)));
    let bad_blob = (blob_kind == Kind::Null && len > 0).then_some(KPCA_ERR_NULL_POINTER);
    let bad_model = match model_kind {
        Kind::Null => Some(KPCA_ERR_NULL_POINTER),
        // A kpca_model needs 8-byte alignment on 64-bit hosts (pointers).
        Kind::Misaligned => Some(KPCA_ERR_MISALIGNED_BUFFER),
        Kind::Valid => None,
    };
    judge(
        "kpca_model_from_bytes",
        st,
        &[bad_blob, bad_model],
        &[],
        rust,
    );
    if st != KPCA_OK {
        assert!(model_arg.untouched(), "model written on failure");
        return None;
    }
    let model: kpca_model = std::ptr::read(model_arg.ptr());
    let view = ModelRef::from_bytes(bytes).expect("loaded through C");
    assert_eq!(model.magic, LOADED_MAGIC);
    assert_eq!(model.dim as usize, view.dim());
    assert_eq!(model.n_points as usize, view.n_points());
    assert_eq!(model.n_components as usize, view.n_components());
    assert_eq!(model.threshold.to_bits(), view.threshold().to_bits());
    assert_eq!(model.kernel, view.kernel().id() as u32);
    assert_eq!(model.mean.is_null(), !view.is_standardized());
    // Keep the blob copy alive with the model (it points into it).
    Some((model, copy, len))
}

/// One input vector of the single-vector calls, as the fuzzer passes it.
struct Input<'x> {
    arg: Arg,
    len: usize,
    /// The valid floats (empty unless the pointer is valid).
    xs: &'x [f32],
    /// The status a bad pointer must give, if any.
    bad: Option<kpca_status>,
    /// Statuses the lengths may give.
    in_len: Vec<kpca_status>,
}

unsafe fn single_calls(v: &mut Values<'_>, model: &kpca_model, view: &ModelRef<'_>) {
    let d = view.dim();
    let x = v.values(d + 4);
    let arg = Arg::input(kind(v), &x, v.byte());
    let len = length(v, d, d + 4);
    let bad = arg.bad(len);
    let xs: &[f32] = if arg.kind == Kind::Valid {
        &x[..len]
    } else {
        &[]
    };
    let in_len = if len != d {
        vec![KPCA_ERR_INPUT_LENGTH]
    } else {
        vec![]
    };
    let input = Input {
        arg,
        len,
        xs,
        bad,
        in_len,
    };
    check_project(v, model, view, &input);
    check_score(v, model, view, &input);
    check_project_and_score(v, model, view, &input);
    check_is_anomaly(v, model, view, &input);
}

unsafe fn check_project(
    v: &mut Values<'_>,
    model: &kpca_model,
    view: &ModelRef<'_>,
    input: &Input<'_>,
) {
    let k = view.n_components();
    let (xa, x_len, xs, x_bad) = (&input.arg, input.len, input.xs, input.bad);
    let (x_ok, in_len) = (x_bad.is_none(), input.in_len.clone());
    let mut out = Arg::new(kind(v), k + 2, 4, v.byte());
    let out_len = length(v, k, k + 2);
    let st = kpca_project(model, xa.ptr(), x_len, out.mut_ptr(), out_len);
    let mut want = vec![0.0f32; out_len];
    let rust = x_ok.then(|| code(view.project(xs, &mut want)));
    let mut lengths = in_len.clone();
    if out_len < k {
        lengths.push(KPCA_ERR_OUTPUT_LENGTH);
    }
    judge(
        "kpca_project",
        st,
        &[x_bad, out.bad(out_len)],
        &lengths,
        rust,
    );
    if st == KPCA_OK {
        let got = out.floats();
        for i in 0..k {
            assert_eq!(
                got[i].to_bits(),
                want[i].to_bits(),
                "kpca_project coordinate {i}"
            );
        }
        assert!(
            out.region()[4 * k..].iter().all(|&b| b == FILL),
            "wrote past k"
        );
    } else {
        assert!(out.untouched(), "kpca_project wrote on failure");
    }
}

unsafe fn check_score(
    v: &mut Values<'_>,
    model: &kpca_model,
    view: &ModelRef<'_>,
    input: &Input<'_>,
) {
    let (xa, x_len, xs, x_bad) = (&input.arg, input.len, input.xs, input.bad);
    let (x_ok, in_len) = (x_bad.is_none(), input.in_len.clone());
    let mut score = Arg::new(kind(v), 1, 4, v.byte());
    let st = kpca_anomaly_score(model, xa.ptr(), x_len, score.mut_ptr());
    let rust_score = x_ok.then(|| view.anomaly_score(xs));
    judge(
        "kpca_anomaly_score",
        st,
        &[x_bad, score.bad_one()],
        &in_len,
        rust_score.map(code),
    );
    if st == KPCA_OK {
        assert_eq!(
            Some(Ok(score.floats()[0].to_bits())),
            rust_score.map(|r| r.map(f32::to_bits))
        );
    } else {
        assert!(score.untouched());
    }
}

unsafe fn check_project_and_score(
    v: &mut Values<'_>,
    model: &kpca_model,
    view: &ModelRef<'_>,
    input: &Input<'_>,
) {
    let k = view.n_components();
    let (xa, x_len, xs, x_bad) = (&input.arg, input.len, input.xs, input.bad);
    let (x_ok, in_len) = (x_bad.is_none(), input.in_len.clone());
    let mut out = Arg::new(kind(v), k + 2, 4, v.byte());
    let out_len = length(v, k, k + 2);
    let mut score = Arg::new(kind(v), 1, 4, v.byte());
    let st = kpca_project_and_score(
        model,
        xa.ptr(),
        x_len,
        out.mut_ptr(),
        out_len,
        score.mut_ptr(),
    );
    let mut want = vec![0.0f32; out_len];
    let rust = x_ok.then(|| view.project_and_score(xs, &mut want));
    let mut lengths = in_len.clone();
    if out_len < k {
        lengths.push(KPCA_ERR_OUTPUT_LENGTH);
    }
    judge(
        "kpca_project_and_score",
        st,
        &[x_bad, out.bad(out_len), score.bad_one()],
        &lengths,
        rust.map(code),
    );
    if st == KPCA_OK {
        let got = out.floats();
        for i in 0..k {
            assert_eq!(got[i].to_bits(), want[i].to_bits());
        }
        assert_eq!(
            Some(Ok(score.floats()[0].to_bits())),
            rust.map(|r| r.map(f32::to_bits))
        );
    } else {
        assert!(out.untouched() && score.untouched());
    }
}

unsafe fn check_is_anomaly(
    v: &mut Values<'_>,
    model: &kpca_model,
    view: &ModelRef<'_>,
    input: &Input<'_>,
) {
    let (xa, x_len, xs, x_bad) = (&input.arg, input.len, input.xs, input.bad);
    let (x_ok, in_len) = (x_bad.is_none(), input.in_len.clone());
    let mut flag = Arg::new(
        if kind(v) == Kind::Null {
            Kind::Null
        } else {
            Kind::Valid
        },
        1,
        1,
        0,
    );
    let st = kpca_is_anomaly(model, xa.ptr(), x_len, flag.mut_ptr());
    let rust = x_ok.then(|| view.is_anomaly(xs));
    let mut lengths = in_len;
    if view.threshold() <= 0.0 {
        lengths.push(KPCA_ERR_THRESHOLD_UNSET);
    }
    let flag_bad = (flag.kind == Kind::Null).then_some(KPCA_ERR_NULL_POINTER);
    judge(
        "kpca_is_anomaly",
        st,
        &[x_bad, flag_bad],
        &lengths,
        rust.map(code),
    );
    if st == KPCA_OK {
        assert_eq!(Some(Ok(flag.region()[0] == 1)), rust);
        assert!(flag.region()[0] <= 1);
    } else {
        assert!(flag.untouched());
    }
}

unsafe fn batch_calls(v: &mut Values<'_>, model: &kpca_model, view: &ModelRef<'_>) {
    let (d, k) = (view.dim(), view.n_components());
    let rows = usize::from(v.byte() % 5);
    let cap = rows * d + 3;
    let xs = v.values(cap);
    let xa = Arg::input(kind(v), &xs, v.byte());
    let xs_len = length(v, rows * d, cap);
    let x_bad = xa.bad(xs_len);
    let xs_slice: &[f32] = if xa.kind == Kind::Valid {
        &xs[..xs_len]
    } else {
        &[]
    };
    let n = xs_len / d;
    let mut lengths = vec![];
    if xs_len % d != 0 {
        lengths.push(KPCA_ERR_BATCH_LENGTH);
    }

    let out_cap = n * k + 2;
    let mut out = Arg::new(kind(v), out_cap, 4, v.byte());
    let out_len = length(v, n * k, out_cap);
    let st = kpca_project_batch(model, xa.ptr(), xs_len, out.mut_ptr(), out_len);
    let mut want = vec![f32::from_bits(0xA5A5_A5A5); out_len];
    let rust = (x_bad.is_none()).then(|| code(view.project_batch(xs_slice, &mut want)));
    let mut l = lengths.clone();
    if out_len < n * k {
        l.push(KPCA_ERR_OUTPUT_LENGTH);
    }
    judge(
        "kpca_project_batch",
        st,
        &[x_bad, out.bad(out_len)],
        &l,
        rust,
    );
    if x_bad.is_none() && out.bad(out_len).is_none() {
        // Same status, same bytes written (rows before a failing row included).
        let got = out.floats();
        for i in 0..out_len {
            assert_eq!(got[i].to_bits(), want[i].to_bits(), "batch element {i}");
        }
    } else {
        assert!(out.untouched());
    }

    let s_cap = n + 2;
    let mut scores = Arg::new(kind(v), s_cap, 4, v.byte());
    let s_len = length(v, n, s_cap);
    let st = kpca_anomaly_score_batch(model, xa.ptr(), xs_len, scores.mut_ptr(), s_len);
    let mut want = vec![f32::from_bits(0xA5A5_A5A5); s_len];
    let rust = (x_bad.is_none()).then(|| code(view.anomaly_score_batch(xs_slice, &mut want)));
    let mut l = lengths;
    if s_len < n {
        l.push(KPCA_ERR_OUTPUT_LENGTH);
    }
    judge(
        "kpca_anomaly_score_batch",
        st,
        &[x_bad, scores.bad(s_len)],
        &l,
        rust,
    );
    if x_bad.is_none() && scores.bad(s_len).is_none() {
        let got = scores.floats();
        for i in 0..s_len {
            assert_eq!(got[i].to_bits(), want[i].to_bits(), "batch score {i}");
        }
    } else {
        assert!(scores.untouched());
    }
}

unsafe fn getters(v: &mut Values<'_>, model: *const kpca_model, view: Option<&ModelRef<'_>>) {
    let expect_unloaded = view.is_none();
    let mut a = Arg::new(kind(v), 1, 8, v.byte());
    let st = kpca_model_dim(model, a.mut_ptr());
    let check = |st: kpca_status, a: &Arg, value: u64, what: &str| {
        if model.is_null() {
            assert_eq!(st, KPCA_ERR_NULL_POINTER, "{what}");
        } else if expect_unloaded {
            assert!(
                st == KPCA_ERR_MODEL_NOT_LOADED || a.bad_one() == Some(st),
                "{what}: {st}"
            );
        } else {
            judge(what, st, &[a.bad_one()], &[], Some(KPCA_OK));
            if st == KPCA_OK {
                let r = a.region();
                let got = u64::from_le_bytes(r[..8].try_into().expect("8 bytes"));
                assert_eq!(got, value, "{what}");
            }
        }
        if st != KPCA_OK {
            assert!(a.untouched(), "{what} wrote on failure");
        }
    };
    let (d, m, k) = view.map_or((0, 0, 0), |w| (w.dim(), w.n_points(), w.n_components()));
    check(st, &a, d as u64, "kpca_model_dim");
    let mut a = Arg::new(kind(v), 1, 8, v.byte());
    let st = kpca_model_n_points(model, a.mut_ptr());
    check(st, &a, m as u64, "kpca_model_n_points");
    let mut a = Arg::new(kind(v), 1, 8, v.byte());
    let st = kpca_model_n_components(model, a.mut_ptr());
    check(st, &a, k as u64, "kpca_model_n_components");
    // 4-byte outputs: compare the low four bytes.
    let mut a = Arg::new(kind(v), 2, 4, v.byte());
    let st = kpca_model_threshold(model, a.mut_ptr());
    let thr = view.map_or(0, |w| w.threshold().to_bits());
    check_4(
        st,
        &a,
        thr,
        model.is_null(),
        expect_unloaded,
        "kpca_model_threshold",
    );
    let mut a = Arg::new(kind(v), 2, 4, v.byte());
    let st = kpca_model_kernel(model, a.mut_ptr());
    let id = view.map_or(0, |w| w.kernel().id() as u32);
    check_4(
        st,
        &a,
        id,
        model.is_null(),
        expect_unloaded,
        "kpca_model_kernel",
    );
}

fn check_4(st: kpca_status, a: &Arg, value: u32, null: bool, unloaded: bool, what: &str) {
    if null {
        assert_eq!(st, KPCA_ERR_NULL_POINTER, "{what}");
    } else if unloaded {
        assert!(
            st == KPCA_ERR_MODEL_NOT_LOADED || a.bad_one() == Some(st),
            "{what}: {st}"
        );
    } else {
        judge(what, st, &[a.bad_one()], &[], Some(KPCA_OK));
        if st == KPCA_OK {
            let r = a.region();
            assert_eq!(
                u32::from_le_bytes(r[..4].try_into().expect("4")),
                value,
                "{what}"
            );
            assert!(r[4..].iter().all(|&b| b == FILL));
        }
    }
    if st != KPCA_OK {
        assert!(a.untouched(), "{what} wrote on failure");
    }
}

/// Every call on a model struct that was never loaded (arbitrary contents, but
/// not the loaded marker) or a NULL model: MODEL_NOT_LOADED / NULL_POINTER.
unsafe fn unloaded(v: &mut Values<'_>, null_model: bool) {
    let mut raw = [0u8; size_of::<kpca_model>()];
    for b in raw.iter_mut().take(24) {
        *b = v.byte();
    }
    let mut m: kpca_model = std::mem::transmute(raw);
    if m.magic == LOADED_MAGIC {
        m.magic = 0;
    }
    let model: *const kpca_model = if null_model { null() } else { &m };
    let want = if null_model {
        KPCA_ERR_NULL_POINTER
    } else {
        KPCA_ERR_MODEL_NOT_LOADED
    };
    let x = [0.5f32; 8];
    let mut out = [7.0f32; 32];
    let mut s = 7.0f32;
    let mut f = 7u8;
    assert_eq!(
        kpca_project(model, x.as_ptr(), 8, out.as_mut_ptr(), 32),
        want
    );
    assert_eq!(kpca_anomaly_score(model, x.as_ptr(), 8, &mut s), want);
    assert_eq!(
        kpca_project_and_score(model, x.as_ptr(), 8, out.as_mut_ptr(), 32, &mut s),
        want
    );
    assert_eq!(kpca_is_anomaly(model, x.as_ptr(), 8, &mut f), want);
    assert_eq!(
        kpca_project_batch(model, x.as_ptr(), 8, out.as_mut_ptr(), 32),
        want
    );
    assert_eq!(
        kpca_anomaly_score_batch(model, x.as_ptr(), 8, out.as_mut_ptr(), 32),
        want
    );
    assert!(out.iter().all(|&o| o == 7.0) && s == 7.0 && f == 7);
    getters(v, model, None);
}

fuzz_target!(|data: &[u8]| {
    let (blob, rest) = split_input(data);
    let mut v = Values::new(rest);
    // SAFETY (all calls below): every pointer is NULL or points to live storage
    // of at least the length passed with it; the model is used only while the
    // blob copy it points into is alive.
    unsafe {
        let code = i32::from_le_bytes([v.byte(), v.byte(), v.byte(), v.byte()]);
        let text = CStr::from_ptr(kpca_status_str(code))
            .to_str()
            .expect("ASCII");
        match Error::from_code(code) {
            Some(e) => assert_eq!(text, e.message()),
            None if code == 0 => assert_eq!(text, "ok"),
            None => assert_eq!(text, "unknown status"),
        }
        let what = v.byte();
        if what >= 240 {
            unloaded(&mut v, what >= 250);
            return;
        }
        let Some((model, copy, len)) = load(&mut v, blob) else {
            return;
        };
        let view = ModelRef::from_bytes(&copy.bytes()[..len]).expect("loads");
        for _ in 0..1 + v.byte() % 3 {
            single_calls(&mut v, &model, &view);
        }
        batch_calls(&mut v, &model, &view);
        getters(&mut v, &model, Some(&view));
        drop(copy);
    }
});
