//! Reading numeric tables (CSV or NPY), label lists and index lists.
//!
//! CSV: fields separated by commas, or by runs of spaces and tabs when the first
//! data line has no comma; `#` starts a comment that runs to the end of the line;
//! blank lines are skipped; the first line is a header when none of its fields is
//! a number. Parsing and quoting are the `csv` crate's.
//!
//! NPY: f32 or f64, C order, 2-D (rows x features) or 1-D (one column), read
//! with the `npyz` crate. A file is taken as NPY when it starts with the NPY magic
//! bytes, whatever its name, so `-` (standard input) works for both.
//!
//! Every error names the file, the line and column (1-based) or, for NPY, the
//! element (0-based, as numpy indexes it), and says what was expected.

use crate::error::{CliError, CliResult};
use std::fmt::Debug;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The magic bytes at the start of every NPY file.
const NPY_MAGIC: &[u8] = b"\x93NUMPY";

/// A float type a table can be read as.
pub trait Scalar: Copy + Debug + FromStr + PartialEq + 'static {
    /// Type name for messages.
    const NAME: &'static str;
    /// Whether the value is finite.
    fn finite(self) -> bool;
    /// Conversion from an f64 element of an NPY file (rounding to nearest).
    fn from_f64(v: f64) -> Self;
    /// Conversion from an f32 element of an NPY file (exact).
    fn from_f32(v: f32) -> Self;
}

impl Scalar for f64 {
    const NAME: &'static str = "f64";
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn from_f64(v: f64) -> Self {
        v
    }
    fn from_f32(v: f32) -> Self {
        f64::from(v)
    }
}

impl Scalar for f32 {
    const NAME: &'static str = "f32";
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn from_f64(v: f64) -> Self {
        // Round to nearest, as the firmware would when converting.
        v as f32
    }
    fn from_f32(v: f32) -> Self {
        v
    }
}

/// Where a table comes from: a file path or standard input (`-`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Source {
    /// `-` is standard input, anything else a path.
    pub fn from_arg(arg: &Path) -> Source {
        if arg.as_os_str() == "-" {
            Source::Stdin
        } else {
            Source::File(arg.to_path_buf())
        }
    }

    /// The name used in messages.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin => "<stdin>".to_string(),
            Source::File(p) => p.display().to_string(),
        }
    }

    /// Reads all bytes.
    pub fn read_all(&self) -> CliResult<Vec<u8>> {
        let mut bytes = Vec::new();
        match self {
            Source::Stdin => std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .map(|_| ())
                .map_err(|e| CliError::input(format!("<stdin>: cannot read: {e}")))?,
            Source::File(p) => {
                bytes = std::fs::read(p)
                    .map_err(|e| CliError::input(format!("{}: cannot read: {e}", p.display())))?;
            }
        }
        Ok(bytes)
    }
}

/// Where a row of a table came from, for messages about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowOrigin {
    /// 1-based line of a CSV file.
    Line(u64),
    /// 0-based row of an NPY array.
    NpyRow(usize),
}

impl std::fmt::Display for RowOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowOrigin::Line(l) => write!(f, "line {l}"),
            RowOrigin::NpyRow(r) => write!(f, "row {r} (0-based)"),
        }
    }
}

/// A numeric table read from a file: row-major values.
#[derive(Clone, Debug, PartialEq)]
pub struct Table<T> {
    /// The values, row-major, all finite.
    pub values: Vec<T>,
    /// Number of columns (features); at least 1.
    pub n_cols: usize,
    /// Column names when the CSV file had a header line.
    pub header: Option<Vec<String>>,
    /// Where each row came from.
    pub origins: Vec<RowOrigin>,
    /// Whether the data was a 1-D NPY array (read as one column).
    pub one_d: bool,
    /// The source's name, for messages.
    pub name: String,
}

impl<T: Copy> Table<T> {
    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.origins.len()
    }

    /// The rows.
    pub fn rows(&self) -> std::slice::ChunksExact<'_, T> {
        self.values.chunks_exact(self.n_cols)
    }

    /// A 1-D array read as one column becomes one row (for a single vector).
    pub fn into_single_row(self) -> Table<T> {
        let n = self.values.len();
        Table {
            values: self.values,
            n_cols: n,
            header: None,
            origins: vec![RowOrigin::NpyRow(0)],
            one_d: true,
            name: self.name,
        }
    }
}

