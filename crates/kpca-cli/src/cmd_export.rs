//! `kpca export`: a model file as C source, a raw blob, or Rust source.

use crate::error::{CliError, CliResult};
use crate::hints::{self, ModelShape};
use crate::model_file::ModelFile;
use crate::model_summary::{device_kernel_text, info_from_model};
use crate::output::{ensure_dir, is_stdout, write_file, write_stdout, Console};
use clap::{Args, ValueEnum};
use kpca_fit::{export, ExportInfo, FitError, ModelBlob};
use std::path::{Path, PathBuf};

/// What to export.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// NAME.h and NAME.c defining the aligned blob for kpca_model_from_bytes
    C,
    /// NAME.kpca, the raw blob (for a file system or a flash partition)
    Blob,
    /// NAME.rs defining a `static` aligned blob for ModelRef::from_bytes
    Rust,
}

/// Arguments of `kpca export`.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "Files written: --format c: DIR/NAME.h and DIR/NAME.c (const, \
    4-byte-aligned blob NAME_blob and NAME_blob_len; load with kpca_model_from_bytes); \
    --format blob: DIR/NAME.kpca; --format rust: DIR/NAME.rs (a `static` NAME in capitals; \
    load with kpca_core::ModelRef::from_bytes(&NAME.0)). With --output-dir - the one file goes to \
    standard output (--format c: the header followed by the source, one self-contained C \
    file) and the report to standard error. A hint on standard error flags a model larger \
    than a typical microcontroller's flash.\n\n\
    Example:\n  kpca export --model model.kpca --format c --name sensor_model --output-dir firmware/"
)]
pub struct ExportArgs {
    /// Model blob written by `kpca fit`, or `-` for standard input (required).
    #[arg(long, value_name = "FILE")]
    pub model: PathBuf,
    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = ExportFormat::C)]
    pub format: ExportFormat,
    /// Name of the model: the C or Rust identifier prefix and the file names
    /// (ASCII letters, digits and '_', not starting with a digit, at most 48 characters).
    #[arg(long, value_name = "NAME", default_value = "kpca_model")]
    pub name: String,
    /// Directory to write into (created if missing), or `-` for standard output.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub output_dir: PathBuf,
    /// Print no report and no hints, only warnings and errors [default: off].
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

fn export_error(e: FitError) -> CliError {
    match e {
        FitError::BadName { .. } => CliError::usage(format!("--name: {e}")),
        other => CliError::input(format!("cannot export: {other}")),
    }
}

/// Checks a blob file name: ASCII letters, digits, '_', '-', '.', not
/// starting with '.'.
fn check_file_name(name: &str) -> CliResult<()> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
        && !name.starts_with('.');
    if ok {
        Ok(())
    } else {
        Err(CliError::usage(format!(
            "--name: invalid file name {name:?} (use ASCII letters, digits, '_', '-', '.')"
        )))
    }
}

/// The export of `blob` as one file's bytes, for standard output: the blob,
/// the Rust source, or for C the header followed by the source without its
/// `#include "NAME.h"` line (one self-contained translation unit).
pub fn export_single(
    blob: &ModelBlob,
    info: &ExportInfo,
    format: ExportFormat,
    name: &str,
) -> CliResult<Vec<u8>> {
    match format {
        ExportFormat::Blob => {
            check_file_name(name)?;
            Ok(blob.as_bytes().to_vec())
        }
        ExportFormat::Rust => Ok(export::rust_source(blob, name)
            .map_err(export_error)?
            .into_bytes()),
        ExportFormat::C => {
            let (h, c) = export::c_source(blob, name, info).map_err(export_error)?;
            let include = format!("#include \"{name}.h\"");
            let source: String = c
                .split_inclusive('\n')
                .filter(|line| line.trim_end() != include)
                .collect();
            Ok(format!("{h}\n{source}").into_bytes())
        }
    }
}

/// Writes the export of `blob` into `dir`; returns the files written.
pub fn export_blob(
    blob: &ModelBlob,
    info: &ExportInfo,
    format: ExportFormat,
    name: &str,
    dir: &Path,
) -> CliResult<Vec<PathBuf>> {
    let dir = ensure_dir(dir)?;
    let mut written = Vec::new();
    match format {
        ExportFormat::C => {
            let (h, c) = export::c_source(blob, name, info).map_err(export_error)?;
            for (ext, text) in [("h", h), ("c", c)] {
                let path = dir.join(format!("{name}.{ext}"));
                write_file(&path, text.as_bytes())?;
                written.push(path);
            }
        }
        ExportFormat::Rust => {
            let rs = export::rust_source(blob, name).map_err(export_error)?;
            let path = dir.join(format!("{name}.rs"));
            write_file(&path, rs.as_bytes())?;
            written.push(path);
        }
        ExportFormat::Blob => {
            check_file_name(name)?;
            let path = dir.join(format!("{name}.kpca"));
            write_file(&path, blob.as_bytes())?;
            written.push(path);
        }
    }
    Ok(written)
}

/// Runs `kpca export`.
pub fn run(args: &ExportArgs) -> CliResult<()> {
    let to_stdout = is_stdout(&args.output_dir);
    let console = Console::new(to_stdout, args.quiet);
    let file = ModelFile::read(&args.model)?;
    let model = file.model();
    let info = info_from_model(model, &file.name);
    if to_stdout {
        let bytes = export_single(file.blob(), &info, args.format, &args.name)?;
        write_stdout(&bytes)?;
        console.report(&format!("wrote <stdout> ({} bytes)", bytes.len()))?;
    } else {
        let written = export_blob(
            file.blob(),
            &info,
            args.format,
            &args.name,
            &args.output_dir,
        )?;
        for path in &written {
            let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            console.report(&format!("wrote {} ({size} bytes)", path.display()))?;
        }
    }
    console.report(&format!(
        "model: {}, d = {}, m = {}, k = {}, blob {} bytes",
        device_kernel_text(&model.kernel()),
        model.dim(),
        model.n_points(),
        model.n_components(),
        file.bytes().len()
    ))?;
    if let Some(hint) = hints::flash_hint(&ModelShape::of(model)) {
        console.hint(&hint);
    }
    Ok(())
}
