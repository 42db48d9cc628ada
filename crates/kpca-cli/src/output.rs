//! Writing results: CSV with shortest round-trip floats, to a file or standard output.

use crate::error::{CliError, CliResult};
use std::fmt::Debug;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The shortest decimal text that parses back to exactly `v` (Rust's `Debug`
/// form: `0.1`, `1.0`, `1e-7`), for f32 and f64 alike. Non-finite values are
/// written as `NaN`, `inf`, `-inf`.
pub fn float_text<T: Debug>(v: T) -> String {
    format!("{v:?}")
}

/// An output destination: a file, or standard output for `-`.
pub struct Sink {
    name: String,
    writer: Box<dyn Write>,
}

impl Sink {
    /// Creates (truncates) the file, or takes standard output for `-`.
    pub fn create(arg: &Path) -> CliResult<Sink> {
        if arg.as_os_str() == "-" {
            return Ok(Sink {
                name: "<stdout>".into(),
                writer: Box::new(BufWriter::new(std::io::stdout().lock())),
            });
        }
        let file = File::create(arg)
            .map_err(|e| CliError::input(format!("{}: cannot create: {e}", arg.display())))?;
        Ok(Sink {
            name: arg.display().to_string(),
            writer: Box::new(BufWriter::new(file)),
        })
    }

    /// Writes one CSV row of text fields (quoted by the `csv` rules when needed).
    pub fn text_row<S: AsRef<str>>(&mut self, fields: &[S]) -> CliResult<()> {
        let mut line = String::new();
        for (i, f) in fields.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            let f = f.as_ref();
            if f.contains([',', '"', '\n', '\r', '#']) || f != f.trim() {
                line.push('"');
                line.push_str(&f.replace('"', "\"\""));
                line.push('"');
            } else {
                line.push_str(f);
            }
        }
        line.push('\n');
        self.write(line.as_bytes())
    }

    /// Writes one CSV row of floats in shortest round-trip form.
    pub fn float_row<T: Debug + Copy>(&mut self, values: &[T]) -> CliResult<()> {
        let fields: Vec<String> = values.iter().map(|&v| float_text(v)).collect();
        self.text_row(&fields)
    }

    fn write(&mut self, bytes: &[u8]) -> CliResult<()> {
        self.writer
            .write_all(bytes)
            .map_err(|e| CliError::input(format!("{}: cannot write: {e}", self.name)))
    }

    /// Flushes everything written.
    pub fn finish(mut self) -> CliResult<()> {
        self.writer
            .flush()
            .map_err(|e| CliError::input(format!("{}: cannot write: {e}", self.name)))
    }
}

/// Writes `bytes` to `path` (a file), naming the file on error.
pub fn write_file(path: &Path, bytes: &[u8]) -> CliResult<()> {
    std::fs::write(path, bytes)
        .map_err(|e| CliError::input(format!("{}: cannot write: {e}", path.display())))
}

/// Creates `dir` and its parents if needed.
pub fn ensure_dir(dir: &Path) -> CliResult<PathBuf> {
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::input(format!("{}: cannot create directory: {e}", dir.display())))?;
    Ok(dir.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_round_trip_in_shortest_form() {
        for v in [0.1f32, 1.0, 1e-7, f32::MIN, f32::MIN_POSITIVE, 1.0 / 3.0] {
            let t = float_text(v);
            assert_eq!(t.parse::<f32>().unwrap().to_bits(), v.to_bits(), "{t}");
        }
        assert_eq!(float_text(0.1f32), "0.1");
        for v in [0.1f64, 1.0 / 3.0, 1e300, 5e-324] {
            let t = float_text(v);
            assert_eq!(t.parse::<f64>().unwrap().to_bits(), v.to_bits(), "{t}");
        }
    }
}
