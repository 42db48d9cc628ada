//! The binary model format (version 4; versions 1 to 3 still load): reading
//! in place and writing.
//!
//! Layout, all little-endian, documented in `docs/MODEL_FORMAT.md`:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `KPCA` |
//! | 4 | 2 | format version (4) |
//! | 6 | 2 | byte-order mark 0xFEFF |
//! | 8 | 2 | header length (64) |
//! | 10 | 2 | kernel id ([`crate::KernelId`]) |
//! | 12 | 4 | flags (bit 0: standardised input; bit 1, version 3: the points are a folded linear map; bit 2, version 4: optional sections follow; other bits 0) |
//! | 16 | 4 | d, input dimension |
//! | 20 | 4 | m, stored points |
//! | 24 | 4 | k, components |
//! | 28 | 4 | degree (u32) |
//! | 32 | 4 | gamma (f32) |
//! | 36 | 4 | coef0 (f32) |
//! | 40 | 4 | anomaly threshold (f32, 0 = unset) |
//! | 44 | 4 | s, centring constant of the score (f32) |
//! | 48 | 4 | total length of the blob in bytes, CRC included |
//! | 52 | 4 | n, training rows of the fit (u32; version 1: reserved, 0) |
//! | 56 | 4 | total variance of the fit, in eigenvalue units (f32; version 1: reserved, 0) |
//! | 60 | 4 | fit method: 0 not recorded, 1 full, 2 Nyström ([`crate::FitMethod`]; version 1: reserved, 0) |
//! | 64 | .. | f32 sections: [mean d, 1/std d if flag 0], points m*d, ‖z‖² m, A m*k, b k, c m, eigenvalues k |
//! | .. | .. | if flag bit 2: optional sections, each a u32 tag, a u32 count and its f32s, tags strictly increasing ([`SECTION_PREIMAGE`], [`SECTION_REGRESSION`]) |
//! | end-4 | 4 | CRC-32 (IEEE) of every byte before it |
//!
//! Version 2 records the fit (offsets 52-63, checked by the rules of
//! [`crate::FitInfo`]) and stores the eigenvalues mu_l of the centred kernel
//! matrix for Nyström fits too (version 1 stored mu_l / n for those; see
//! [`crate::fit_info`]). Everything else is as in version 1. Version 3 adds
//! flag bit 1 ([`FLAG_LINEAR_MAP`]). Version 4 adds flag bit 2
//! ([`FLAG_SECTIONS`]) and the optional sections of [`crate::heads`]; a
//! version 4 blob without them is a version 3 blob with another version
//! number.

use crate::crc32::crc32;
use crate::error::Error;
use crate::fit_info::{record_is_valid, FitInfo};
use crate::heads::{check_preimage, check_regression, Heads, PreImageParts, RegressionParts};
use crate::kernel::check_params;
use crate::model::{
    check_consistency, check_dims, to_u32, to_usize, ModelRef, RawModel, Section, FRONT_END_NONE,
    LOADED_MAGIC, MAX_POINTS, MAX_TARGETS, PRECISION_F32,
};

/// The header's flag bits: those of the loaded model ([`RawModel::flags`]),
/// defined beside it.
pub use crate::model::{FLAG_LINEAR_MAP, FLAG_SECTIONS, FLAG_STANDARDIZED};

/// The four magic bytes at the start of every blob.
pub const MAGIC: [u8; 4] = *b"KPCA";
/// The format version this library writes.
pub const FORMAT_VERSION: u16 = 4;
/// The oldest format version this library reads.
pub const OLDEST_FORMAT_VERSION: u16 = 1;
/// The byte-order mark, stored little-endian.
pub const BYTE_ORDER_MARK: u16 = 0xFEFF;
/// Length of the fixed header in bytes.
pub const HEADER_LEN: usize = 64;
/// Required alignment of the blob's first byte, for reading floats in place.
pub const BLOB_ALIGN: usize = 4;
/// Tag of the pre-image section: count n, then n*k training scores and
/// (n+1)*d dual coefficients, the last row the offset ([`crate::PreImageParts`]).
pub const SECTION_PREIMAGE: u32 = 1;
/// Tag of the regression section: count t, then k*t weights and t
/// intercepts ([`crate::RegressionParts`]).
pub const SECTION_REGRESSION: u32 = 2;

