//! The NPY preamble and header dict, parsed here rather than by a crate.
//!
//! An NPY file starts with the magic `\x93NUMPY`, a format version (1.0, 2.0
//! or 3.0), the header length (u16 little-endian for 1.0, u32 for 2.0 and 3.0)
//! and the header: a Python dict literal padded with spaces and ended by a
//! newline, e.g. `{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }`.
//!
//! The parser accepts the dicts numpy writes and refuses what it would not
//! write; it reads the text once, left to right, with no recursion and no
//! backtracking, and never allocates more than the header's own bytes:
//! - exactly the keys `'descr'`, `'fortran_order'` and `'shape'`, each once, in
//!   any order (numpy sorts them; its reader refuses other keys, and so do we);
//! - keys and the `descr` in single quotes (Python's `repr`), no escapes;
//! - `fortran_order` `True` or `False`; `shape` a tuple of decimal integers
//!   (`()`, `(3,)`, `(3, 2)`, a trailing comma allowed), no signs or leading
//!   zeros;
//! - spaces (not tabs or newlines) between the tokens, a trailing comma before
//!   the `}`; after it only spaces and the final `\n`;
//! - a `descr` that is not a string (a structured dtype's list) is refused.
//!
//! The 64-byte alignment numpy pads to is not checked (numpy before 1.17 padded
//! to 16 bytes, and the data needs no alignment to be decoded here).

use crate::table::Scalar;

/// Most opening brackets a real NPY header dict has: `{` and the shape's `(`
/// (and one `[` in a structured descr, which we do not read anyway).
const MAX_NPY_HEADER_BRACKETS: usize = 3;

/// The magic bytes at the start of every NPY file.
pub(crate) const NPY_MAGIC: &[u8] = b"\x93NUMPY";

/// The fixed part of an NPY file before its header dict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Preamble {
    /// The header's length in bytes, as declared.
    pub(crate) header_len: usize,
    /// Where the header starts (10 for version 1.0, 12 for 2.0 and 3.0).
    pub(crate) header_start: usize,
}

impl Preamble {
    /// Where the data starts: after the header (`None` if that overflows).
    pub(crate) fn data_start(self) -> Option<usize> {
        self.header_start.checked_add(self.header_len)
    }
}

/// What an NPY header says about the array that follows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NpyHeader {
    /// The dtype string, without its quotes (e.g. `<f8`).
    pub(crate) descr: String,
    /// Whether the data is in Fortran (column-major) order.
    pub(crate) fortran_order: bool,
    /// The array's shape (empty for a 0-d array).
    pub(crate) shape: Vec<u64>,
    /// Offset of the first data byte in the file.
    pub(crate) data_start: usize,
}

/// How an NPY file's elements are stored: the dtypes the reader accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Element {
    /// `<f8` (little-endian) or `>f8`.
    F64 {
        /// Whether the bytes are little-endian.
        little: bool,
    },
    /// `<f4` (little-endian) or `>f4`.
    F32 {
        /// Whether the bytes are little-endian.
        little: bool,
    },
}

impl Element {
    /// The element type a descr names, if it is one we read.
    pub(crate) fn from_descr(descr: &str) -> Option<Element> {
        match descr {
            "<f8" => Some(Element::F64 { little: true }),
            ">f8" => Some(Element::F64 { little: false }),
            "<f4" => Some(Element::F32 { little: true }),
            ">f4" => Some(Element::F32 { little: false }),
            _ => None,
        }
    }

    /// Bytes per element.
    pub(crate) fn size(self) -> usize {
        match self {
            Element::F64 { .. } => 8,
            Element::F32 { .. } => 4,
        }
    }