/// Reads a numeric table (CSV or NPY) from a path or `-`.
pub fn read_table<T: Scalar>(arg: &Path) -> CliResult<Table<T>> {
    let source = Source::from_arg(arg);
    let bytes = source.read_all()?;
    parse_table(&bytes, &source.name())
}

/// Parses a numeric table from bytes (`name` is used in messages).
pub fn parse_table<T: Scalar>(bytes: &[u8], name: &str) -> CliResult<Table<T>> {
    if bytes.starts_with(NPY_MAGIC) {
        parse_npy(bytes, name)
    } else {
        parse_csv(bytes, name)
    }
}

/// One CSV record after comment removal: its 1-based line and trimmed fields.
struct Record {
    line: u64,
    fields: Vec<String>,
}

/// Splits CSV text into non-blank records. Handles `#` comments, comma or
/// whitespace separation and blank lines; reports invalid UTF-8 by position.
fn csv_records(bytes: &[u8], name: &str) -> CliResult<Vec<Record>> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let upto = bytes.get(..e.valid_up_to()).unwrap_or(&[]);
        let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
        CliError::input(format!(
            "{name}: line {line}: not UTF-8 text (expected a CSV file, or an NPY file \
             starting with the NPY magic bytes)"
        ))
    })?;
    // Remove comments, keeping every line (and so the line numbers).
    let mut cleaned = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (content, newline) = match line.strip_suffix('\n') {
            Some(c) => (c, "\n"),
            None => (line, ""),
        };
        let content = content.split('#').next().unwrap_or("");
        cleaned.push_str(content.trim_end_matches('\r'));
        cleaned.push_str(newline);
    }
    let comma = cleaned
        .lines()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.contains(','));
    let delimiter = if comma {
        b','
    } else {
        cleaned = cleaned.replace('\t', " ");
        b' '
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .trim(csv::Trim::All)
        .from_reader(cleaned.as_bytes());
    let newlines: Vec<u64> = cleaned
        .bytes()
        .enumerate()
        .filter(|&(_, b)| b == b'\n')
        .map(|(i, _)| i as u64)
        .collect();
    let mut records = Vec::new();
    for result in reader.records() {
        let record = result.map_err(|e| {
            let at = e
                .position()
                .map(|p| {
                    let start = skip_newlines(cleaned.as_bytes(), p.byte());
                    format!("line {}: ", line_of(&newlines, start))
                })
                .unwrap_or_default();
            CliError::input(format!("{name}: {at}cannot parse CSV: {e}"))
        })?;
        // The csv crate's position of a record that follows blank lines is the
        // start of those blank lines (and its line count misses them), so the
        // line is found from the first byte after them, in the cleaned text
        // (which has the same lines as the file).
        let line = record
            .position()
            .map(|p| line_of(&newlines, skip_newlines(cleaned.as_bytes(), p.byte())))
            .unwrap_or(0);
        let mut fields: Vec<String> = record.iter().map(str::to_string).collect();
        if !comma {
            fields.retain(|f| !f.is_empty());
        }
        if fields.iter().all(String::is_empty) {
            continue;
        }
        records.push(Record { line, fields });
    }
    Ok(records)
}

/// The 1-based line of byte `offset`, given the offsets of every newline.
fn line_of(newlines: &[u64], offset: u64) -> u64 {
    newlines.partition_point(|&n| n < offset) as u64 + 1
}

/// The offset of the first byte at or after `offset` that is not a newline.
fn skip_newlines(text: &[u8], offset: u64) -> u64 {
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    let skipped = text
        .get(start..)
        .map(|rest| rest.iter().take_while(|&&b| b == b'\n').count())
        .unwrap_or(0);
    offset + skipped as u64
}

fn is_number(field: &str) -> bool {
    field.parse::<f64>().is_ok()
}

/// Parses one field as a finite `T`, or says what is wrong with it.
fn parse_field<T: Scalar>(field: &str, name: &str, line: u64, col: usize) -> CliResult<T> {
    let at = || format!("{name}: line {line}, column {col}");
    if field.is_empty() {
        return Err(CliError::input(format!(
            "{}: empty field (expected a number)",
            at()
        )));
    }
    let value: T = field
        .parse()
        .map_err(|_| CliError::input(format!("{}: expected a number, found {field:?}", at())))?;
    if !value.finite() {
        let wide = field.parse::<f64>().ok();
        let why = match wide {
            Some(v) if v.is_nan() => "NaN is not allowed (expected a finite number)".to_string(),
            Some(v) if v.is_infinite() => {
                "infinity is not allowed (expected a finite number)".to_string()
            }
            _ => format!("{field} is out of the {} range", T::NAME),
        };
        return Err(CliError::input(format!("{}: {why}", at())));
    }
    Ok(value)
}