/// The flag bits a blob of format `version` may set.
fn known_flags(version: u16) -> u32 {
    match version {
        4.. => FLAG_STANDARDIZED | FLAG_LINEAR_MAP | FLAG_SECTIONS,
        3 => FLAG_STANDARDIZED | FLAG_LINEAR_MAP,
        _ => FLAG_STANDARDIZED,
    }
}

/// Bytes of the optional sections `heads` for a model with input dimension
/// `dim` and `k` components (0 without any), or `None` on overflow.
pub fn heads_len_for(heads: &Heads<'_>, dim: usize, k: usize) -> Option<usize> {
    let mut words = 0usize;
    if let Some(p) = heads.preimage {
        let n = (p.coef.len() / dim.max(1)).saturating_sub(1);
        words = words.checked_add(2 + n.checked_mul(k)?.checked_add(p.coef.len())?)?;
    }
    if let Some(r) = heads.regression {
        let t = r.intercept.len();
        words = words.checked_add(2 + t.checked_mul(k.checked_add(1)?)?)?;
    }
    words.checked_mul(4)
}

/// Reads the optional sections that follow the eigenvalues (`words`, as
/// f32s, the tags and counts read by their bits): [`Error::BadSection`] for
/// an empty table, an unknown, repeated or out-of-order tag or a count of
/// 0 or past its maximum; [`Error::LengthMismatch`] when the sections do not
/// fill the words exactly; then the checks of [`crate::ModelRef::with_heads`].
fn parse_heads(mut words: &[f32], d: usize, k: usize) -> Result<Heads<'_>, Error> {
    // Two locals rather than a `Heads` set field by field: zeroing the
    // whole struct first was a call of a memory-clearing routine the
    // size-first build then linked (174 B on a Cortex-M4F).
    let (mut preimage, mut regression) = (None, None);
    let mut last_tag = 0;
    if words.is_empty() {
        return Err(Error::BadSection);
    }
    while let [tag, count, rest @ ..] = words {
        let (tag, count) = (tag.to_bits(), to_usize(count.to_bits()));
        words = rest;
        if tag <= last_tag {
            return Err(Error::BadSection);
        }
        last_tag = tag;
        match tag {
            SECTION_PREIMAGE if (1..=MAX_POINTS).contains(&count) => {
                let p = PreImageParts {
                    scores: take(&mut words, count.saturating_mul(k))?,
                    coef: take(&mut words, count.saturating_add(1).saturating_mul(d))?,
                };
                check_preimage(&p, d, k)?;
                preimage = Some(p);
            }
            SECTION_REGRESSION if (1..=MAX_TARGETS).contains(&count) => {
                let r = RegressionParts {
                    weights: take(&mut words, count.saturating_mul(k))?,
                    intercept: take(&mut words, count)?,
                };
                check_regression(&r, k)?;
                regression = Some(r);
            }
            _ => return Err(Error::BadSection),
        }
    }
    if !words.is_empty() {
        return Err(Error::LengthMismatch);
    }
    Ok(Heads {
        preimage,
        regression,
    })
}

/// Length in bytes of the CRC-32 that ends every blob.
pub const CRC_LEN: usize = 4;

/// Blob length in bytes for the given dimensions, or `None` on overflow.
pub fn blob_len_for(
    dim: usize,
    n_points: usize,
    n_components: usize,
    standardized: bool,
) -> Option<usize> {
    let std_floats = if standardized { dim.checked_mul(2)? } else { 0 };
    let floats = std_floats
        .checked_add(n_points.checked_mul(dim)?)?
        .checked_add(n_points)?
        .checked_add(n_points.checked_mul(n_components)?)?
        .checked_add(n_components)?
        .checked_add(n_points)?
        .checked_add(n_components)?;
    floats.checked_mul(4)?.checked_add(HEADER_LEN + CRC_LEN)
}

/// Reinterprets a 4-byte-aligned byte slice whose length is a multiple of 4 as f32s.
#[allow(unsafe_code)]
fn as_f32s(bytes: &[u8]) -> Result<&[f32], Error> {
    if bytes.as_ptr().align_offset(core::mem::align_of::<f32>()) != 0 {
        return Err(Error::Misaligned);
    }
    if !bytes.len().is_multiple_of(4) {
        return Err(Error::LengthMismatch);
    }
    // SAFETY: the pointer is aligned for f32 (checked above), the length in f32s
    // covers exactly the bytes of `bytes` (a multiple of 4, checked above), every
    // bit pattern is a valid f32, and the result borrows `bytes` so it cannot
    // outlive it or alias a mutable borrow.
    Ok(unsafe { core::slice::from_raw_parts(bytes.as_ptr().cast::<f32>(), bytes.len() / 4) })
}

