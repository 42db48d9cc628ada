//! What `kpca fit` adds to a fitted model on request: the regression head
//! (`--target`), the pre-image map (`--inverse-transform`, `--alpha`) and the
//! JSON report (`--report`, `--bound-confidence`) with the eigenvalues, the
//! reconstruction errors and, for Nyström fits, the confidence bound.

use crate::error::{CliError, CliResult};
use crate::fit_args::FitArgs;
use crate::output::{number_text, write_output};
use crate::table::{read_table, Table};
use kpca_fit::{
    Dataset, ErrorEstimate, FitError, FittedKpca, Method, DEFAULT_BOUND_CONFIDENCE,
    DEFAULT_PREIMAGE_ALPHA,
};
use serde_json::{json, Map, Value};

/// Nyström fits on at most this many training rows get exact reconstruction
/// errors in the report (O(n^2 d)); larger ones nystrompca's O(n m) estimate.
pub const EXACT_ERRORS_MAX_ROWS: usize = 20_000;

/// Checks the flags of the heads and the report before any data is read.
pub fn check_flags(args: &FitArgs) -> CliResult<()> {
    if let Some(alpha) = args.alpha {
        if !(alpha.is_finite() && alpha > 0.0) {
            return Err(CliError::usage(format!(
                "--alpha {}: must be finite and > 0 (the ridge of the learned pre-image map)",
                number_text(alpha)
            )));
        }
    }
    if let Some(c) = args.bound_confidence {
        if !(c > 0.0 && c < 1.0) {
            return Err(CliError::usage(format!(
                "--bound-confidence {}: must be between 0 and 1, both excluded",
                number_text(c)
            )));
        }
    }
    let stdin = |p: &Option<std::path::PathBuf>| p.as_deref().is_some_and(crate::output::is_stdout);
    if stdin(&args.target) && crate::output::is_stdout(&args.input) {
        return Err(CliError::usage(
            "--input - and --target -: only one of them can read standard input",
        ));
    }
    if stdin(&args.target) && stdin(&args.landmarks) {
        return Err(CliError::usage(
            "--landmarks - and --target -: only one of them can read standard input",
        ));
    }
    if stdin(&args.report) && crate::output::is_stdout(&args.output) {
        return Err(CliError::usage(
            "--output - and --report -: only one of them can write standard output",
        ));
    }
    Ok(())
}

/// Reads the `--target` file and checks it has one row per training row.
pub fn read_targets(args: &FitArgs, n_train: usize) -> CliResult<Option<Table<f64>>> {
    let Some(path) = &args.target else {
        return Ok(None);
    };
    let table = read_table::<f64>(path)?;
    if table.n_rows() != n_train {
        return Err(CliError::input(format!(
            "{}: {} target rows for {n_train} training rows: --target needs one row per \
             training row, in the same order",
            table.name,
            table.n_rows()
        )));
    }
    if table.n_cols > kpca_core::MAX_TARGETS {
        return Err(CliError::input(format!(
            "{}: {} target columns: the device model holds at most {} (kpca::MAX_TARGETS)",
            table.name,
            table.n_cols,
            kpca_core::MAX_TARGETS
        )));
    }
    Ok(Some(table))
}

/// Fits the requested heads onto `fitted`.
pub fn fit_heads(
    args: &FitArgs,
    fitted: &mut FittedKpca,
    targets: Option<&Table<f64>>,
) -> CliResult<()> {
    if let Some(t) = targets {
        let data = Dataset::new(&t.values[..], t.n_cols)
            .map_err(|e| CliError::input(format!("{}: {e}", t.name)))?;
        fitted
            .fit_regression(&data)
            .map_err(|e| CliError::input(format!("{}: cannot fit the regression: {e}", t.name)))?;
    }
    if args.inverse_transform {
        let alpha = args.alpha.unwrap_or(DEFAULT_PREIMAGE_ALPHA);
        fitted.fit_inverse_transform(alpha).map_err(|e| match e {
            FitError::SingularPreImage => CliError::input(format!(
                "--inverse-transform: {e} (--alpha {})",
                number_text(alpha)
            )),
            other => CliError::input(format!("--inverse-transform: {other}")),
        })?;
    }
    Ok(())
}