    /// The value of one element's bytes `b` (exactly [`Element::size`] long).
    pub(crate) fn decode<T: Scalar>(self, b: &[u8]) -> T {
        match self {
            Element::F64 { little } => {
                let a: [u8; 8] = b.try_into().unwrap_or([0; 8]);
                T::from_f64(if little {
                    f64::from_le_bytes(a)
                } else {
                    f64::from_be_bytes(a)
                })
            }
            Element::F32 { little } => {
                let a: [u8; 4] = b.try_into().unwrap_or([0; 4]);
                T::from_f32(if little {
                    f32::from_le_bytes(a)
                } else {
                    f32::from_be_bytes(a)
                })
            }
        }
    }
}

/// Reads the preamble: the magic, a version numpy writes (1.0, 2.0 or 3.0)
/// and the declared header length (not yet checked against the file).
pub(crate) fn read_preamble(bytes: &[u8]) -> Result<Preamble, String> {
    if !bytes.starts_with(NPY_MAGIC) {
        return Err("not a valid NPY file: no NPY magic".into());
    }
    let (major, minor) = match bytes.get(6..8) {
        Some(v) => (v[0], v[1]),
        None => return Err("truncated NPY preamble".into()),
    };
    let header_start = match (major, minor) {
        (1, 0) => 10,
        (2, 0) | (3, 0) => 12,
        _ => {
            return Err(format!(
                "not a valid NPY file: format version {major}.{minor} \
                 (expected 1.0, 2.0 or 3.0)"
            ))
        }
    };
    let len = bytes
        .get(8..header_start)
        .ok_or_else(|| "truncated NPY preamble".to_string())?;
    let header_len = match *len {
        [a, b] => usize::from(u16::from_le_bytes([a, b])),
        [a, b, c, d] => u32::from_le_bytes([a, b, c, d]) as usize,
        _ => return Err("truncated NPY preamble".into()),
    };
    Ok(Preamble {
        header_len,
        header_start,
    })
}

/// Parses the preamble and header dict at the start of `bytes` (see the
/// module doc for what is accepted). The declared header length must fit in
/// `bytes`, so a tiny file cannot ask for a large allocation, and a header
/// with more than a few opening brackets is refused before it is parsed.
pub(crate) fn parse_header(bytes: &[u8]) -> Result<NpyHeader, String> {
    let preamble = read_preamble(bytes)?;
    let header = preamble
        .data_start()
        .and_then(|end| bytes.get(preamble.header_start..end))
        .ok_or_else(|| {
            format!(
                "NPY header length {} exceeds the file ({} bytes)",
                preamble.header_len,
                bytes.len()
            )
        })?;
    let brackets = header
        .iter()
        .filter(|&&b| matches!(b, b'{' | b'(' | b'['))
        .count();
    if brackets > MAX_NPY_HEADER_BRACKETS {
        return Err(format!(
            "NPY header has {brackets} opening brackets: expected a plain dict"
        ));
    }
    let (descr, fortran_order, shape) =
        parse_dict(header).map_err(|e| format!("not a valid NPY file: header {e}"))?;
    Ok(NpyHeader {
        descr,
        fortran_order,
        shape,
        data_start: preamble.header_start + header.len(),
    })
}

/// The three keys of a header dict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Descr,
    FortranOrder,
    Shape,
}

impl Key {
    fn name(self) -> &'static str {
        match self {
            Key::Descr => "'descr'",
            Key::FortranOrder => "'fortran_order'",
            Key::Shape => "'shape'",
        }
    }
}

/// The values read so far from a header dict.
#[derive(Default)]
struct Fields {
    descr: Option<String>,
    fortran_order: Option<bool>,
    shape: Option<Vec<u64>>,
}

