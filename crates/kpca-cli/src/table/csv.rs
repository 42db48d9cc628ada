//! The CSV side of the table reader.
//!
//! Fields are separated by commas, or by runs of spaces and tabs when the first
//! data line has no comma; `#` starts a comment that runs to the end of the
//! line; blank lines are skipped. For a numeric table the first line is a header
//! when none of its fields is a number, and every other field must be a finite
//! number. Parsing and quoting are the `csv` crate's. Errors name the file, the
//! line and the column (1-based) and say what was expected.

use super::{RowOrigin, Scalar, Table};
use crate::error::{CliError, CliResult};

/// One CSV record after comment removal: its 1-based line and trimmed fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// 1-based line of the file.
    pub line: u64,
    /// The fields, trimmed of surrounding whitespace.
    pub fields: Vec<String>,
}

/// Splits CSV text into non-blank records, the header line (if any) included:
/// the rules of the module doc without the numeric part, for tables that hold
/// text (label lists, or a data set with text columns). Handles `#` comments,
/// comma or whitespace separation and blank lines; reports invalid UTF-8 by
/// line. `name` is used in messages.
pub fn records(bytes: &[u8], name: &str) -> CliResult<Vec<Record>> {
    records_of_block(bytes, name, 1, None).map(|(records, _)| records)
}

/// [`records`] of a block of whole lines that starts at 1-based line
/// `first_line` of its file, with the delimiter of the file's first data line
/// when it is known (`Some(b',')` or `Some(b' ')`; `None`: decided from this
/// block, as [`records`] does). Returns the records and the delimiter.
pub(super) fn records_of_block(
    bytes: &[u8],
    name: &str,
    first_line: u64,
    delimiter: Option<u8>,
) -> CliResult<(Vec<Record>, u8)> {
    let offset = first_line.saturating_sub(1);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let upto = bytes.get(..e.valid_up_to()).unwrap_or(&[]);
        let line = upto.iter().filter(|&&b| b == b'\n').count() as u64 + 1 + offset;
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
    let comma = match delimiter {
        Some(delimiter) => delimiter == b',',
        None => cleaned
            .lines()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.contains(',')),
    };
    let delimiter = if comma {
        b','
    } else {
        cleaned = cleaned.replace('\t', " ");
        b' '
    };
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .trim(::csv::Trim::All)
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
                    format!("line {}: ", line_of(&newlines, start) + offset)
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
            .map(|p| line_of(&newlines, skip_newlines(cleaned.as_bytes(), p.byte())) + offset)
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
    Ok((records, delimiter))
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

/// Whether `field` reads as a number (a header line has none).
pub(super) fn is_number(field: &str) -> bool {
    field.parse::<f64>().is_ok()
}

/// Parses one field as a finite `T`, or says what is wrong with it.
pub(super) fn parse_field<T: Scalar>(
    field: &str,
    name: &str,
    line: u64,
    col: usize,
) -> CliResult<T> {
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

/// The error of `record` when the table has `n_cols` columns: named against
/// the first data line when there is one before it (`first_data_line`), else
/// against the header that set the count.
pub(super) fn ragged_row(
    name: &str,
    record: &Record,
    n_cols: usize,
    first_data_line: Option<u64>,
) -> CliError {
    let what = match first_data_line {
        Some(line) => format!("line {line}"),
        None => "the header".to_string(),
    };
    CliError::input(format!(
        "{name}: line {}: ragged row: {} values, but {what} has {n_cols}",
        record.line,
        record.fields.len()
    ))
}

/// Parses CSV bytes as a numeric table (see the module doc).
pub(super) fn parse_csv<T: Scalar>(bytes: &[u8], name: &str) -> CliResult<Table<T>> {
    let records = records(bytes, name)?;
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
            let first_data_line = (!origins.is_empty()).then_some(first_line);
            return Err(ragged_row(name, &record, n_cols, first_data_line));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::parse_table;

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
}