/// JSON numbers, with NaN and infinities as null.
fn numbers(values: &[f64]) -> Value {
    Value::Array(values.iter().map(|&v| Value::from(v)).collect())
}

/// The report's reconstruction errors and how they were computed.
fn error_fields(fitted: &FittedKpca, train: Option<&Dataset<'_>>, out: &mut Map<String, Value>) {
    let (estimate, name) = match fitted.method() {
        Method::Full => (ErrorEstimate::Exact, "exact"),
        Method::Nystrom { .. } if fitted.n_train() <= EXACT_ERRORS_MAX_ROWS => {
            (ErrorEstimate::Exact, "exact")
        }
        Method::Nystrom { .. } => (ErrorEstimate::Approximate, "approximate"),
    };
    match fitted.reconstruction_errors(train, estimate) {
        Ok(errors) => {
            out.insert("reconstruction_errors".into(), numbers(&errors));
            out.insert("reconstruction_errors_method".into(), name.into());
        }
        Err(e) => {
            out.insert("reconstruction_errors".into(), Value::Null);
            out.insert(
                "reconstruction_errors_undefined".into(),
                e.to_string().into(),
            );
        }
    }
}

/// The report's confidence bound (Nyström fits only).
fn bound_fields(fitted: &FittedKpca, confidence: f64, out: &mut Map<String, Value>) {
    if matches!(fitted.method(), Method::Full) {
        return;
    }
    out.insert("bound_confidence".into(), confidence.into());
    match fitted.confidence_bound(confidence) {
        Ok(bound) => {
            out.insert("confidence_bound".into(), numbers(&bound));
        }
        Err(e) => {
            out.insert("confidence_bound".into(), Value::Null);
            out.insert("confidence_bound_undefined".into(), e.to_string().into());
        }
    }
}

/// The JSON report of a fit on `train` (`None` after a streamed fit, whose
/// rows are not held: the Nyström reconstruction errors are then undefined).
pub fn report(args: &FitArgs, fitted: &FittedKpca, train: Option<&Dataset<'_>>) -> Value {
    let method = match fitted.method() {
        Method::Full => "full",
        Method::Nystrom { .. } => "nystrom",
    };
    let mut out = Map::new();
    out.insert("method".into(), method.into());
    out.insert("kernel".into(), fitted.kernel().kind.name().into());
    out.insert("n_train".into(), fitted.n_train().into());
    out.insert("n_points".into(), fitted.n_points().into());
    out.insert("n_components".into(), fitted.n_components().into());
    out.insert("eigenvalues".into(), numbers(fitted.eigenvalues()));
    out.insert(
        "explained_variance_ratio".into(),
        numbers(fitted.explained_variance_ratio()),
    );
    out.insert("threshold".into(), Value::from(fitted.threshold()));
    error_fields(fitted, train, &mut out);
    let confidence = args.bound_confidence.unwrap_or(DEFAULT_BOUND_CONFIDENCE);
    bound_fields(fitted, confidence, &mut out);
    let sections = json!({
        "preimage": fitted.preimage_map().map(|m| json!({ "alpha": m.alpha })),
        "regression": fitted.regression_head().map(|r| json!({ "n_targets": r.n_targets() })),
    });
    out.insert("sections".into(), sections);
    Value::Object(out)
}

/// Writes the `--report` file, when asked for.
pub fn write_report(
    args: &FitArgs,
    fitted: &FittedKpca,
    train: Option<&Dataset<'_>>,
) -> CliResult<()> {
    let Some(path) = &args.report else {
        return Ok(());
    };
    let text = serde_json::to_string_pretty(&report(args, fitted, train))
        .map_err(|e| CliError::input(format!("cannot write the report: {e}")))?;
    write_output(path, format!("{text}\n").as_bytes())
}