/// Splits the first `n` floats off `rest`.
fn take<'a>(rest: &mut &'a [f32], n: usize) -> Result<&'a [f32], Error> {
    let (head, tail) = rest.split_at_checked(n).ok_or(Error::LengthMismatch)?;
    *rest = tail;
    Ok(head)
}

/// The fixed header of a blob (the first [`HEADER_LEN`] bytes), field by field.
/// [`Header::parse`] reads and checks it, [`Header::write_to`] writes it; the
/// loader, the writer, `kpca inspect` and the fuzz targets all go through it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Header {
    /// Format version (offset 4).
    pub version: u16,
    /// Byte-order mark (offset 6), [`BYTE_ORDER_MARK`] when valid.
    pub byte_order_mark: u16,
    /// Header length in bytes (offset 8), [`HEADER_LEN`] when valid.
    pub header_len: u16,
    /// Kernel id (offset 10).
    pub kernel: u16,
    /// Flags (offset 12): [`FLAG_STANDARDIZED`], [`FLAG_LINEAR_MAP`], other bits 0.
    pub flags: u32,
    /// Input dimension d (offset 16).
    pub dim: u32,
    /// Stored points m (offset 20).
    pub n_points: u32,
    /// Components k (offset 24).
    pub n_components: u32,
    /// Polynomial degree (offset 28).
    pub degree: u32,
    /// Kernel gamma (offset 32).
    pub gamma: f32,
    /// Kernel coef0 (offset 36).
    pub coef0: f32,
    /// Anomaly threshold, 0 when unset (offset 40).
    pub threshold: f32,
    /// Centring constant s of the score (offset 44).
    pub s: f32,
    /// Total blob length in bytes, CRC included (offset 48).
    pub total_len: u32,
    /// Training rows n of the fit (offset 52; 0 = not recorded, and always 0
    /// in version 1).
    pub n_train: u32,
    /// Total variance of the fit (offset 56; 0 = not recorded, and always 0
    /// in version 1).
    pub total_variance: f32,
    /// Fit method code (offset 60; [`crate::FitMethod`], 0 = not recorded,
    /// and always 0 in version 1).
    pub fit_method: u32,
}

impl Header {
    /// Reads the header fields of `bytes` without checking their values (for
    /// tools that describe a damaged blob); `None` when `bytes` is shorter than
    /// the header or does not start with [`MAGIC`].
    #[inline]
    pub fn read(bytes: &[u8]) -> Option<Header> {
        let head: &[u8; HEADER_LEN] = bytes.first_chunk()?;
        let mut w = [0u32; HEADER_LEN / 4];
        for (v, c) in w.iter_mut().zip(head.chunks_exact(4)) {
            *v = u32::from_le_bytes(c.try_into().unwrap_or([0; 4]));
        }
        if w[0] != u32::from_le_bytes(MAGIC) {
            return None;
        }
        let lo = |v: u32| (v & 0xFFFF) as u16;
        let hi = |v: u32| (v >> 16) as u16;
        Some(Header {
            version: lo(w[1]),
            byte_order_mark: hi(w[1]),
            header_len: lo(w[2]),
            kernel: hi(w[2]),
            flags: w[3],
            dim: w[4],
            n_points: w[5],
            n_components: w[6],
            degree: w[7],
            gamma: f32::from_bits(w[8]),
            coef0: f32::from_bits(w[9]),
            threshold: f32::from_bits(w[10]),
            s: f32::from_bits(w[11]),
            total_len: w[12],
            n_train: w[13],
            total_variance: f32::from_bits(w[14]),
            fit_method: w[15],
        })
    }

