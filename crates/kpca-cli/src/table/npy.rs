//! The NPY side of the table reader.
//!
//! f32 or f64 arrays (little- or big-endian) in C order, 2-D (rows x
//! features) or 1-D (one column). The preamble and header dict are parsed by
//! `header` (npy/header.rs), which bounds the header by the file and reads it in one pass,
//! so hostile headers cost neither memory nor time. Errors name the file and,
//! for a bad value, the element (0-based, as numpy indexes it).

mod header;

pub(super) use header::{parse_header, read_preamble, Element, NpyHeader, NPY_MAGIC};

use super::{RowOrigin, Scalar, Table};
use crate::error::{CliError, CliResult};

/// The message for a Fortran-order array.
pub(super) const FORTRAN_ORDER: &str =
    "Fortran-order array: expected C order (save np.ascontiguousarray(x))";

/// The element type of `header`'s descr, or the message refusing it.
pub(super) fn element_of(header: &NpyHeader) -> Result<Element, String> {
    Element::from_descr(&header.descr).ok_or_else(|| {
        format!(
            "dtype '{}' is not supported (expected float32 or float64)",
            header.descr
        )
    })
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

/// Parses NPY bytes as a numeric table (see the module doc). Bytes after the
/// data are ignored, as numpy ignores them.
pub(super) fn parse_npy<T: Scalar>(bytes: &[u8], name: &str) -> CliResult<Table<T>> {
    let bad = |msg: String| CliError::input(format!("{name}: {msg}"));
    let header = parse_header(bytes).map_err(bad)?;
    if header.fortran_order {
        return Err(bad(FORTRAN_ORDER.to_string()));
    }
    let shape = &header.shape;
    let (n_rows, n_cols, one_d) = table_shape(shape).map_err(bad)?;
    let element = element_of(&header).map_err(bad)?;
    let data = &bytes[header.data_start..];
    let available = data.len() / element.size();
    let count = n_rows
        .checked_mul(n_cols)
        .filter(|&n| n <= available)
        .ok_or_else(|| {
            bad(format!(
                "{available} values for shape {shape:?} (truncated file?)"
            ))
        })?;
    let values: Vec<T> = data
        .chunks_exact(element.size())
        .take(count)
        .map(|b| element.decode(b))
        .collect();
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
        let e = parse_table::<f64>(&huge, "huge.npy").unwrap_err();
        assert!(e.to_string().contains("exceeds the file"), "{e}");
        // Nested brackets in a version 1 header.
        let nested = npy_bytes("<f8", false, "((((((((((1,),),),),),),),),),)", &[0; 8]);
        let e = parse_table::<f64>(&nested, "nested.npy").unwrap_err();
        assert!(e.to_string().contains("opening brackets"), "{e}");
    }

    #[test]
    fn big_endian_and_short_data_as_numpy_defines_them() {
        let be: Vec<u8> = [1.5f64, -2.0]
            .iter()
            .flat_map(|v| v.to_be_bytes())
            .collect();
        let t: Table<f64> = parse_table(&npy_bytes(">f8", false, "(1, 2)", &be), "be.npy").unwrap();
        assert_eq!(t.values, vec![1.5, -2.0]);
        let be32: Vec<u8> = [0.25f32, 4.0]
            .iter()
            .flat_map(|v| v.to_be_bytes())
            .collect();
        let t: Table<f32> =
            parse_table(&npy_bytes(">f4", false, "(2,)", &be32), "be32.npy").unwrap();
        assert_eq!(t.values, vec![0.25, 4.0]);
        // Trailing bytes after the data are ignored; missing ones are an error.
        let mut long = be.clone();
        long.extend_from_slice(&[0xAB; 5]);
        let t: Table<f64> =
            parse_table(&npy_bytes(">f8", false, "(2,)", &long), "long.npy").unwrap();
        assert_eq!(t.values, vec![1.5, -2.0]);
        let e =
            parse_table::<f64>(&npy_bytes(">f8", false, "(3,)", &long), "short.npy").unwrap_err();
        assert!(
            e.to_string()
                .contains("2 values for shape [3] (truncated file?)"),
            "{e}"
        );
        // A shape whose element count overflows is refused without allocating.
        let e = parse_table::<f64>(
            &npy_bytes("<f8", false, "(18446744073709551615, 2)", &be),
            "huge-shape.npy",
        )
        .unwrap_err();
        assert!(e.to_string().contains("truncated file?"), "{e}");
    }
}
