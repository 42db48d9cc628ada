//! The NPY side of the table reader.
//!
//! f32 or f64 arrays in C order, 2-D (rows x features) or 1-D (one column),
//! read with the `npyz` crate after a check of the preamble that keeps hostile
//! headers from costing memory or time. Errors name the file and, for a bad
//! value, the element (0-based, as numpy indexes it).

use super::{RowOrigin, Scalar, Table};
use crate::error::{CliError, CliResult};

/// The magic bytes at the start of every NPY file.
pub(super) const NPY_MAGIC: &[u8] = b"\x93NUMPY";

/// Most opening brackets a real NPY header dict has: `{` and the shape's `(`
/// (and one `[` in a structured descr, which we do not read anyway).
const MAX_NPY_HEADER_BRACKETS: usize = 3;

/// Checks the NPY preamble before the header is handed to npyz: the declared
/// header length must fit in the file (npyz allocates it first, so an 18-byte
/// file could ask for 4 GiB), and the header must be a plain dict (npyz parses
/// it with a backtracking parser that takes exponential time on nested
/// brackets). Files that are not NPY version 1-3 are left to npyz to reject.
pub(super) fn check_npy_header(bytes: &[u8]) -> Result<(), String> {
    let (len, start) = match bytes.get(6) {
        Some(1) => match bytes.get(8..10) {
            Some(b) => (usize::from(u16::from_le_bytes([b[0], b[1]])), 10usize),
            None => return Err("truncated NPY preamble".into()),
        },
        Some(2) | Some(3) => match bytes.get(8..12) {
            Some(b) => (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize, 12),
            None => return Err("truncated NPY preamble".into()),
        },
        _ => return Ok(()),
    };
    let header = start
        .checked_add(len)
        .and_then(|end| bytes.get(start..end))
        .ok_or_else(|| {
            format!(
                "NPY header length {len} exceeds the file ({} bytes)",
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
    Ok(())
}

/// (rows, columns, whether 1-D) of an NPY array of shape `shape`: 2-D
/// (rows, features) or 1-D (one column), neither empty.
pub(super) fn table_shape(shape: &[u64]) -> Result<(usize, usize, bool), String> {
    let to_usize = |v: u64| usize::try_from(v).map_err(|_| format!("shape {shape:?} too large"));
    let (n_rows, n_cols, one_d) = match shape {
        [n] => (to_usize(*n)?, 1, true),
        [n, d] => (to_usize(*n)?, to_usize(*d)?, false),
        _ => {
            return Err(format!(
                "array of shape {shape:?}: expected 2-D (rows, features) or 1-D"
            ))
        }
    };
    if n_rows == 0 || n_cols == 0 {
        return Err(format!(
            "empty array of shape {shape:?} (expected at least one row and one column)"
        ));
    }
    Ok((n_rows, n_cols, one_d))
}

/// Parses NPY bytes as a numeric table (see the module doc).
pub(super) fn parse_npy<T: Scalar>(bytes: &[u8], name: &str) -> CliResult<Table<T>> {
    let bad = |msg: String| CliError::input(format!("{name}: {msg}"));
    check_npy_header(bytes).map_err(bad)?;
    let npy = npyz::NpyFile::new(bytes).map_err(|e| bad(format!("not a valid NPY file: {e}")))?;
    if npy.order() != npyz::Order::C {
        return Err(bad(
            "Fortran-order array: expected C order (save np.ascontiguousarray(x))".to_string(),
        ));
    }
    let shape = npy.shape().to_vec();
    let (n_rows, n_cols, one_d) = table_shape(&shape).map_err(bad)?;
    let dtype = npy.dtype().descr();
    let values: Vec<T> = match npy.try_data::<f64>() {
        Ok(reader) => reader
            .collect::<std::io::Result<Vec<f64>>>()
            .map_err(|e| bad(format!("cannot read the f64 data: {e}")))?
            .into_iter()
            .map(T::from_f64)
            .collect(),
        Err(npy) => match npy.try_data::<f32>() {
            Ok(reader) => reader
                .collect::<std::io::Result<Vec<f32>>>()
                .map_err(|e| bad(format!("cannot read the f32 data: {e}")))?
                .into_iter()
                .map(T::from_f32)
                .collect(),
            Err(_) => {
                return Err(bad(format!(
                    "dtype {dtype} is not supported (expected float32 or float64)"
                )))
            }
        },
    };
    if Some(values.len()) != n_rows.checked_mul(n_cols) {
        return Err(bad(format!(
            "{} values for shape {shape:?} (truncated file?)",
            values.len()
        )));
    }
    if let Some(at) = values.iter().position(|v| !v.finite()) {
        let (r, c) = (at / n_cols, at % n_cols);
        let index = if one_d {
            format!("[{r}]")
        } else {
            format!("[{r}, {c}]")
        };
        return Err(bad(format!(
            "element {index} (0-based) is {:?}, or out of the {} range: expected a finite number",
            values.get(at).copied().unwrap_or(T::from_f64(0.0)),
            T::NAME
        )));
    }
    Ok(Table {
        values,
        n_cols,
        header: None,
        origins: (0..n_rows).map(RowOrigin::NpyRow).collect(),
        one_d,
        name: name.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::parse_table;

    fn npy_bytes(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut header = format!(
            "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
            if fortran { "True" } else { "False" }
        );
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut out = NPY_MAGIC.to_vec();
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn npy_f64_f32_1d_and_errors() {
        let data: Vec<u8> = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let t: Table<f64> =
            parse_table(&npy_bytes("<f8", false, "(3, 2)", &data), "a.npy").unwrap();
        assert_eq!((t.n_rows(), t.n_cols), (3, 2));
        assert_eq!(t.values, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let data32: Vec<u8> = [0.5f32, 1.5, 2.5]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let t: Table<f32> =
            parse_table(&npy_bytes("<f4", false, "(3,)", &data32), "b.npy").unwrap();
        assert!(t.one_d);
        assert_eq!((t.n_rows(), t.n_cols), (3, 1));
        assert_eq!(t.clone().into_single_row().n_cols, 3);
        let e = parse_table::<f64>(&npy_bytes("<f8", true, "(3, 2)", &data), "c.npy").unwrap_err();
        assert!(e.to_string().contains("Fortran"));
        let ints: Vec<u8> = [1i32, 2].iter().flat_map(|v| v.to_le_bytes()).collect();
        let e = parse_table::<f64>(&npy_bytes("<i4", false, "(2,)", &ints), "d.npy").unwrap_err();
        assert!(e.to_string().contains("not supported"), "{e}");
        let nan: Vec<u8> = [1.0f64, f64::NAN]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let e = parse_table::<f64>(&npy_bytes("<f8", false, "(1, 2)", &nan), "e.npy").unwrap_err();
        assert!(e.to_string().contains("element [0, 1]"), "{e}");
        let e = parse_table::<f64>(&npy_bytes("<f8", false, "(0, 2)", &[]), "f.npy").unwrap_err();
        assert!(e.to_string().contains("empty array"), "{e}");
        let e =
            parse_table::<f64>(&npy_bytes("<f8", false, "(2, 2, 1)", &data), "g.npy").unwrap_err();
        assert!(e.to_string().contains("expected 2-D"), "{e}");
    }

    #[test]
    fn hostile_npy_headers_are_refused_quickly() {
        // Version 3 header claiming 4 GiB in an 18-byte file.
        let mut huge = b"\x93NUMPY\x03\x00".to_vec();
        huge.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, b'{', b'}', 0, 0, 0, 0]);
        let err = check_npy_header(&huge).unwrap_err();
        assert!(err.contains("exceeds the file"), "{err}");
        // Nested brackets in a version 1 header.
        let dict =
            b"{'descr': '<f8', 'fortran_order': False, 'shape': ((((((((((1,),),),),),),),),),), }";
        let mut nested = b"\x93NUMPY\x01\x00".to_vec();
        nested.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        nested.extend_from_slice(dict);
        let err = check_npy_header(&nested).unwrap_err();
        assert!(err.contains("opening brackets"), "{err}");
        // A plain header passes.
        let plain = b"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
        let mut ok = b"\x93NUMPY\x01\x00".to_vec();
        ok.extend_from_slice(&(plain.len() as u16).to_le_bytes());
        ok.extend_from_slice(plain);
        assert_eq!(check_npy_header(&ok), Ok(()));
    }
}