    /// Reads the header of a blob and checks what the header alone decides,
    /// in this order: the magic ([`Error::BadMagic`]; [`Error::Truncated`]
    /// under 4 bytes), room for the header and the CRC ([`Error::Truncated`]),
    /// the version ([`Error::UnsupportedVersion`] outside
    /// [`OLDEST_FORMAT_VERSION`]..=[`FORMAT_VERSION`]), the byte order
    /// ([`Error::ByteOrder`], also on big-endian targets), and the header
    /// length and flags ([`Error::BadHeader`]). The fit record (offsets
    /// 52..64: zeros in version 1, its reserved words) is checked by the
    /// loader, against the stored points.
    #[inline]
    pub fn parse(bytes: &[u8]) -> Result<Header, Error> {
        if bytes.get(..4).ok_or(Error::Truncated)? != MAGIC {
            return Err(Error::BadMagic);
        }
        if bytes.len() < HEADER_LEN + CRC_LEN {
            return Err(Error::Truncated);
        }
        let h = Header::read(bytes).ok_or(Error::Truncated)?;
        if !(OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&h.version) {
            return Err(Error::UnsupportedVersion);
        }
        if h.byte_order_mark != BYTE_ORDER_MARK || cfg!(target_endian = "big") {
            return Err(Error::ByteOrder);
        }
        if usize::from(h.header_len) != HEADER_LEN || h.flags & !known_flags(h.version) != 0 {
            return Err(Error::BadHeader);
        }
        Ok(h)
    }

    /// The header of a model's blob.
    pub fn of(model: &ModelRef<'_>) -> Header {
        let raw = model.as_raw();
        Header {
            version: FORMAT_VERSION,
            byte_order_mark: BYTE_ORDER_MARK,
            header_len: HEADER_LEN as u16,
            kernel: raw.kernel as u16,
            flags: raw.flags,
            dim: raw.dim,
            n_points: raw.n_points,
            n_components: raw.n_components,
            degree: raw.degree,
            gamma: raw.gamma,
            coef0: raw.coef0,
            threshold: raw.threshold,
            s: raw.s,
            total_len: to_u32(model.blob_len()),
            n_train: raw.n_train,
            total_variance: raw.total_variance,
            fit_method: raw.fit_method,
        }
    }

    /// The fit record of the header ([`FitInfo::NOT_RECORDED`] for an
    /// unknown method code, which the loader refuses).
    pub fn fit_info(&self) -> FitInfo {
        FitInfo::from_words(self.fit_method, self.n_train, self.total_variance)
    }

    /// Whether the flags say the inputs are standardised.
    pub fn is_standardized(&self) -> bool {
        self.flags & FLAG_STANDARDIZED != 0
    }

    /// Whether the flags say the points are a folded linear map.
    pub fn is_linear_map(&self) -> bool {
        self.flags & FLAG_LINEAR_MAP != 0
    }

    /// Writes the header (magic included) into its first [`HEADER_LEN`] bytes.
    pub fn write_to(&self, out: &mut [u8; HEADER_LEN]) {
        let words = [
            u32::from_le_bytes(MAGIC),
            u32::from(self.version) | u32::from(self.byte_order_mark) << 16,
            u32::from(self.header_len) | u32::from(self.kernel) << 16,
            self.flags,
            self.dim,
            self.n_points,
            self.n_components,
            self.degree,
            self.gamma.to_bits(),
            self.coef0.to_bits(),
            self.threshold.to_bits(),
            self.s.to_bits(),
            self.total_len,
            self.n_train,
            self.total_variance.to_bits(),
            self.fit_method,
        ];
        for (c, w) in out.chunks_exact_mut(4).zip(words) {
            c.copy_from_slice(&w.to_le_bytes());
        }
    }
}

/// The blob's header and its body before the CRC, once the stored length
/// equals the slice's and the CRC-32 matches.
#[inline]
fn checked_envelope(bytes: &[u8]) -> Result<(Header, &[u8]), Error> {
    let h = Header::parse(bytes)?;
    let total = to_usize(h.total_len);
    if total > bytes.len() {
        return Err(Error::Truncated);
    }
    if total < bytes.len() || total < HEADER_LEN + CRC_LEN {
        return Err(Error::LengthMismatch);
    }
    let (body, crc) = bytes
        .split_last_chunk::<CRC_LEN>()
        .ok_or(Error::Truncated)?;
    if crc32(body) != u32::from_le_bytes(*crc) {
        return Err(Error::CrcMismatch);
    }
    Ok((h, body))
}

/// The view of a blob for [`ModelRef::from_bytes`]: [`RawModel::load_into`]
/// on a slot of its own.
#[inline]
fn load(bytes: &[u8]) -> Result<ModelRef<'_>, Error> {
    let mut slot = core::mem::MaybeUninit::uninit();
    let raw = RawModel::load_into(&mut slot, bytes)?;
    Ok(ModelRef::from_validated_raw(*raw))
}

