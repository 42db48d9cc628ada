//! `kpca fit --stream`: a Nyström fit of a CSV or NPY file read in chunks
//! ([`crate::table::stream`]) through `kpca_fit::stream::fit_nystrom`, four
//! passes over the file, memory O(M² + chunk · M) whatever its length. Chosen
//! with `--stream`, or by itself for a Nyström fit of a file larger than
//! [`AUTO_STREAM_BYTES`].

use crate::error::{CliError, CliResult};
use crate::fit_args::FitArgs;
use crate::fit_checks::check_f32_range;
use crate::fit_heads;
use crate::fit_steps::{device_failure, fit_failure, fit_params, print_report, read_landmarks};
use crate::output::{is_stdout, write_output, Console};
use crate::progress::PassProgress;
use crate::table::stream::{ChunkedFile, CHUNK_ROWS};
use kpca_fit::stream::{fit_nystrom, Pass, RowSource};
use kpca_fit::FitError;
use std::time::Instant;

/// A Nyström fit of a file larger than this streams without `--stream`.
pub const AUTO_STREAM_BYTES: u64 = 256 << 20;

/// Whether this fit streams: `--stream` (checked against the flags it cannot
/// go with), or a Nyström fit of a file over [`AUTO_STREAM_BYTES`] that
/// nothing stops from streaming.
pub fn streams(args: &FitArgs) -> CliResult<bool> {
    let nystrom = args.nystrom.is_some() || args.landmarks.is_some();
    let stdin = is_stdout(&args.input);
    if args.stream {
        if !nystrom {
            return Err(CliError::usage(
                "--stream needs --nystrom M or --landmarks FILE: a full fit holds every row at once",
            ));
        }
        if stdin {
            return Err(CliError::usage(
                "--stream reads the input four times, and standard input can be read once: \
                 save the data to a file and pass --input FILE",
            ));
        }
        if args.target.is_some() {
            return Err(CliError::usage(
                "--stream and --target: the regression head needs the training scores, which a \
                 streamed fit does not keep",
            ));
        }
        return Ok(true);
    }
    if !nystrom || stdin || args.target.is_some() {
        return Ok(false);
    }
    let len = std::fs::metadata(&args.input).map(|m| m.len()).unwrap_or(0);
    Ok(len > AUTO_STREAM_BYTES)
}

/// What can stop a streamed fit: the reader's errors, or the fit's.
#[derive(Debug)]
pub enum StreamError {
    /// Reading or checking the file.
    Read(CliError),
    /// The fit.
    Fit(FitError),
}

impl From<FitError> for StreamError {
    fn from(e: FitError) -> Self {
        StreamError::Fit(e)
    }
}

impl From<CliError> for StreamError {
    fn from(e: CliError) -> Self {
        StreamError::Read(e)
    }
}

/// The file as the fit's row source, with the bar.
struct FileSource<'a> {
    file: &'a ChunkedFile,
    standardize: bool,
    progress: PassProgress,
}

impl RowSource for FileSource<'_> {
    type Error = StreamError;

    fn n_features(&self) -> usize {
        self.file.n_cols()
    }

    fn read_pass(
        &mut self,
        pass: Pass,
        use_chunk: &mut dyn FnMut(&[f64]) -> Result<(), FitError>,
    ) -> Result<(), StreamError> {
        self.progress.begin(pass);
        let (progress, standardize) = (&mut self.progress, self.standardize);
        self.file
            .for_each_chunk(&mut |table, bytes| -> Result<(), StreamError> {
                if pass == Pass::Survey {
                    check_f32_range(&table, standardize)?;
                }
                progress.advance(table.n_rows(), bytes);
                Ok(use_chunk(&table.values)?)
            })
    }
}

/// Runs a streamed `kpca fit` (the flags already checked).
pub fn run(args: &FitArgs, console: &Console, start: Instant) -> CliResult<()> {
    let landmarks = read_landmarks(args)?;
    let file = ChunkedFile::open(&args.input)?;
    let name = file.name().to_string();
    if file.n_cols() > kpca_core::MAX_DIM {
        return Err(CliError::input(format!(
            "{name}: {} columns: the device model takes at most {} input features (kpca::MAX_DIM)",
            file.n_cols(),
            kpca_core::MAX_DIM
        )));
    }
    let valid = fit_params(args, landmarks, &name)?;
    let mut source = FileSource {
        file: &file,
        standardize: args.standardize,
        progress: PassProgress::new(args.quiet, file.len_bytes()),
    };
    let result = fit_nystrom(&valid, &mut source);
    source.progress.finish();
    let mut fitted = result.map_err(|e| match e {
        StreamError::Read(e) => e,
        StreamError::Fit(e) => fit_failure(e, args, &name),
    })?;
    fit_heads::fit_heads(args, &mut fitted, None)?;
    let blob = fitted
        .to_blob()
        .map_err(|e| device_failure(e, args, &name))?;
    write_output(&args.output, blob.as_bytes())?;
    fit_heads::write_report(args, &fitted, None)?;
    print_report(args, console, &fitted, &blob)?;
    console.report(&format!(
        "streamed: {name} ({} bytes) read in 4 passes of {CHUNK_ROWS}-row chunks; the training \
         scores were not kept",
        file.len_bytes()
    ))?;
    let peak = peak_resident_mib()
        .map(|mib| format!(", peak resident set {mib:.1} MiB"))
        .unwrap_or_default();
    console.report(&format!(
        "time: {:.3} s (reading included){peak}",
        start.elapsed().as_secs_f64()
    ))
}

/// This process's peak resident set in MiB (Linux: VmHWM of
/// /proc/self/status), or `None` where that is not available.
fn peak_resident_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}
