//! Reading a CSV or NPY file in chunks of rows, as many times as a streamed
//! fit asks (`kpca_fit::stream::RowSource`): memory O(chunk), whatever the
//! file's size. The rules are the in-memory reader's (the CSV blocks go
//! through the same record splitter, the NPY preamble through the same
//! check), and so are the messages; a chunk is handed over as a [`Table`]
//! with its rows' origins so the checks of a whole table apply to it.

use super::csv::{is_number, parse_field, ragged_row, records_of_block};
use super::npy::{
    element_of, parse_header, read_preamble, table_shape, Element, FORTRAN_ORDER, NPY_MAGIC,
};
use super::{RowOrigin, Table};
use crate::error::{CliError, CliResult};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Rows per chunk handed to the fit.
pub const CHUNK_ROWS: usize = 16_384;

/// Bytes of CSV text read at a time (cut at the last whole line).
const CSV_BLOCK_BYTES: usize = 4 << 20;

/// The longest NPY header a streamed read accepts (real ones are < 1 KiB).
const MAX_NPY_HEADER: usize = 1 << 20;

/// The file's layout, found once when it is opened.
#[derive(Clone, Debug)]
enum Layout {
    /// C-order NPY data from byte `start`.
    Npy {
        start: u64,
        n_rows: usize,
        element: Element,
    },
    /// CSV text with this delimiter (and a header line when `header` is set).
    Csv { delimiter: u8 },
}

/// A CSV or NPY file read in chunks of [`CHUNK_ROWS`] rows.
#[derive(Debug)]
pub struct ChunkedFile {
    path: PathBuf,
    name: String,
    layout: Layout,
    n_cols: usize,
    header: Option<Vec<String>>,
    len: u64,
}

impl ChunkedFile {
    /// Opens `path` (a file: standard input cannot be read more than once)
    /// and reads its layout: the NPY header, or the CSV delimiter and header.
    pub fn open(path: &Path) -> CliResult<ChunkedFile> {
        let name = path.display().to_string();
        let cannot = |e: std::io::Error| CliError::input(format!("{name}: cannot read: {e}"));
        let mut file = File::open(path).map_err(cannot)?;
        let len = file.metadata().map_err(cannot)?.len();
        let mut head = Vec::new();
        (&mut file)
            .take(CSV_BLOCK_BYTES as u64)
            .read_to_end(&mut head)
            .map_err(cannot)?;
        let (layout, n_cols, header) = if head.starts_with(NPY_MAGIC) {
            npy_layout(&head, &name, len)?
        } else {
            csv_layout(&head, &name, len)?
        };
        Ok(ChunkedFile {
            path: path.to_path_buf(),
            name,
            layout,
            n_cols,
            header,
            len,
        })
    }

    /// The name used in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of columns (features).
    pub fn n_cols(&self) -> usize {
        self.n_cols
    }

    /// The file's size in bytes.
    pub fn len_bytes(&self) -> u64 {
        self.len
    }

    /// The number of rows, when the layout says it (NPY).
    pub fn known_rows(&self) -> Option<usize> {
        match self.layout {
            Layout::Npy { n_rows, .. } => Some(n_rows),
            Layout::Csv { .. } => None,
        }
    }

    /// Reads every row in order, handing chunks of at most [`CHUNK_ROWS`]
    /// rows to `use_chunk` with the bytes read so far; stops at its first
    /// error.
    pub fn for_each_chunk<E: From<CliError>>(
        &self,
        use_chunk: &mut dyn FnMut(Table<f64>, u64) -> Result<(), E>,
    ) -> Result<(), E> {
        let cannot =
            |e: std::io::Error| CliError::input(format!("{}: cannot read: {e}", self.name));
        let file = File::open(&self.path).map_err(cannot)?;
        match self.layout {
            Layout::Npy {
                start,
                n_rows,
                element,
            } => self.npy_chunks(file, start, n_rows, element, use_chunk),
            Layout::Csv { delimiter } => self.csv_chunks(file, delimiter, use_chunk),
        }
    }