fn parse_csv<T: Scalar>(bytes: &[u8], name: &str) -> CliResult<Table<T>> {
    let records = csv_records(bytes, name)?;
    let mut iter = records.into_iter().peekable();
    let header = match iter.peek() {
        None => {
            return Err(CliError::input(format!(
                "{name}: empty file (expected rows of numbers)"
            )))
        }
        Some(first) if !first.fields.iter().any(|f| is_number(f)) => iter.next().map(|r| r.fields),
        Some(_) => None,
    };
    let n_cols = header.as_ref().map(Vec::len);
    let mut n_cols = n_cols.unwrap_or(0);
    let mut values = Vec::new();
    let mut origins = Vec::new();
    let mut first_line = 0;
    for record in iter {
        if origins.is_empty() && header.is_none() {
            n_cols = record.fields.len();
        }
        if origins.is_empty() {
            first_line = record.line;
        }
        if record.fields.len() != n_cols {
            let what = if header.is_some() && origins.is_empty() {
                "the header".to_string()
            } else {
                format!("line {first_line}")
            };
            return Err(CliError::input(format!(
                "{name}: line {}: ragged row: {} values, but {what} has {n_cols}",
                record.line,
                record.fields.len()
            )));
        }
        for (j, field) in record.fields.iter().enumerate() {
            values.push(parse_field::<T>(field, name, record.line, j + 1)?);
        }
        origins.push(RowOrigin::Line(record.line));
    }
    if origins.is_empty() {
        return Err(CliError::input(format!(
            "{name}: no data rows (only a header line)"
        )));
    }
    Ok(Table {
        values,
        n_cols,
        header,
        origins,
        one_d: false,
        name: name.to_string(),
    })
}

/// Most opening brackets a real NPY header dict has: `{` and the shape's `(`
/// (and one `[` in a structured descr, which we do not read anyway).
const MAX_NPY_HEADER_BRACKETS: usize = 3;

