//! CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as zlib and PNG), without a table.
//!
//! Bitwise on purpose: the model is checked once at load time, and a table
//! would cost 1 KiB of flash for no gain there.

/// CRC-32 of `bytes` (initial value and final xor 0xFFFFFFFF).
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &byte in bytes {
        // One byte per turn, not unrolled (see `keep_rolled`).
        crate::codegen::keep_rolled();
        crc ^= u32::from(byte);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::crc32;

    #[test]
    fn matches_the_standard_check_value() {
        // The check value of CRC-32/ISO-HDLC for the ASCII digits 1..9.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }
}