/// Parses a whole header (dict, padding, newline) into (descr, fortran
/// order, shape); an error says what was expected where.
fn parse_dict(text: &[u8]) -> Result<(String, bool, Vec<u64>), String> {
    let mut c = Cursor { text, at: 0 };
    let mut fields = Fields::default();
    c.expect(b'{', "'{'")?;
    loop {
        c.spaces();
        if c.eat(b'}') {
            break;
        }
        let key = c.key()?;
        c.spaces();
        c.expect(b':', "':'")?;
        c.spaces();
        let fresh = match key {
            Key::Descr => fields.descr.replace(c.descr()?).is_none(),
            Key::FortranOrder => fields.fortran_order.replace(c.boolean()?).is_none(),
            Key::Shape => fields.shape.replace(c.shape()?).is_none(),
        };
        if !fresh {
            return Err(format!("has {} twice", key.name()));
        }
        c.spaces();
        if !c.eat(b',') {
            c.expect(b'}', "',' or '}'")?;
            break;
        }
    }
    c.spaces();
    c.expect(b'\n', "spaces and a newline after the dict")?;
    if c.at != text.len() {
        return Err(format!("has bytes after its newline (at byte {})", c.at));
    }
    let missing = |key: Key| format!("lacks {}", key.name());
    Ok((
        fields.descr.ok_or_else(|| missing(Key::Descr))?,
        fields
            .fortran_order
            .ok_or_else(|| missing(Key::FortranOrder))?,
        fields.shape.ok_or_else(|| missing(Key::Shape))?,
    ))
}