/// Checks the NPY preamble before the header is handed to npyz: the declared
/// header length must fit in the file (npyz allocates it first, so an 18-byte
/// file could ask for 4 GiB), and the header must be a plain dict (npyz parses
/// it with a backtracking parser that takes exponential time on nested
/// brackets). Files that are not NPY version 1-3 are left to npyz to reject.
fn check_npy_header(bytes: &[u8]) -> Result<(), String> {
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

fn parse_npy<T: Scalar>(bytes: &[u8], name: &str) -> CliResult<Table<T>> {
    let bad = |msg: String| CliError::input(format!("{name}: {msg}"));
    check_npy_header(bytes).map_err(bad)?;
    let npy = npyz::NpyFile::new(bytes).map_err(|e| bad(format!("not a valid NPY file: {e}")))?;
    if npy.order() != npyz::Order::C {
        return Err(bad(
            "Fortran-order array: expected C order (save np.ascontiguousarray(x))".to_string(),
        ));
    }
    let shape = npy.shape().to_vec();
    let to_usize =
        |v: u64| usize::try_from(v).map_err(|_| bad(format!("shape {shape:?} too large")));
    let (n_rows, n_cols, one_d) = match shape.as_slice() {
        [n] => (to_usize(*n)?, 1, true),
        [n, d] => (to_usize(*n)?, to_usize(*d)?, false),
        _ => {
            return Err(bad(format!(
                "array of shape {shape:?}: expected 2-D (rows, features) or 1-D"
            )))
        }
    };
    if n_rows == 0 || n_cols == 0 {
        return Err(bad(format!(
            "empty array of shape {shape:?} (expected at least one row and one column)"
        )));
    }
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

/// Reads a list of labels, one per line (the first field of each line is used;
/// `#` comments and blank lines are skipped). With `n_rows` given, a list one
/// longer than that has a header line, which is dropped.
pub fn read_labels(arg: &Path, n_rows: usize) -> CliResult<Vec<String>> {
    let source = Source::from_arg(arg);
    let name = source.name();
    let bytes = source.read_all()?;
    let records = csv_records(&bytes, &name)?;
    let mut labels: Vec<String> = records
        .into_iter()
        .map(|r| r.fields.into_iter().next().unwrap_or_default())
        .collect();
    if labels.len() == n_rows + 1 {
        labels.remove(0);
    }
    if labels.len() != n_rows {
        return Err(CliError::input(format!(
            "{name}: {} labels, but the data has {n_rows} rows (expected one label per row, \
             optionally after a header line)",
            labels.len()
        )));
    }
    Ok(labels)
}

/// Reads 0-based row indices, one per line (a header line is allowed).
pub fn read_indices(arg: &Path) -> CliResult<Vec<usize>> {
    let source = Source::from_arg(arg);
    let name = source.name();
    let bytes = source.read_all()?;
    let records = csv_records(&bytes, &name)?;
    let mut out = Vec::with_capacity(records.len());
    for (i, record) in records.iter().enumerate() {
        if record.fields.len() != 1 {
            return Err(CliError::input(format!(
                "{name}: line {}: {} values (expected one 0-based row index per line)",
                record.line,
                record.fields.len()
            )));
        }
        let field = record.fields.first().map(String::as_str).unwrap_or("");
        match field.parse::<usize>() {
            Ok(v) => out.push(v),
            Err(_) if i == 0 && !is_number(field) => {} // header line
            Err(_) => {
                return Err(CliError::input(format!(
                    "{name}: line {}, column 1: expected a 0-based row index (an integer >= 0), \
                     found {field:?}",
                    record.line
                )))
            }
        }
    }
    if out.is_empty() {
        return Err(CliError::input(format!(
            "{name}: empty file (expected 0-based row indices, one per line)"
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(text: &str) -> CliResult<Table<f64>> {
        parse_table(text.as_bytes(), "t.csv")
    }

    fn err(text: &str) -> String {
        match csv(text) {
            Ok(t) => panic!("expected an error, got {t:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn comma_whitespace_header_comments() {
        let t = csv("# a comment\nx,y\n1,2 # trailing\n\n3.5, -4e-3\n").unwrap();
        assert_eq!(t.n_cols, 2);
        assert_eq!(t.values, vec![1.0, 2.0, 3.5, -4e-3]);
        assert_eq!(t.header, Some(vec!["x".to_string(), "y".to_string()]));
        assert_eq!(t.origins, vec![RowOrigin::Line(3), RowOrigin::Line(5)]);
        let t = csv("\n\n1,2\n\n\n# c\n3,4\n\n5,6").unwrap();
        let lines = [3, 7, 9].map(RowOrigin::Line).to_vec();
        assert_eq!(t.origins, lines);
        let t = csv("1 2\r\n\r\n\r\n3 4\r\n").unwrap();
        assert_eq!(t.origins, [1, 4].map(RowOrigin::Line).to_vec());
        let e = err("1,2\n\n\n3,4\n\n5,x\n");
        assert!(e.contains("line 6, column 2"), "{e}");
        let w = csv("1  2\t3\n  4 5 6\r\n").unwrap();
        assert_eq!(w.n_cols, 3);
        assert_eq!(w.values, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(w.header, None);
    }

    #[test]
    fn errors_name_line_column_and_expectation() {
        assert!(err("").contains("t.csv: empty file"));
        assert!(err("# only\n\n").contains("empty file"));
        assert!(err("a,b\n").contains("no data rows"));
        let e = err("1,2\n3,4\n5\n");
        assert!(
            e.contains("line 3: ragged row: 1 values, but line 1 has 2"),
            "{e}"
        );
        let e = err("1,2\n3,abc\n");
        assert!(
            e.contains("line 2, column 2: expected a number, found \"abc\""),
            "{e}"
        );
        let e = err("1,2\nNaN,4\n");
        assert!(e.contains("line 2, column 1: NaN is not allowed"), "{e}");
        let e = err("1,inf\n");
        assert!(e.contains("line 1, column 2: infinity"), "{e}");
        let e = err("1,,3\n");
        assert!(e.contains("line 1, column 2: empty field"), "{e}");
        let e = err("1,x\n");
        assert!(e.contains("line 1, column 2: expected a number"), "{e}");
        let f32_err = parse_table::<f32>(b"1e40\n", "t.csv")
            .unwrap_err()
            .to_string();
        assert!(f32_err.contains("out of the f32 range"), "{f32_err}");
        let e = err("\u{0}\u{ff}\n");
        assert!(!e.is_empty());
        let bad_utf8 = parse_table::<f64>(b"1,2\n\xff\n", "t.csv").unwrap_err();
        assert!(bad_utf8.to_string().contains("line 2: not UTF-8"));
    }

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
