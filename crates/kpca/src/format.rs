//! The binary model format (version 1): reading in place and writing.
//!
//! Layout, all little-endian, documented in `docs/MODEL_FORMAT.md`:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `KPCA` |
//! | 4 | 2 | format version (1) |
//! | 6 | 2 | byte-order mark 0xFEFF |
//! | 8 | 2 | header length (64) |
//! | 10 | 2 | kernel id ([`crate::KernelId`]) |
//! | 12 | 4 | flags (bit 0: standardised input; other bits 0) |
//! | 16 | 4 | d, input dimension |
//! | 20 | 4 | m, stored points |
//! | 24 | 4 | k, components |
//! | 28 | 4 | degree (u32) |
//! | 32 | 4 | gamma (f32) |
//! | 36 | 4 | coef0 (f32) |
//! | 40 | 4 | anomaly threshold (f32, 0 = unset) |
//! | 44 | 4 | s, centring constant of the score (f32) |
//! | 48 | 4 | total length of the blob in bytes, CRC included |
//! | 52 | 12 | reserved, 0 |
//! | 64 | .. | f32 sections: [mean d, 1/std d if flag 0], points m*d, ‖z‖² m, A m*k, b k, c m, eigenvalues k |
//! | end-4 | 4 | CRC-32 (IEEE) of every byte before it |

use crate::crc32::crc32;
use crate::error::Error;
use crate::kernel::{check_params, Kernel, KernelId};
use crate::model::{check_consistency, check_dims, ModelRef};
use crate::project::{to_usize, Job, Section, LOADED};
use core::marker::PhantomData;

/// The four magic bytes at the start of every blob.
pub const MAGIC: [u8; 4] = *b"KPCA";
/// The format version this library reads and writes.
pub const FORMAT_VERSION: u16 = 1;
/// The byte-order mark, stored little-endian.
pub const BYTE_ORDER_MARK: u16 = 0xFEFF;
/// Length of the fixed header in bytes.
pub const HEADER_LEN: usize = 64;
/// Required alignment of the blob's first byte, for reading floats in place.
pub const BLOB_ALIGN: usize = 4;
/// Flag bit: inputs are standardised with a stored mean and 1/std.
pub const FLAG_STANDARDIZED: u32 = 1;

const CRC_LEN: usize = 4;

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

/// Reads a model blob in place and validates it completely (the one loader of
/// [`ModelRef::from_bytes`] and `kpca_model_from_bytes`): header, length,
/// CRC-32, dimensions, kernel, then every number finite (one pass over the
/// sections, which are contiguous), 1/std > 0, threshold >= 0 and the stored
/// norms. Returns the model as a [`Job`] (the layout of the C `kpca_model`).
#[inline]
pub fn load(bytes: &[u8]) -> Result<Job<'_>, Error> {
    let magic = bytes.get(..4).ok_or(Error::Truncated)?;
    if magic != MAGIC {
        return Err(Error::BadMagic);
    }
    let header: &[u8; HEADER_LEN] = bytes.first_chunk().ok_or(Error::Truncated)?;
    if bytes.len() < HEADER_LEN + CRC_LEN {
        return Err(Error::Truncated);
    }
    let mut words = [0u32; HEADER_LEN / 4];
    for (w, c) in words.iter_mut().zip(header.chunks_exact(4)) {
        *w = u32::from_le_bytes(c.try_into().unwrap_or([0; 4]));
    }
    let [_, version_bom, hlen_kernel, flags, dim, n_points, n_components, degree, gamma, coef0, threshold, s, total, r0, r1, r2] =
        words;
    if version_bom & 0xFFFF != u32::from(FORMAT_VERSION) {
        return Err(Error::UnsupportedVersion);
    }
    if version_bom >> 16 != u32::from(BYTE_ORDER_MARK) || cfg!(target_endian = "big") {
        return Err(Error::ByteOrder);
    }
    if hlen_kernel & 0xFFFF != HEADER_LEN as u32
        || flags & !FLAG_STANDARDIZED != 0
        || (r0 | r1 | r2) != 0
    {
        return Err(Error::BadHeader);
    }
    let total = to_usize(total);
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
    let (d, m, k) = (to_usize(dim), to_usize(n_points), to_usize(n_components));
    check_dims(d, m, k)?;
    let kernel = hlen_kernel >> 16;
    let (gamma, degree, coef0) =
        check_params(kernel, f32::from_bits(gamma), degree, f32::from_bits(coef0))?;
    let standardized = flags & FLAG_STANDARDIZED != 0;
    if blob_len_for(d, m, k, standardized) != Some(total) {
        return Err(Error::LengthMismatch);
    }
    let mut rest = as_f32s(body.get(HEADER_LEN..).ok_or(Error::Truncated)?)?;
    let (threshold, s) = (f32::from_bits(threshold), f32::from_bits(s));
    if !(rest.iter().all(|v| v.is_finite()) && s.is_finite() && threshold.is_finite()) {
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
    check_consistency(inv_std, threshold, points, norms, d)?;
    let ptr = |s: &[f32]| {
        if standardized {
            s.as_ptr()
        } else {
            core::ptr::null()
        }
    };
    Ok(Job {
        magic: LOADED,
        kernel,
        dim,
        n_points,
        n_components,
        degree,
        gamma,
        coef0,
        threshold,
        s,
        mean: ptr(mean),
        inv_std: ptr(inv_std),
        points: points.as_ptr(),
        norms: norms.as_ptr(),
        a: a.as_ptr(),
        b: b.as_ptr(),
        c: c.as_ptr(),
        eigenvalues: rest.as_ptr(),
        _model: PhantomData,
    })
}