/// A position in the header text.
struct Cursor<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    /// An error: `what` was expected at the current byte.
    fn fail<V>(&self, what: &str) -> Result<V, String> {
        Err(format!("dict: expected {what} at byte {}", self.at))
    }

    fn spaces(&mut self) {
        while self.text.get(self.at) == Some(&b' ') {
            self.at += 1;
        }
    }

    /// Steps over `b` if it is next.
    fn eat(&mut self, b: u8) -> bool {
        let next = self.text.get(self.at) == Some(&b);
        if next {
            self.at += 1;
        }
        next
    }

    fn expect(&mut self, b: u8, what: &str) -> Result<(), String> {
        if self.eat(b) {
            Ok(())
        } else {
            self.fail(what)
        }
    }

    /// Steps over `word` if it is next.
    fn eat_word(&mut self, word: &[u8]) -> bool {
        let next = self.text[self.at..].starts_with(word);
        if next {
            self.at += word.len();
        }
        next
    }

    /// A single-quoted string of printable ASCII without quotes or
    /// backslashes (what `repr` writes for a numpy descr).
    fn quoted(&mut self, what: &str) -> Result<&'a str, String> {
        let start = self.at;
        if !self.eat(b'\'') {
            return self.fail(what);
        }
        let len = self.text[self.at..]
            .iter()
            .position(|&b| !(b.is_ascii_graphic() || b == b' ') || b == b'\'' || b == b'\\')
            .unwrap_or(self.text.len() - self.at);
        let inner = &self.text[self.at..self.at + len];
        self.at += len;
        if !self.eat(b'\'') {
            self.at = start;
            return self.fail(what);
        }
        // Printable ASCII only, so this is valid UTF-8.
        std::str::from_utf8(inner).or_else(|_| self.fail(what))
    }

    fn key(&mut self) -> Result<Key, String> {
        let start = self.at;
        let what = "'descr', 'fortran_order' or 'shape'";
        match self.quoted(what)? {
            "descr" => Ok(Key::Descr),
            "fortran_order" => Ok(Key::FortranOrder),
            "shape" => Ok(Key::Shape),
            _ => {
                self.at = start;
                self.fail(what)
            }
        }
    }

    fn descr(&mut self) -> Result<String, String> {
        if self.text.get(self.at) == Some(&b'[') {
            return self.fail("a dtype string (structured dtypes are not supported)");
        }
        self.quoted("a dtype string").map(str::to_string)
    }

    fn boolean(&mut self) -> Result<bool, String> {
        if self.eat_word(b"True") {
            Ok(true)
        } else if self.eat_word(b"False") {
            Ok(false)
        } else {
            self.fail("True or False")
        }
    }

    /// A tuple of integers: `()`, `(n,)` or `(n, m, ...)` with an optional
    /// trailing comma; a one-element tuple needs its comma, as in Python.
    fn shape(&mut self) -> Result<Vec<u64>, String> {
        self.expect(b'(', "a shape tuple")?;
        let mut dims = Vec::new();
        loop {
            self.spaces();
            if self.eat(b')') {
                break;
            }
            dims.push(self.integer()?);
            self.spaces();
            if self.eat(b',') {
                continue;
            }
            if dims.len() == 1 && self.text.get(self.at) == Some(&b')') {
                return self.fail("',' before the ')' of a one-element shape");
            }
            self.expect(b')', "',' or ')'")?;
            break;
        }
        Ok(dims)
    }

    /// A decimal integer as Python writes it: digits, no sign, no leading
    /// zero (but `0` itself), within u64.
    fn integer(&mut self) -> Result<u64, String> {
        let start = self.at;
        let len = self.text[start..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let digits = &self.text[start..start + len];
        if len == 0 || (len > 1 && digits[0] == b'0') {
            return self.fail("a dimension (a decimal integer)");
        }
        let value = digits.iter().try_fold(0u64, |v, &d| {
            v.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        });
        match value {
            Some(v) => {
                self.at += len;
                Ok(v)
            }
            None => self.fail("a dimension below 2^64"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Headers (preamble included) as numpy 2.4.6 writes them, copied from the
    // bytes of `np.save(f, a)` (`np.lib.format.write_array(f, a, version=v)`
    // for V2 and V3) for the array named, e.g.
    // `np.save(f, np.zeros((3, 2)))` for F8_3X2.
    const F8_3X2: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }                                                          \n";
    // np.zeros(3, dtype='<f4')
    const F4_1D: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }                                                            \n";
    // np.zeros((2, 3), dtype='>f8')
    const BIG_F8: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }                                                          \n";
    // np.zeros((2, 3), dtype='>f4')
    const BIG_F4: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }                                                          \n";
    // np.asfortranarray(np.zeros((2, 3)))
    const FORTRAN: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }                                                           \n";
    // np.zeros((2, 3), dtype='<i4')
    const I4: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }                                                          \n";
    // np.zeros(())
    const SCALAR: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (), }                                                              \n";
    // np.zeros((2, 3, 4))
    const THREE_D: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 4), }                                                       \n";
    // np.zeros((3, 2)), version (2, 0)
    const V2: &[u8] = b"\x93NUMPY\x02\x00t\x00\x00\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }                                                        \n";
    // np.zeros((3, 2)), version (3, 0)
    const V3: &[u8] = b"\x93NUMPY\x03\x00t\x00\x00\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }                                                        \n";
    // np.zeros(3, dtype=[('a', '<f8')])
    const STRUCTURED: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (3,), }                                                   \n";
    // np.zeros((123456789012, 0))
    const LARGE: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (123456789012, 0), }                                               \n";

    fn header(descr: &str, fortran_order: bool, shape: &[u64], data_start: usize) -> NpyHeader {
        NpyHeader {
            descr: descr.to_string(),
            fortran_order,
            shape: shape.to_vec(),
            data_start,
        }
    }

    /// A version 1.0 file with `dict` as its header, taken as given.
    fn v1(dict: &str) -> Vec<u8> {
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        out.extend_from_slice(dict.as_bytes());
        out
    }

    fn refusal(bytes: &[u8]) -> String {
        parse_header(bytes).expect_err("header refused")
    }

    #[test]
    fn headers_numpy_writes_are_read() {
        let cases: [(&[u8], NpyHeader); 11] = [
            (F8_3X2, header("<f8", false, &[3, 2], 128)),
            (F4_1D, header("<f4", false, &[3], 128)),
            (BIG_F8, header(">f8", false, &[2, 3], 128)),
            (BIG_F4, header(">f4", false, &[2, 3], 128)),
            (FORTRAN, header("<f8", true, &[2, 3], 128)),
            (I4, header("<i4", false, &[2, 3], 128)),
            (SCALAR, header("<f8", false, &[], 128)),
            (THREE_D, header("<f8", false, &[2, 3, 4], 128)),
            (V2, header("<f8", false, &[3, 2], 128)),
            (V3, header("<f8", false, &[3, 2], 128)),
            (LARGE, header("<f8", false, &[123_456_789_012, 0], 128)),
        ];
        for (bytes, expected) in cases {
            assert_eq!(parse_header(bytes), Ok(expected));
        }
    }

    #[test]
    fn data_after_the_header_is_not_part_of_it() {
        let mut bytes = F8_3X2.to_vec();
        bytes.extend_from_slice(&[0xAB; 48]);
        assert_eq!(parse_header(&bytes).unwrap().data_start, F8_3X2.len());
    }

    #[test]
    fn only_float32_and_float64_descrs_name_an_element() {
        assert_eq!(
            Element::from_descr("<f8"),
            Some(Element::F64 { little: true })
        );
        assert_eq!(
            Element::from_descr(">f4"),
            Some(Element::F32 { little: false })
        );
        for other in ["<i4", "|u1", "<f2", "<c16", "=f8", "f8", "<f8 ", ""] {
            assert_eq!(Element::from_descr(other), None, "{other:?}");
        }
        let one: f64 = Element::F64 { little: false }.decode(&1.0f64.to_be_bytes());
        let half: f32 = Element::F32 { little: true }.decode(&0.5f32.to_le_bytes());
        assert_eq!((one, half), (1.0, 0.5));
    }

    #[test]
    fn preambles_numpy_does_not_write_are_refused() {
        assert!(refusal(b"\x93NUMPY").contains("truncated NPY preamble"));
        assert!(refusal(b"\x93NUMPY\x01\x00v").contains("truncated NPY preamble"));
        assert!(refusal(b"\x93NUMPY\x02\x00t\x00\x00").contains("truncated NPY preamble"));
        assert!(refusal(b"\x93NUMPX\x01\x00\x00\x00").contains("no NPY magic"));
        for version in [[0u8, 0], [4, 0], [1, 1], [2, 1], [255, 0]] {
            let mut bytes = F8_3X2.to_vec();
            bytes[6..8].copy_from_slice(&version);
            let e = refusal(&bytes);
            assert!(e.starts_with("not a valid NPY file: format version"), "{e}");
        }
    }

    #[test]
    fn a_header_longer_than_the_file_is_refused_before_it_is_read() {
        // Version 3 header claiming 4 GiB in an 18-byte file.
        let huge = b"\x93NUMPY\x03\x00\xff\xff\xff\xff{}\x00\x00\x00\x00";
        assert_eq!(
            refusal(huge),
            "NPY header length 4294967295 exceeds the file (18 bytes)"
        );
        let e = refusal(&F8_3X2[..F8_3X2.len() - 1]);
        assert!(e.contains("NPY header length 118 exceeds the file"), "{e}");
    }

    #[test]
    fn nested_brackets_are_refused_by_count() {
        let e = refusal(&v1("{'descr': '<f8', 'fortran_order': False, 'shape': ((((((((((1,),),),),),),),),),), }\n"));
        assert!(e.contains("has 11 opening brackets"), "{e}");
        // A structured descr passes the count only when it is this small, and
        // is refused as not a string.
        let e = refusal(STRUCTURED);
        assert!(e.contains("opening brackets"), "{e}");
        let e = refusal(&v1(
            "{'descr': [], 'shape': (3,), 'fortran_order': False}\n",
        ));
        assert!(e.contains("structured dtypes are not supported"), "{e}");
    }

    #[test]
    fn spacing_and_key_order_python_allows_are_read() {
        let expected = header("<f8", false, &[3, 2], 0);
        for dict in [
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }\n",
            "{'descr':'<f8','fortran_order':False,'shape':(3,2)}\n",
            "{ 'shape' : ( 3 , 2 , ) , 'fortran_order' : False , 'descr' : '<f8' }   \n",
            // a space before a comma (the CLI's Fortran test writes `True ,`)
            "{'descr': '<f8', 'fortran_order': False , 'shape': (3, 2), }\n",
        ] {
            let bytes = v1(dict);
            let got = parse_header(&bytes).unwrap_or_else(|e| panic!("{dict}: {e}"));
            assert_eq!(
                got,
                NpyHeader {
                    data_start: bytes.len(),
                    ..expected.clone()
                }
            );
        }
    }

    /// Headers numpy would not write, each with a piece of the message
    /// that refuses it.
    const REFUSED: &[(&str, &str)] = &[
        (
            "'descr': '<f8', 'fortran_order': False, 'shape': (3, 2)}\n",
            "'{'",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }",
            "newline",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }\n \n",
            "after its newline",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }x\n",
            "newline",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2),,}\n",
            "'descr'",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2)\n",
            "',' or '}'",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), 'x': 1, }\n",
            "'descr', 'fortran_order' or 'shape'",
        ),
        (
            "{'descr': '<f8', 'shape': (3, 2), }\n",
            "lacks 'fortran_order'",
        ),
        (
            "{'fortran_order': False, 'shape': (3, 2), }\n",
            "lacks 'descr'",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, }\n",
            "lacks 'shape'",
        ),
        ("{}\n", "lacks 'descr'"),
        (
            "{'descr': '<f8', 'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n",
            "'descr' twice",
        ),
        (
            "{\"descr\": '<f8', 'fortran_order': False, 'shape': (3, 2), }\n",
            "'descr', 'fortran_order'",
        ),
        (
            "{'descr': \"<f8\", 'fortran_order': False, 'shape': (3, 2), }\n",
            "a dtype string",
        ),
        (
            "{'descr': '<f8, 'fortran_order': False, 'shape': (3, 2), }\n",
            "',' or '}'",
        ),
        (
            "{'descr': '<f\\x38', 'fortran_order': False, 'shape': (3, 2), }\n",
            "a dtype string",
        ),
        (
            "{'descr': '<f8', 'fortran_order': false, 'shape': (3, 2), }\n",
            "True or False",
        ),
        (
            "{'descr': '<f8', 'fortran_order': 0, 'shape': (3, 2), }\n",
            "True or False",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': [3, 2], }\n",
            "a shape tuple",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3), }\n",
            "one-element",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3 2), }\n",
            "',' or ')'",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (-3, 2), }\n",
            "decimal integer",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (03, 2), }\n",
            "decimal integer",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3.0, 2), }\n",
            "',' or ')'",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551616,), }\n",
            "below 2^64",
        ),
        (
            "{'descr': '<f8',\t'fortran_order': False, 'shape': (3, 2), }\n",
            "'descr', 'fortran_order'",
        ),
        (
            "{'descr': '<f8',\n'fortran_order': False, 'shape': (3, 2), }\n",
            "'descr', 'fortran_order'",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }\u{a0}\n",
            "newline",
        ),
    ];

    #[test]
    fn dicts_numpy_would_not_write_are_refused() {
        for &(dict, expected) in REFUSED {
            let e = refusal(&v1(dict));
            assert!(
                e.starts_with("not a valid NPY file: header "),
                "{dict}: {e}"
            );
            assert!(e.contains(expected), "{dict}: {e}");
        }
    }

    #[test]
    fn the_largest_dimension_reads_and_one_more_is_refused() {
        let max =
            v1("{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551615,), }\n");
        assert_eq!(parse_header(&max).unwrap().shape, vec![u64::MAX]);
        let zero = v1("{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }\n");
        assert_eq!(parse_header(&zero).unwrap().shape, vec![0]);
    }
}