impl RawModel {
    /// Reads a model blob in place into `slot`, with every check of
    /// [`ModelRef::from_bytes`], and returns the loaded record, whose
    /// pointers point into `bytes`: `bytes` must stay valid and unchanged
    /// while the record is used as a model (the contract of the C API's
    /// `kpca_model`). On failure the error is returned and `slot` holds no
    /// loaded record (it may have been written: the C API loads into a slot
    /// of its own and copies it out only on success).
    ///
    /// The record is written where it is: unlike a returned [`ModelRef`], no
    /// copy of it is made, so a firmware that loads through this and
    /// [`RawModel::copy_into`] (the C API's `kpca_model_from_bytes`) links no
    /// `memcpy`.
    pub fn load_into<'s>(
        slot: &'s mut core::mem::MaybeUninit<RawModel>,
        bytes: &[u8],
    ) -> Result<&'s mut RawModel, Error> {
        checked_record(bytes, slot)
    }
}

/// The checks of the one loader ([`RawModel::load_into`], behind
/// [`ModelRef::from_bytes`] and `kpca_model_from_bytes`): the header
/// ([`Header::parse`]), the length, the CRC-32, dimensions, kernel, then every
/// number finite (one pass over the sections, which are contiguous), 1/std >
/// 0, threshold >= 0, the stored norms and the optional sections. Returns
/// the record, its optional sections attached, written into `slot` once
/// every check has passed.
fn checked_record<'s>(
    bytes: &[u8],
    slot: &'s mut core::mem::MaybeUninit<RawModel>,
) -> Result<&'s mut RawModel, Error> {
    let (h, body) = checked_envelope(bytes)?;
    let total = to_usize(h.total_len);
    let (d, m, k) = (
        to_usize(h.dim),
        to_usize(h.n_points),
        to_usize(h.n_components),
    );
    check_dims(d, m, k)?;
    let linear_map = h.is_linear_map();
    if !record_is_valid(h.fit_method, h.n_train, h.total_variance, m, linear_map) {
        return Err(Error::BadHeader);
    }
    let kernel = u32::from(h.kernel);
    let (gamma, degree, coef0) = check_params(kernel, h.gamma, h.degree, h.coef0)?;
    if linear_map && !crate::kernel::folds_to_linear_map(kernel) {
        return Err(Error::BadHeader);
    }
    let standardized = h.is_standardized();
    let core_len = blob_len_for(d, m, k, standardized).ok_or(Error::LengthMismatch)?;
    let has_sections = h.flags & FLAG_SECTIONS != 0;
    if core_len > total || (core_len < total) != has_sections {
        return Err(Error::LengthMismatch);
    }
    let (core_body, extra) = core_len
        .checked_sub(CRC_LEN)
        .and_then(|at| body.split_at_checked(at))
        .ok_or(Error::LengthMismatch)?;
    let mut rest = as_f32s(core_body.get(HEADER_LEN..).ok_or(Error::Truncated)?)?;
    // Loops with a run-time trip count stay rolled (see `keep_rolled`).
    let sections_finite = rest.iter().all(|v| {
        crate::codegen::keep_rolled();
        v.is_finite()
    });
    if !(sections_finite && h.s.is_finite() && h.threshold.is_finite()) {
        return Err(Error::NonFiniteModel);
    }
    let (mean, inv_std) = if standardized {
        (take(&mut rest, d)?, take(&mut rest, d)?)
    } else {
        (&[][..], &[][..])
    };
    let points = take(&mut rest, m.saturating_mul(d))?;
    let norms = take(&mut rest, m)?;
    let a = take(&mut rest, m.saturating_mul(k))?;
    let b = take(&mut rest, k)?;
    let c = take(&mut rest, m)?;
    check_consistency(inv_std, h.threshold, points, norms, d)?;
    // Checked by `parse_heads` (the checks of `crate::heads::attach_heads`),
    // which refuses an empty table, so FLAG_SECTIONS matches them.
    let heads = if has_sections {
        parse_heads(as_f32s(extra)?, d, k)?
    } else {
        Heads::NONE
    };
    let (n_preimage, preimage_scores, preimage_coef) = preimage_fields(&heads, d);
    let (n_targets, reg_weights, reg_intercept) = regression_fields(&heads);
    let std_ptr = |s: &[f32]| {
        if standardized {
            s.as_ptr()
        } else {
            core::ptr::null()
        }
    };
    // Every section was split off the body with its exact length, the sizes
    // and kernel were checked and every number is finite and consistent: the
    // invariant of `ModelRef` holds for the lifetime of `bytes`.
    let record = slot.write(RawModel {
        magic: LOADED_MAGIC,
        kernel,
        dim: h.dim,
        n_points: h.n_points,
        n_components: h.n_components,
        degree,
        gamma,
        coef0,
        threshold: h.threshold,
        s: h.s,
        fit_method: h.fit_method,
        n_train: h.n_train,
        total_variance: h.total_variance,
        flags: h.flags,
        mean: std_ptr(mean),
        inv_std: std_ptr(inv_std),
        points: points.as_ptr(),
        point_sq_norms: norms.as_ptr(),
        a: a.as_ptr(),
        b: b.as_ptr(),
        c: c.as_ptr(),
        eigenvalues: rest.as_ptr(),
        n_preimage,
        n_targets,
        // Format 4 carries f32 models without a front end only: see
        // docs/MODEL_FORMAT.md for how the integer sections and the front
        // end will be carried.
        precision: PRECISION_F32,
        front_end: FRONT_END_NONE,
        preimage_scores,
        preimage_coef,
        reg_weights,
        reg_intercept,
        integer: core::ptr::null(),
        front: core::ptr::null(),
    });
    Ok(record)
}

