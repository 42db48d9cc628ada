//! The `kpca` command: fit a model from a CSV or NPY file, project data through
//! the device model, inspect and export model files, and plot.
//!
//! ```text
//! kpca fit --input train.csv --kernel rbf --gamma 0.5 --components 4 --output model.kpca
//! kpca project --model model.kpca --input test.csv --output scores.csv --anomaly-score
//! kpca fit --input train.csv --kernel rbf --components 4 --target y.csv --inverse-transform \
//!     --report fit.json --output model.kpca
//! kpca predict --model model.kpca --input test.csv --output y_hat.csv
//! kpca reconstruct --model model.kpca --input test.csv --output x_hat.csv --iterate 20
//! kpca inspect model.kpca
//! kpca export --model model.kpca --format c --name sensor_model --output-dir firmware/
//! kpca plot --model model.kpca --input test.csv --labels labels.csv --output fig.svg
//! ```
//!
//! Exit codes: 0 success, 1 bad input (files, data, model), 2 usage error. A
//! closed standard output (`kpca inspect m.kpca | head -1`) ends any
//! subcommand quietly with 0. `-` is standard input or output wherever a file
//! is read or written; when the main output goes to standard output, the
//! report goes to standard error.
//!
//! Input rows are used exactly as given unless `--standardize` is passed at fit
//! time; then the training mean and standard deviation go into the model and the
//! device applies them. Projection (`project`, `plot`) always goes through the
//! core's f32 code path ([`kpca_core::ModelRef::from_bytes`] and
//! [`kpca_core::ModelRef::project_and_score`]), so it gives what the firmware computes.
//!
//! The library holds each subcommand (`cmd_*`: its arguments and `run`) and the
//! modules they share: [`table`] (reading CSV and NPY), [`projection`],
//! [`model_file`], [`model_summary`], [`metrics`], [`output`] (files, standard
//! output and the console), [`fit_checks`] (the fit's flags and data, checked
//! before the fit), [`hints`], [`plot`] and [`error`]. The BasicMotions demo (`examples/demo.rs`, run with
//! `cargo run --release -p kpca-cli --example demo`) is a user of this library.

pub mod cmd_export;
pub mod cmd_fit;
pub mod cmd_fit_stream;
pub mod cmd_inspect;
pub mod cmd_plot;
pub mod cmd_predict;
pub mod cmd_project;
pub mod cmd_reconstruct;
pub mod error;
pub mod fit_args;
pub mod fit_checks;
pub mod fit_heads;
pub mod fit_steps;
pub mod hints;
pub mod metrics;
pub mod model_file;
pub mod model_summary;
pub mod output;
pub mod plot;
pub mod progress;
pub mod projection;
pub mod table;

use clap::{Parser, Subcommand};
use error::{CliError, CliResult};
use std::ffi::OsString;
use std::process::ExitCode;

/// Kernel PCA for microcontroller firmware: fit on the host, run on the device.
#[derive(Debug, Parser)]
#[command(
    name = "kpca",
    version,
    about = "Kernel PCA for microcontroller firmware: fit on the host, run on the device",
    long_about = "Kernel PCA for microcontroller firmware: fit a model on the host from a CSV \
                  or NPY file, and hand the firmware a model blob and a generated C or Rust \
                  source. Projections and anomaly scores are computed with the device's own \
                  f32 code.\n\n\
                  `-` is standard input or output wherever a file is read or written; when \
                  the main output goes to standard output, the report goes to standard \
                  error.\n\n\
                  Exit codes: 0 success, 1 bad input (files, data, model), 2 usage error; a \
                  closed standard output (a pipe into head) ends any subcommand quietly \
                  with 0."
)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Fit a kernel PCA model on training data and write the device model (blob).
    #[command(after_help = cmd_fit::after_help())]
    Fit(fit_args::FitArgs),
    /// Project data through a model (the device's f32 computation) and write the scores.
    Project(cmd_project::ProjectArgs),
    /// Predict the regression targets of data (the device's f32 kpca_predict).
    Predict(cmd_predict::PredictArgs),
    /// Reconstruct data in input space: the pre-image of each row (the device's
    /// f32 kpca_reconstruct, then optional fixed-point steps for rbf).
    Reconstruct(cmd_reconstruct::ReconstructArgs),
    /// Describe a model file: kernel, sizes, explained variance, threshold, CRC check.
    Inspect(cmd_inspect::InspectArgs),
    /// Export a model file as C source, a raw blob, or Rust source for firmware.
    Export(cmd_export::ExportArgs),
    /// Plot the first two components of data and the explained variance (SVG).
    Plot(cmd_plot::PlotArgs),
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> CliResult<()> {
    match cli.command {
        Command::Fit(args) => cmd_fit::run(&args),
        Command::Project(args) => cmd_project::run(&args),
        Command::Predict(args) => cmd_predict::run(&args),
        Command::Reconstruct(args) => cmd_reconstruct::run(&args),
        Command::Inspect(args) => cmd_inspect::run(&args),
        Command::Export(args) => cmd_export::run(&args),
        Command::Plot(args) => cmd_plot::run(&args),
    }
}

/// Parses `args` (the first is the program name) and runs the command; prints
/// errors to standard error and returns the exit code.
fn main_with_args<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        // Help and version go to stdout with code 0; usage errors to stderr with 2.
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(error::EXIT_USAGE));
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::OutputClosed) => ExitCode::from(error::EXIT_OK),
        Err(e) => {
            let kind = match e {
                CliError::Usage(_) => "usage error",
                CliError::Input(_) | CliError::OutputClosed => "error",
            };
            output::stderr_line(&format!("kpca: {kind}: {e}"));
            ExitCode::from(e.exit_code())
        }
    }
}

/// The `kpca` binary's entry point.
pub fn main() -> ExitCode {
    main_with_args(std::env::args_os())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
