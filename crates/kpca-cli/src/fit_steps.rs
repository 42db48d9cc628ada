//! The steps both fits of `kpca fit` take, in memory ([`crate::cmd_fit`]) and
//! streamed ([`crate::cmd_fit_stream`]): the fit parameters from the flags,
//! the `--landmarks` file, the fit's errors worded with the flags, and the
//! report.

use crate::error::{count, fit_error, CliError, CliResult};
use crate::fit_args::FitArgs;
use crate::fit_checks;
use crate::output::{float_text, output_name, Console};
use crate::table::{read_indices, Source};
use kpca_fit::{
    FitError, FittedKpca, KernelId, KernelPca, KernelSpec, Method, ModelBlob, Nystrom,
    SolverReport, ValidKernelPcaParams,
};

/// The fit's errors, worded with the flags (the checks before the fit leave
/// only those that depend on the fit itself).
pub(crate) fn fit_failure(e: FitError, args: &FitArgs, name: &str) -> CliError {
    match e {
        FitError::TooManyComponents {
            requested,
            positive,
            examined,
        } => CliError::input(format!(
            "{name}: --components {requested}: the centred kernel matrix has only {} (of the \
             {examined} computed), so at most --components {positive} can be kept",
            count(positive, "positive eigenvalue")
        )),
        FitError::NotConverged {
            iterations,
            residual,
            ..
        } => CliError::input(format!(
            "{name}: the iterative eigen solver did not converge after {iterations} restarts \
             (largest relative residual {residual:e}); use --solver dense"
        )),
        FitError::NonFiniteKernel => CliError::input(format!(
            "{name}: a kernel value is NaN or infinite{}: use a smaller --gamma{}, or pass \
             --standardize",
            if args.kernel == KernelId::Polynomial {
                " (poly)"
            } else {
                ""
            },
            if args.kernel == KernelId::Polynomial {
                " or --degree"
            } else {
                ""
            }
        )),
        FitError::ConstantData => CliError::input(format!(
            "{name}: every row is the same point: there is no variance to analyse"
        )),
        FitError::SingularLandmarks => CliError::input(format!(
            "{name}: the landmarks' kernel matrix has no eigenvalue above the pseudo-inverse \
             tolerance (all landmarks the same point?): choose other --landmarks or another --seed"
        )),
        other => fit_error(other, name),
    }
}

/// The error of a fitted model that does not fit the f32 device model (the
/// input values were checked: kernel values or coefficients overflow f32).
pub(crate) fn device_failure(e: FitError, args: &FitArgs, name: &str) -> CliError {
    let change = match args.kernel {
        KernelId::Polynomial => "use a smaller --gamma or --degree",
        KernelId::Linear | KernelId::Cosine => "rescale the data",
        _ => "use a smaller --gamma",
    };
    let standardize = if args.standardize {
        ""
    } else {
        ", or pass --standardize"
    };
    match e {
        FitError::Device { what, source } => CliError::input(format!(
            "{name}: the fitted model does not fit the f32 device model ({what}: {source}): its \
             kernel values or coefficients pass the f32 range; {change}{standardize}"
        )),
        other => CliError::input(format!("{name}: {other}")),
    }
}

/// Reads and checks the `--landmarks` file.
pub(crate) fn read_landmarks(args: &FitArgs) -> CliResult<Option<Vec<usize>>> {
    let Some(path) = &args.landmarks else {
        return Ok(None);
    };
    let idx = read_indices(path)?;
    fit_checks::check_landmark_list(&idx, &Source::from_arg(path).name())?;
    Ok(Some(idx))
}

/// The checked fit parameters of the arguments (`name`: the input, for
/// messages).
pub(crate) fn fit_params(
    args: &FitArgs,
    landmarks: Option<Vec<usize>>,
    name: &str,
) -> CliResult<ValidKernelPcaParams> {
    let mut params = KernelPca::params()
        .kernel(args.kernel_spec())
        .n_components(args.components)
        .solver(args.solver.unwrap_or_default())
        .standardize(args.standardize)
        .false_alarm_rate(args.false_alarm_rate);
    if let Some(m) = args.nystrom {
        let seed = args.seed.unwrap_or(0);
        params = params.nystrom(args.landmark_method.unwrap_or_default().nystrom(m, seed));
    }
    if let Some(idx) = landmarks {
        params = params.nystrom(Nystrom::indices(idx));
    }
    params.check().map_err(|e| fit_failure(e, args, name))
}