/// The record's fields of the pre-image section of `heads` (checked by
/// [`parse_heads`]): (n, scores, coef), or 0 and NULL without one.
fn preimage_fields(heads: &Heads<'_>, d: usize) -> (u32, *const f32, *const f32) {
    match heads.preimage {
        Some(p) => (
            to_u32((p.coef.len() / d.max(1)).saturating_sub(1)),
            p.scores.as_ptr(),
            p.coef.as_ptr(),
        ),
        None => (0, core::ptr::null(), core::ptr::null()),
    }
}

/// The record's fields of the regression section of `heads` (checked by
/// [`parse_heads`]): (t, weights, intercept), or 0 and NULL without one.
fn regression_fields(heads: &Heads<'_>) -> (u32, *const f32, *const f32) {
    match heads.regression {
        Some(r) => (
            to_u32(r.intercept.len()),
            r.weights.as_ptr(),
            r.intercept.as_ptr(),
        ),
        None => (0, core::ptr::null(), core::ptr::null()),
    }
}

impl<'a> ModelRef<'a> {
    /// Reads a model blob in place (no copy), validating it completely: header,
    /// length, CRC-32, dimensions, kernel, finiteness and consistency. `bytes`
    /// must be exactly the blob, starting at a 4-byte-aligned address.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<ModelRef<'a>, Error> {
        load(bytes)
    }

    /// Length in bytes of this model's blob (its optional sections included).
    pub fn blob_len(&self) -> usize {
        // Cannot overflow: the dimensions were checked against their maxima.
        let (d, m, k) = self.dims();
        let heads = heads_len_for(&self.heads(), d, k).unwrap_or(usize::MAX);
        blob_len_for(d, m, k, self.is_standardized())
            .and_then(|n| n.checked_add(heads))
            .unwrap_or(usize::MAX)
    }

    /// Serialises the model into `buf` (at least [`ModelRef::blob_len`] bytes) and
    /// returns the number of bytes written. Works without `std`.
    pub fn write_to(&self, buf: &mut [u8]) -> Result<usize, Error> {
        let total = self.blob_len();
        u32::try_from(total).map_err(|_| Error::DimensionTooLarge)?;
        let out = buf.get_mut(..total).ok_or(Error::BufferTooSmall)?;
        let (head, body) = out
            .split_first_chunk_mut::<HEADER_LEN>()
            .ok_or(Error::BufferTooSmall)?;
        Header::of(self).write_to(head);
        let mut w = Writer { buf: body, at: 0 };
        for section in [
            Section::Mean,
            Section::InvStd,
            Section::Points,
            Section::Norms,
            Section::A,
            Section::B,
            Section::C,
            Section::Eigenvalues,
        ] {
            w.f32s(self.section(section));
        }
        let heads = self.heads();
        if let Some(p) = heads.preimage {
            w.words(SECTION_PREIMAGE, self.n_preimage_rows());
            w.f32s(p.scores);
            w.f32s(p.coef);
        }
        if let Some(r) = heads.regression {
            w.words(SECTION_REGRESSION, self.n_targets());
            w.f32s(r.weights);
            w.f32s(r.intercept);
        }
        seal(out);
        Ok(total)
    }

    /// The record of this model's blob once [`ModelRef::write_to`] has
    /// written it into `blob`: [`ModelRef::as_raw`] with every section
    /// pointer moved to where the writer put that section, in the writer's
    /// order. No byte of `blob` is read: it must be 4-byte aligned
    /// ([`Error::Misaligned`]) and exactly [`ModelRef::blob_len`] long
    /// ([`Error::LengthMismatch`]). For a host type that owns the blob it
    /// wrote and gives its view through [`ModelRef::from_raw`] without
    /// validating the bytes again; the record describes a model only while
    /// `blob` holds exactly what `write_to` wrote.
    pub fn record_in(&self, blob: &[u8]) -> Result<RawModel, Error> {
        if blob.len() != self.blob_len() {
            return Err(Error::LengthMismatch);
        }
        let end = blob.len().checked_sub(CRC_LEN).ok_or(Error::Truncated)?;
        let mut rest = as_f32s(blob.get(HEADER_LEN..end).ok_or(Error::Truncated)?)?;
        let mut next = |len: usize| take(&mut rest, len).map(<[f32]>::as_ptr);
        let len = |section: Section| self.section(section).len();
        let mut raw = self.raw;
        if self.is_standardized() {
            raw.mean = next(len(Section::Mean))?;
            raw.inv_std = next(len(Section::InvStd))?;
        }
        raw.points = next(len(Section::Points))?;
        raw.point_sq_norms = next(len(Section::Norms))?;
        raw.a = next(len(Section::A))?;
        raw.b = next(len(Section::B))?;
        raw.c = next(len(Section::C))?;
        raw.eigenvalues = next(len(Section::Eigenvalues))?;
        let heads = self.heads();
        if let Some(p) = heads.preimage {
            next(2)?; // the section's tag and row count
            raw.preimage_scores = next(p.scores.len())?;
            raw.preimage_coef = next(p.coef.len())?;
        }
        if let Some(r) = heads.regression {
            next(2)?; // the section's tag and target count
            raw.reg_weights = next(r.weights.len())?;
            raw.reg_intercept = next(r.intercept.len())?;
        }
        Ok(raw)
    }
}

