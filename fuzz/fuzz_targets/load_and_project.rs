//! Arbitrary bytes as a model blob (copied to a 4-aligned buffer, or 1..3 bytes
//! past one), then, when it loads, every projection call on hostile inputs
//! decoded from the rest of the input, the rewrite round trip and the copy into
//! an owned model. Input layout: `kpca_fuzz::split_input`.
#![no_main]

use kpca_core::{Error, ModelRef};
use kpca_fuzz::{check_owned_copy, check_rewrite, exercise, split_input, Aligned, Values};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (blob, rest) = split_input(data);
    let mut vals = Values::new(rest);
    // Mostly aligned; a misaligned copy must be refused (or fail earlier).
    let misalign = match vals.byte() {
        0..=239 => 0,
        b => usize::from(b % 3) + 1,
    };
    let copy = Aligned::new(blob, misalign);
    let loaded = ModelRef::from_bytes(copy.bytes());
    if misalign != 0 {
        assert!(loaded.is_err(), "misaligned blob accepted");
    }
    if blob.len() < 4 {
        assert_eq!(loaded.err(), Some(Error::Truncated));
        return;
    }
    if blob[..4] != *b"KPCA" {
        assert_eq!(loaded.err(), Some(Error::BadMagic));
        return;
    }
    let Ok(view) = loaded else { return };
    // An accepted blob is exactly as long as it says and its CRC is right.
    let len = blob.len();
    assert_eq!(
        kpca_core::Header::read(blob).map(|h| h.total_len),
        Some(len as u32)
    );
    assert_eq!(
        kpca_fuzz::u32_at(blob, len - 4),
        Some(kpca_core::crc32::crc32(&blob[..len - 4]))
    );
    exercise(&view, &mut vals);
    check_rewrite(&view, blob);
    let x = vals.values(view.dim());
    check_owned_copy(&view, &x);
});