    /// A chunk as a table of this file.
    fn table(&self, values: Vec<f64>, origins: Vec<RowOrigin>) -> Table<f64> {
        Table {
            values,
            n_cols: self.n_cols,
            header: self.header.clone(),
            origins,
            one_d: false,
            name: self.name.clone(),
        }
    }

    fn npy_chunks<E: From<CliError>>(
        &self,
        mut file: File,
        start: u64,
        n_rows: usize,
        element: Element,
        use_chunk: &mut dyn FnMut(Table<f64>, u64) -> Result<(), E>,
    ) -> Result<(), E> {
        let cannot =
            |e: std::io::Error| CliError::input(format!("{}: cannot read: {e}", self.name));
        file.seek(SeekFrom::Start(start)).map_err(cannot)?;
        let mut reader = BufReader::with_capacity(1 << 20, file);
        let row_bytes = self.n_cols * element.size();
        let mut bytes = vec![0u8; CHUNK_ROWS * row_bytes];
        let mut first = 0usize;
        while first < n_rows {
            let rows = CHUNK_ROWS.min(n_rows - first);
            let buf = &mut bytes[..rows * row_bytes];
            reader.read_exact(buf).map_err(|e| {
                CliError::input(format!(
                    "{}: the data ends before row {} of {n_rows} (truncated file?): {e}",
                    self.name,
                    first + 1
                ))
            })?;
            let values: Vec<f64> = buf
                .chunks_exact(element.size())
                .map(|b| element.decode::<f64>(b))
                .collect();
            if let Some(at) = values.iter().position(|v| !v.is_finite()) {
                return Err(CliError::input(format!(
                    "{}: element [{}, {}] (0-based) is {:?}: expected a finite number",
                    self.name,
                    first + at / self.n_cols,
                    at % self.n_cols,
                    values[at]
                ))
                .into());
            }
            let origins = (first..first + rows).map(RowOrigin::NpyRow).collect();
            first += rows;
            let done = start + (first * row_bytes) as u64;
            use_chunk(self.table(values, origins), done)?;
        }
        Ok(())
    }

    fn csv_chunks<E: From<CliError>>(
        &self,
        file: File,
        delimiter: u8,
        use_chunk: &mut dyn FnMut(Table<f64>, u64) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut lines = CsvLines::new(file, &self.name);
        let mut skip_header = self.header.is_some();
        let (mut values, mut origins) = (Vec::new(), Vec::new());
        let (mut rows_seen, mut first_data_line) = (0usize, 0u64);
        while let Some((block, first_line)) = lines.next_block()? {
            let (records, _) = records_of_block(&block, &self.name, first_line, Some(delimiter))?;
            for record in records {
                if std::mem::take(&mut skip_header) {
                    continue;
                }
                if record.fields.len() != self.n_cols {
                    let first_data_line = (rows_seen > 0).then_some(first_data_line);
                    return Err(
                        ragged_row(&self.name, &record, self.n_cols, first_data_line).into(),
                    );
                }
                if rows_seen == 0 {
                    first_data_line = record.line;
                }
                rows_seen += 1;
                for (j, field) in record.fields.iter().enumerate() {
                    values.push(parse_field::<f64>(field, &self.name, record.line, j + 1)?);
                }
                origins.push(RowOrigin::Line(record.line));
                if origins.len() == CHUNK_ROWS {
                    let chunk =
                        self.table(std::mem::take(&mut values), std::mem::take(&mut origins));
                    use_chunk(chunk, lines.consumed)?;
                }
            }
        }
        if !origins.is_empty() {
            use_chunk(self.table(values, origins), lines.consumed)?;
        }
        Ok(())
    }
}

/// A CSV file read in blocks of whole lines.
struct CsvLines<'a> {
    reader: BufReader<File>,
    name: &'a str,
    carry: Vec<u8>,
    next_line: u64,
    consumed: u64,
    done: bool,
}