/// Describes the fitted kernel, e.g. `rbf (gamma = 0.5)`: its name and the
/// parameters it uses.
fn kernel_text(spec: &KernelSpec) -> String {
    let uses = spec.kind.uses();
    let mut params = Vec::new();
    if uses.gamma {
        let g = spec.gamma.map(float_text).unwrap_or_else(|| "1/d".into());
        params.push(format!("gamma = {g}"));
    }
    if uses.degree {
        params.push(format!("degree = {}", spec.degree));
    }
    if uses.coef0 {
        params.push(format!("coef0 = {}", float_text(spec.coef0)));
    }
    match params.is_empty() {
        true => spec.kind.name().into(),
        false => format!("{} ({})", spec.kind.name(), params.join(", ")),
    }
}

fn join(values: &[f64], fmt: impl Fn(f64) -> String) -> String {
    values
        .iter()
        .map(|&v| fmt(v))
        .collect::<Vec<_>>()
        .join("  ")
}

/// The first lines of the fit report: method, kernel, solver, data.
fn report_head(fitted: &FittedKpca) -> Vec<String> {
    let method = match fitted.method() {
        Method::Full => "full kernel PCA".to_string(),
        Method::Nystrom { landmarks, seed } => match seed {
            Some(s) => format!(
                "Nyström kernel PCA, {} (seed {s})",
                count(landmarks.len(), "landmark")
            ),
            None => format!(
                "Nyström kernel PCA, {} given landmark{}",
                landmarks.len(),
                if landmarks.len() == 1 { "" } else { "s" }
            ),
        },
    };
    let solver = match fitted.solver() {
        SolverReport::Dense => "dense".to_string(),
        SolverReport::Lanczos {
            matvecs,
            max_residual,
        } => format!("iterative ({matvecs} products, max residual {max_residual:.1e})"),
        SolverReport::NystromDense => "dense (m x m)".to_string(),
    };
    vec![
        format!(
            "fitted: {method}, kernel {}, solver {solver}",
            kernel_text(&fitted.kernel())
        ),
        format!(
            "data: n = {} rows, d = {} features, standardised: {}",
            fitted.n_train(),
            fitted.n_features(),
            if fitted.standardization().is_some() {
                "yes"
            } else {
                "no"
            }
        ),
    ]
}

/// The fit report (eigenvalues, explained variance, threshold), line by line.
pub(crate) fn report_lines(fitted: &FittedKpca) -> Vec<String> {
    let mut lines = report_head(fitted);
    let label = match fitted.method() {
        Method::Full => "eigenvalues (of the centred kernel matrix)",
        Method::Nystrom { .. } => {
            "eigenvalues (of the centred kernel matrix, Nyström approximation)"
        }
    };
    lines.push(format!(
        "{label}: {}",
        join(fitted.eigenvalues(), |v| format!("{v:.6}"))
    ));
    let ratio = fitted.explained_variance_ratio();
    let total: f64 = ratio.iter().sum();
    lines.push(format!(
        "explained variance ratio: {} (total {:.4})",
        join(ratio, |v| format!("{v:.4}")),
        total
    ));
    lines.push(if fitted.threshold() > 0.0 {
        format!(
            "anomaly threshold: {} (false-alarm rate {} on the training rows)",
            float_text(fitted.threshold() as f32),
            fitted.false_alarm_rate()
        )
    } else {
        "anomaly threshold: unset (0)".to_string()
    });
    lines
}

/// The report line of the model's optional sections, if it has any.
pub(crate) fn sections_line(fitted: &FittedKpca) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(map) = fitted.preimage_map() {
        parts.push(format!(
            "pre-image map ({}, alpha = {})",
            count(
                map.scores.len() / fitted.n_components().max(1),
                "score vector"
            ),
            float_text(map.alpha)
        ));
    }
    if let Some(head) = fitted.regression_head() {
        parts.push(format!(
            "regression head ({})",
            count(head.n_targets(), "target")
        ));
    }
    (!parts.is_empty()).then(|| format!("sections: {}", parts.join(", ")))
}

/// The warnings and the report of a fit whose model `blob` was written.
pub(crate) fn print_report(
    args: &FitArgs,
    console: &Console,
    fitted: &FittedKpca,
    blob: &ModelBlob,
) -> CliResult<()> {
    for w in fitted.warnings() {
        console.warning(&w.to_string());
    }
    for line in report_lines(fitted) {
        console.report(&line)?;
    }
    console.report(&format!(
        "model: {} ({} bytes: d = {}, m = {} stored points, k = {})",
        output_name(&args.output),
        blob.len(),
        fitted.n_features(),
        fitted.n_points(),
        fitted.n_components()
    ))?;
    if let Some(line) = sections_line(fitted) {
        console.report(&line)?;
    }
    if let Some(path) = &args.report {
        console.report(&format!("report: {}", output_name(path)))?;
    }
    Ok(())
}
