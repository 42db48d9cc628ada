//! The error of a `kpca` subcommand, its exit code, and how the fit's errors map
//! onto it.

use kpca_fit::FitError;
use std::fmt;

/// Exit code for bad input (unreadable or malformed files, a model that fails to
/// load, a fit that cannot be done on this data).
pub const EXIT_BAD_INPUT: u8 = 1;
/// Exit code for a usage error (clap's own usage errors exit 2 as well).
pub const EXIT_USAGE: u8 = 2;

/// What went wrong, already worded for the person at the terminal.
#[derive(Debug)]
pub enum CliError {
    /// The input (a file, its contents, the model, the data for a fit) is bad: exit 1.
    Input(String),
    /// The command line asks for something inconsistent that clap cannot see: exit 2.
    Usage(String),
}

impl CliError {
    /// A bad-input error.
    pub fn input(msg: impl Into<String>) -> CliError {
        CliError::Input(msg.into())
    }

    /// A usage error.
    pub fn usage(msg: impl Into<String>) -> CliError {
        CliError::Usage(msg.into())
    }

    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) => EXIT_BAD_INPUT,
            CliError::Usage(_) => EXIT_USAGE,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Input(msg) | CliError::Usage(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for CliError {}

/// The result of a subcommand.
pub type CliResult<T> = Result<T, CliError>;

/// Maps a fit error to a CLI error: parameter errors are usage errors (exit 2),
/// everything that depends on the data is bad input (exit 1).
pub fn fit_error(e: FitError, input: &str) -> CliError {
    match e {
        FitError::BadGamma(_)
        | FitError::BadCoef0(_)
        | FitError::BadDegree(_)
        | FitError::ZeroComponents
        | FitError::BadOption { .. }
        | FitError::BadName { .. } => CliError::usage(format!("{e}")),
        FitError::NonFiniteInput { row, column } => CliError::input(format!(
            "{input}: row {row}, column {column} (0-based) is NaN or infinite"
        )),
        other => CliError::input(format!("{input}: cannot fit: {other}")),
    }
}