impl<'a> ModelRef<'a> {
    /// Reads a model blob in place (no copy), validating it completely: header,
    /// length, CRC-32, dimensions, kernel, finiteness and consistency. `bytes`
    /// must be exactly the blob, starting at a 4-byte-aligned address.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<ModelRef<'a>, Error> {
        let job = load(bytes)?;
        let id = u16::try_from(job.kernel).map_err(|_| Error::UnknownKernel)?;
        let kernel = Kernel::from_parts(KernelId::try_from(id)?, job.gamma, job.degree, job.coef0)?;
        let (dim, n_points, n_components) = job.dims();
        Ok(ModelRef {
            kernel,
            dim,
            n_points,
            n_components,
            mean: job.section(Section::Mean),
            inv_std: job.section(Section::InvStd),
            points: job.section(Section::Points),
            point_sq_norms: job.section(Section::Norms),
            a: job.section(Section::A),
            b: job.section(Section::B),
            c: job.section(Section::C),
            s: job.s,
            eigenvalues: job.section(Section::Eigenvalues),
            threshold: job.threshold,
        })
    }

    /// Length in bytes of this model's blob.
    pub fn blob_len(&self) -> usize {
        // Cannot overflow: the dimensions were checked against their maxima.
        blob_len_for(
            self.dim,
            self.n_points,
            self.n_components,
            self.is_standardized(),
        )
        .unwrap_or(usize::MAX)
    }

    /// Serialises the model into `buf` (at least [`ModelRef::blob_len`] bytes) and
    /// returns the number of bytes written. Works without `std`.
    pub fn write_to(&self, buf: &mut [u8]) -> Result<usize, Error> {
        let total = self.blob_len();
        let total_u32 = u32::try_from(total).map_err(|_| Error::DimensionTooLarge)?;
        let out = buf.get_mut(..total).ok_or(Error::BufferTooSmall)?;
        let mut w = Writer { buf: out, at: 0 };
        let (gamma, degree, coef0) = self.kernel.params();
        let as_u32 = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        w.bytes(&MAGIC);
        w.u16(FORMAT_VERSION);
        w.u16(BYTE_ORDER_MARK);
        w.u16(HEADER_LEN as u16);
        w.u16(self.kernel.id() as u16);
        w.u32(if self.is_standardized() {
            FLAG_STANDARDIZED
        } else {
            0
        });
        w.u32(as_u32(self.dim));
        w.u32(as_u32(self.n_points));
        w.u32(as_u32(self.n_components));
        w.u32(degree);
        w.f32s(&[gamma, coef0, self.threshold, self.s]);
        w.u32(total_u32);
        w.bytes(&[0; 12]);
        for section in [
            self.mean,
            self.inv_std,
            self.points,
            self.point_sq_norms,
            self.a,
            self.b,
            self.c,
            self.eigenvalues,
        ] {
            w.f32s(section);
        }
        let crc = crc32(w.buf.get(..w.at).unwrap_or(&[]));
        w.u32(crc);
        Ok(w.at)
    }
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
    fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    fn f32s(&mut self, values: &[f32]) {
        for v in values {
            self.bytes(&v.to_le_bytes());
        }
    }
}