impl<'a> CsvLines<'a> {
    fn new(file: File, name: &'a str) -> Self {
        CsvLines {
            reader: BufReader::with_capacity(1 << 20, file),
            name,
            carry: Vec::new(),
            next_line: 1,
            consumed: 0,
            done: false,
        }
    }

    /// The next block of whole lines and its first line number.
    fn next_block(&mut self) -> CliResult<Option<(Vec<u8>, u64)>> {
        loop {
            if self.done && self.carry.is_empty() {
                return Ok(None);
            }
            if !self.done {
                let got = (&mut self.reader)
                    .take(CSV_BLOCK_BYTES as u64)
                    .read_to_end(&mut self.carry)
                    .map_err(|e| CliError::input(format!("{}: cannot read: {e}", self.name)))?;
                self.done = got == 0;
            }
            let cut = match self.carry.iter().rposition(|&b| b == b'\n') {
                Some(at) => at + 1,
                None if self.done => self.carry.len(),
                None => continue,
            };
            let rest = self.carry.split_off(cut);
            let block = std::mem::replace(&mut self.carry, rest);
            let first = self.next_line;
            self.next_line += block.iter().filter(|&&b| b == b'\n').count() as u64;
            self.consumed += block.len() as u64;
            return Ok(Some((block, first)));
        }
    }
}

/// The layout of an NPY file from its first bytes `head` (file length `len`).
fn npy_layout(
    head: &[u8],
    name: &str,
    len: u64,
) -> CliResult<(Layout, usize, Option<Vec<String>>)> {
    let bad = |msg: String| CliError::input(format!("{name}: {msg}"));
    let preamble = read_preamble(head).map_err(bad)?;
    let header_len = preamble.header_len;
    if header_len > MAX_NPY_HEADER {
        return Err(bad(format!(
            "NPY header of {header_len} bytes: expected a plain dict"
        )));
    }
    let start = preamble.header_start + header_len;
    let header = head.get(..start).ok_or_else(|| {
        bad(format!(
            "NPY header length {header_len} exceeds the file ({len} bytes)"
        ))
    })?;
    let header = parse_header(header).map_err(bad)?;
    if header.fortran_order {
        return Err(bad(FORTRAN_ORDER.to_string()));
    }
    let shape = &header.shape;
    let (n_rows, n_cols, _) = table_shape(shape).map_err(bad)?;
    let element = element_of(&header).map_err(bad)?;
    let descr = &header.descr;
    let data = (n_rows as u128) * (n_cols as u128) * element.size() as u128;
    if (start as u128) + data > u128::from(len) {
        return Err(bad(format!(
            "{len} bytes, but shape {shape:?} of '{descr}' needs {} after the header (truncated file?)",
            data
        )));
    }
    let layout = Layout::Npy {
        start: start as u64,
        n_rows,
        element,
    };
    Ok((layout, n_cols, None))
}

/// The layout of a CSV file from its first block `head`: the delimiter, the
/// number of columns, and the header line when its fields are not numbers.
fn csv_layout(
    head: &[u8],
    name: &str,
    len: u64,
) -> CliResult<(Layout, usize, Option<Vec<String>>)> {
    let whole = head.len() as u64 == len;
    let cut = match head.iter().rposition(|&b| b == b'\n') {
        Some(at) if !whole => at + 1,
        _ => head.len(),
    };
    let (records, delimiter) = records_of_block(&head[..cut], name, 1, None)?;
    let mut iter = records.into_iter();
    let first = iter
        .next()
        .ok_or_else(|| CliError::input(format!("{name}: empty file (expected rows of numbers)")))?;
    let header = (!first.fields.iter().any(|f| is_number(f))).then(|| first.fields.clone());
    if header.is_some() && iter.next().is_none() && whole {
        return Err(CliError::input(format!(
            "{name}: no data rows (only a header line)"
        )));
    }
    let n_cols = first.fields.len();
    Ok((Layout::Csv { delimiter }, n_cols, header))
}
