//! The error of a `kpca` subcommand, its exit code, and how the fit's errors map
//! onto it.

use kpca_fit::FitError;
use std::fmt;

/// Exit code for success, and for a run that stopped because its standard
/// output was closed (`kpca inspect m.kpca | head -1`).
pub const EXIT_OK: u8 = 0;
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
    /// Standard output was closed by its reader (a pipe into `head`): the
    /// command stops without a message and exits 0, as `cat` or `grep` do.
    OutputClosed,
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

    /// The error of a failed write to `name`: [`CliError::OutputClosed`] when
    /// the reader of a pipe has gone (`BrokenPipe`), a bad-input error naming
    /// the destination otherwise.
    pub fn write_failed(name: &str, e: &std::io::Error) -> CliError {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CliError::OutputClosed
        } else {
            CliError::input(format!("{name}: cannot write: {e}"))
        }
    }

    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) => EXIT_BAD_INPUT,
            CliError::Usage(_) => EXIT_USAGE,
            CliError::OutputClosed => EXIT_OK,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Input(msg) | CliError::Usage(msg) => f.write_str(msg),
            CliError::OutputClosed => f.write_str("standard output closed"),
        }
    }
}

impl std::error::Error for CliError {}

/// The result of a subcommand.
pub type CliResult<T> = Result<T, CliError>;

/// `n` followed by `singular` or its plural (`1 component`, `2 components`);
/// the plural adds an `s`.
pub fn count(n: usize, singular: &str) -> String {
    if n == 1 {
        format!("1 {singular}")
    } else {
        format!("{n} {singular}s")
    }
}

/// Maps a fit error to a CLI error: parameter errors are usage errors (exit 2),
/// everything that depends on the data is bad input (exit 1). Rows and columns
/// are 1-based. `input` names the data in messages. (`kpca fit` checks its
/// flags and data before fitting and words the remaining errors with the
/// flags' names; this is the generic wording, for the library's users.)
pub fn fit_error(e: FitError, input: &str) -> CliError {
    match e {
        FitError::BadGamma(_)
        | FitError::BadCoef0(_)
        | FitError::BadDegree(_)
        | FitError::ZeroComponents
        | FitError::BadOption { .. }
        | FitError::BadName { .. } => CliError::usage(format!("{e}")),
        FitError::NonFiniteInput { row, column } => CliError::input(format!(
            "{input}: row {}, column {} (1-based) is NaN or infinite",
            row + 1,
            column + 1
        )),
        FitError::ConstantColumn { column } => CliError::input(format!(
            "{input}: cannot fit: column {} (1-based) is constant: its standard deviation is 0, \
             so it cannot be standardised (drop the column or turn standardisation off)",
            column + 1
        )),
        other => CliError::input(format!("{input}: cannot fit: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_use_the_singular_for_one() {
        assert_eq!(count(1, "component"), "1 component");
        assert_eq!(count(0, "component"), "0 components");
        assert_eq!(count(16, "landmark"), "16 landmarks");
    }

    #[test]
    fn a_broken_pipe_is_a_quiet_exit_0_and_other_write_errors_exit_1() {
        let pipe = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let e = CliError::write_failed("<stdout>", &pipe);
        assert!(matches!(e, CliError::OutputClosed));
        assert_eq!(e.exit_code(), 0);
        let full = std::io::Error::other("disk full");
        let e = CliError::write_failed("model.kpca", &full);
        assert_eq!(e.exit_code(), 1);
        assert_eq!(e.to_string(), "model.kpca: cannot write: disk full");
    }

    #[test]
    fn fit_errors_name_rows_and_columns_from_1() {
        let e = fit_error(FitError::ConstantColumn { column: 0 }, "train.csv");
        assert!(
            e.to_string().contains("column 1 (1-based) is constant"),
            "{e}"
        );
        let e = fit_error(FitError::NonFiniteInput { row: 2, column: 4 }, "x");
        assert_eq!(
            e.to_string(),
            "x: row 3, column 5 (1-based) is NaN or infinite"
        );
        assert_eq!(e.exit_code(), 1);
    }
}