/// Writes the CRC-32 of every byte of `blob` but the last four into those
/// four (nothing for a buffer shorter than the CRC).
pub(crate) fn seal(blob: &mut [u8]) {
    let Some(body) = blob.len().checked_sub(CRC_LEN) else {
        return;
    };
    let crc = crc32(blob.get(..body).unwrap_or(&[]));
    if let Some(dst) = blob.last_chunk_mut::<CRC_LEN>() {
        *dst = crc.to_le_bytes();
    }
}

/// Sets the threshold of a valid blob in place and seals it again: the
/// header is read, changed and written back through [`Header`], the one
/// place that knows where each field sits.
pub(crate) fn rewrite_threshold(blob: &mut [u8], threshold: f32) {
    if blob.len() < HEADER_LEN + CRC_LEN {
        return;
    }
    let Some(mut header) = Header::read(blob) else {
        return;
    };
    header.threshold = threshold;
    if let Some(head) = blob.first_chunk_mut::<HEADER_LEN>() {
        header.write_to(head);
    }
    seal(blob);
}

/// Little-endian writer over a buffer of exactly the right length.
struct Writer<'b> {
    buf: &'b mut [u8],
    at: usize,
}

impl Writer<'_> {
    fn bytes(&mut self, src: &[u8]) {
        if let Some(dst) = self.buf.get_mut(self.at..self.at + src.len()) {
            dst.copy_from_slice(src);
        }
        self.at += src.len();
    }
    /// A section's tag and count.
    fn words(&mut self, tag: u32, count: usize) {
        self.bytes(&tag.to_le_bytes());
        self.bytes(&to_u32(count).to_le_bytes());
    }
    fn f32s(&mut self, values: &[f32]) {
        for v in values {
            self.bytes(&v.to_le_bytes());
        }
    }
}
