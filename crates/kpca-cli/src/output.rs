//! Writing results: CSV with shortest round-trip floats, to a file or standard
//! output (`-`), and the [`Console`] every subcommand's messages go through.
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe fails with `BrokenPipe`
//! (and `println!` would panic on it): every write to standard output goes
//! through [`Sink`], [`write_output`] or [`Console::report`], which turn that
//! error into [`CliError::OutputClosed`], a quiet exit 0. Messages on standard
//! error never fail a command (there is nowhere left to report that).

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

/// Whether a path argument is `-`, standard output (or input).
pub fn is_stdout(arg: &Path) -> bool {
    arg.as_os_str() == "-"
}

/// The name of an output argument in messages: the path, or `<stdout>` for `-`.
pub fn output_name(arg: &Path) -> String {
    if is_stdout(arg) {
        "<stdout>".into()
    } else {
        arg.display().to_string()
    }
}

/// Writes `bytes` to standard output and flushes; a closed pipe is
/// [`CliError::OutputClosed`].
pub fn write_stdout(bytes: &[u8]) -> CliResult<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| CliError::write_failed("<stdout>", &e))
}

/// Writes one line to standard error, ignoring failure (a closed standard
/// error leaves nowhere to say so).
pub fn stderr_line(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

/// Where a subcommand's messages go. The report (what was done, the model's
/// numbers) goes to standard output, or to standard error when the command's
/// main output (a model blob, an SVG, a CSV) is written to standard output;
/// `--quiet` drops it. Hints (a model that is likely useless) go to standard
/// error unless `--quiet`; warnings always do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Console {
    report_on_stderr: bool,
    quiet: bool,
}

impl Console {
    /// The console of a command whose main output goes to standard output
    /// (`main_on_stdout`), with or without `--quiet`.
    pub fn new(main_on_stdout: bool, quiet: bool) -> Console {
        Console {
            report_on_stderr: main_on_stdout,
            quiet,
        }
    }

    /// Whether the report is shown at all (not `--quiet`).
    pub fn reports(&self) -> bool {
        !self.quiet
    }

    /// One line of the report.
    pub fn report(&self, line: &str) -> CliResult<()> {
        if self.quiet {
            return Ok(());
        }
        if self.report_on_stderr {
            stderr_line(line);
            Ok(())
        } else {
            write_stdout(format!("{line}\n").as_bytes())
        }
    }

    /// A one-line hint on standard error, `kpca: hint: ...`, unless `--quiet`.
    pub fn hint(&self, text: &str) {
        if !self.quiet {
            stderr_line(&format!("kpca: hint: {text}"));
        }
    }

    /// A warning on standard error, `kpca: warning: ...` (also with `--quiet`).
    pub fn warning(&self, text: &str) {
        stderr_line(&format!("kpca: warning: {text}"));
    }
}

/// A number as a person would type it: Rust's `Display` (`2`, `-1`, `0.1`)
/// when that is short, else the shortest round-trip form (`1e-50`, `1e20`).
pub fn number_text(v: f64) -> String {
    let plain = format!("{v}");
    if plain.len() <= 12 {
        plain
    } else {
        format!("{v:?}")
    }
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
            .map_err(|e| CliError::write_failed(&self.name, &e))
    }

    /// Flushes everything written.
    pub fn finish(mut self) -> CliResult<()> {
        self.writer
            .flush()
            .map_err(|e| CliError::write_failed(&self.name, &e))
    }
}

/// Writes `bytes` to the output argument `arg`: standard output for `-`, else
/// the file (created or truncated), naming it on error.
pub fn write_output(arg: &Path, bytes: &[u8]) -> CliResult<()> {
    if is_stdout(arg) {
        write_stdout(bytes)
    } else {
        write_file(arg, bytes)
    }
}

/// Writes `bytes` to `path` (a file, even one named `-`), naming the file on error.
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
        assert_eq!(number_text(-1.0), "-1");
        assert_eq!(number_text(2.0), "2");
        assert_eq!(number_text(1e-50), "1e-50");
        assert_eq!(number_text(1e20), "1e20");
        assert_eq!(number_text(0.25), "0.25");
        for v in [0.1f64, 1.0 / 3.0, 1e300, 5e-324] {
            let t = float_text(v);
            assert_eq!(t.parse::<f64>().unwrap().to_bits(), v.to_bits(), "{t}");
        }
    }
}
