//! What `kpca fit` checks before any work: its flags (before the data is
//! read), the landmark list, and the data against the flags and the device
//! model's limits (before the fit). Every message names the flag as typed, the
//! limit and the value; rows and columns are 1-based, as in a CSV file.
//!
//! The limits come from the crates' constants: [`kpca_core::MAX_COMPONENTS`],
//! [`kpca_core::MAX_DIM`], [`kpca_core::MAX_POINTS`], [`kpca_core::MAX_DEGREE`] and
//! [`kpca_fit::MAX_FULL_POINTS`]; [`limits_help`] states them in `--help`.

use crate::error::{count, CliError, CliResult};
use crate::fit_args::FitArgs;
use crate::output::{float_text, number_text, Console};
use crate::table::{RowOrigin, Table};
use kpca_core::format::blob_len_for;
use kpca_core::{MAX_COMPONENTS, MAX_DEGREE, MAX_DIM, MAX_POINTS};
use kpca_fit::{FitError, KernelId, ParamSet, Solver, MAX_FULL_POINTS};

/// The largest magnitude whose square is finite in f32 (about 1.8e19): without
/// standardisation the device computes each row's squared norm in f32.
pub fn f32_square_limit() -> f64 {
    f64::from(f32::MAX).sqrt()
}

/// The limits paragraph of `kpca fit --help`, from the crates' constants.
pub fn limits_help() -> String {
    format!(
        "Limits (checked before the fit): --components 1 to {MAX_COMPONENTS} \
         (kpca::MAX_COMPONENTS); at most {MAX_DIM} input features (kpca::MAX_DIM); a full \
         fit takes at most {MAX_FULL_POINTS} training rows (kpca_fit::MAX_FULL_POINTS; use \
         --nystrom for more); --nystrom M needs --components <= M <= the number of rows and \
         at most {MAX_POINTS} landmarks (kpca::MAX_POINTS); --degree 1 to {MAX_DEGREE} \
         (kpca::MAX_DEGREE); --gamma > 0 and, like --coef0, within the f32 range once \
         rounded. The device model is f32: every input value must lie within the f32 range \
         (|x| <= {}) and, without --standardize, every row's squared norm too (values up to \
         about {:.1e}).",
        float_text(f32::MAX),
        f32_square_limit()
    )
}

/// What the kernel becomes with gamma = 0, for the message refusing it.
fn constant_with_zero_gamma(kernel: KernelId) -> &'static str {
    match kernel {
        KernelId::Polynomial => "coef0^degree",
        KernelId::Sigmoid => "tanh(coef0)",
        _ => "exp(0) = 1",
    }
}

/// Checks `--components` against 1..=[`MAX_COMPONENTS`].
fn check_components(k: usize) -> CliResult<()> {
    if k == 0 {
        return Err(CliError::usage(
            "--components 0: at least 1 component is needed",
        ));
    }
    if k > MAX_COMPONENTS {
        return Err(CliError::usage(format!(
            "--components {k}: at most {} fit the device model (kpca::MAX_COMPONENTS)",
            count(MAX_COMPONENTS, "component")
        )));
    }
    Ok(())
}

/// The message for a `--gamma` the fit refused ([`FitError::BadGamma`]:
/// not finite and > 0 in f64 or once rounded to f32), by what is wrong with it.
fn gamma_error(kernel: KernelId, g: f64) -> CliError {
    let g32 = g as f32;
    CliError::usage(if g == 0.0 {
        format!(
            "--gamma 0: with gamma = 0 every {} kernel value is the same constant ({}), so \
             there is no variance to find (scikit-learn accepts gamma = 0 and returns \
             eigenvalues 0 and all-zero components); the device model needs gamma > 0: give a \
             positive value, or leave --gamma out for 1/d",
            kernel.name(),
            constant_with_zero_gamma(kernel)
        )
    } else if !g.is_finite() || g < 0.0 {
        format!(
            "--gamma {}: gamma must be a finite number > 0",
            number_text(g)
        )
    } else if g32 == 0.0 {
        format!(
            "--gamma {}: rounds to 0 in f32, the device model's precision (the smallest \
             positive f32 is {})",
            number_text(g),
            float_text(f32::from_bits(1))
        )
    } else {
        format!(
            "--gamma {}: past the f32 range of the device model (at most {})",
            number_text(g),
            float_text(f32::MAX)
        )
    })
}

/// The fit's refusal of a kernel flag ([`kpca_fit::KernelSpec::check_f32`])
/// in the flag's words.
fn kernel_flag_error(kernel: KernelId, e: FitError) -> CliError {
    match e {
        FitError::BadGamma(g) => gamma_error(kernel, g),
        FitError::BadDegree(degree) => CliError::usage(format!(
            "--degree {degree}: the polynomial degree must be 1 to {MAX_DEGREE} \
             (kpca::MAX_DEGREE)"
        )),
        FitError::BadCoef0(c) => CliError::usage(format!(
            "--coef0 {}: must be a finite number within the f32 range of the device model \
             (|coef0| <= {})",
            number_text(c),
            float_text(f32::MAX)
        )),
        other => CliError::usage(other.to_string()),
    }
}

/// The kernels that use a parameter, for the warning about it: `"poly and
/// sigmoid"`.
fn users_of(uses: impl Fn(KernelId) -> bool) -> String {
    let names: Vec<&str> = KernelId::ALL
        .into_iter()
        .filter(|&k| uses(k))
        .map(KernelId::name)
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

/// Warns about a kernel parameter given to a kernel that does not use it.
fn warn_unused(console: &Console, flag: &str, value: &str, kernel: KernelId, users: &str) {
    let verb = if users.contains(' ') { "use" } else { "uses" };
    console.warning(&format!(
        "{flag} {value} is ignored: the {} kernel has no {} (only {users} {verb} it), as in \
         scikit-learn",
        kernel.name(),
        flag.trim_start_matches('-')
    ));
}

/// Warns about the kernel flags the kernel does not use ([`KernelId::uses`]),
/// then checks the ones it uses as the device model will hold them
/// ([`kpca_fit::KernelSpec::check_f32`], which implies the fit's check).
fn check_kernel_flags(args: &FitArgs, console: &Console) -> CliResult<()> {
    let kernel = args.kernel;
    type Param = fn(ParamSet) -> bool;
    let flags: [(&str, Option<String>, Param); 3] = [
        ("--gamma", args.gamma.map(number_text), |u| u.gamma),
        ("--degree", args.degree.map(|d| d.to_string()), |u| u.degree),
        ("--coef0", args.coef0.map(number_text), |u| u.coef0),
    ];
    for (flag, value, param) in flags {
        if let Some(value) = value.filter(|_| !param(kernel.uses())) {
            let users = users_of(|k| param(k.uses()));
            warn_unused(console, flag, &value, kernel, &users);
        }
    }
    args.kernel_spec()
        .check_f32()
        .map_err(|e| kernel_flag_error(kernel, e))
}

/// The message for more landmarks than the device model holds.
fn too_many_landmarks() -> String {
    format!(
        "at most {} fit the device model (kpca::MAX_POINTS)",
        count(MAX_POINTS, "landmark")
    )
}

/// The message for a landmark count outside k..=n.
fn landmark_range(k: usize, n: usize, data: &str) -> String {
    format!(
        "needs between {k} and {n} landmarks: at least one per component (--components {k}) \
         and at most one per training row ({data} has {})",
        count(n, "row")
    )
}

/// Everything about the flags that needs no data: the ranges of
/// `--components`, `--gamma`, `--degree`, `--coef0`, `--false-alarm-rate` and
/// `--nystrom` (at most [`MAX_POINTS`]; against `--components` and the rows in
/// [`check_data`], to name both bounds), and which inputs read standard input. Warns (on `console`)
/// about flags the chosen kernel or method ignores.
pub fn check_flags(args: &FitArgs, console: &Console) -> CliResult<()> {
    check_components(args.components)?;
    check_kernel_flags(args, console)?;
    let rate = args.false_alarm_rate;
    if !(rate > 0.0 && rate < 1.0) {
        return Err(CliError::usage(format!(
            "--false-alarm-rate {}: must be between 0 and 1, both excluded (the fraction of \
             training rows allowed above the anomaly threshold)",
            number_text(rate)
        )));
    }
    if let Some(m) = args.nystrom.filter(|&m| m > MAX_POINTS) {
        return Err(CliError::usage(format!(
            "--nystrom {m}: {}",
            too_many_landmarks()
        )));
    }
    let nystrom = args.nystrom.is_some() || args.landmarks.is_some();
    if let Some(solver) = args.solver.filter(|&s| nystrom && s != Solver::Auto) {
        console.warning(&format!(
            "--solver {} is ignored: a Nyström fit always solves its m x m problems densely",
            solver.name()
        ));
    }
    let stdin_landmarks = args
        .landmarks
        .as_deref()
        .is_some_and(crate::output::is_stdout);
    if stdin_landmarks && crate::output::is_stdout(&args.input) {
        return Err(CliError::usage(
            "--input - and --landmarks -: only one of them can read standard input",
        ));
    }
    Ok(())
}

/// Checks a landmark list read from `name`: its length against
/// [`MAX_POINTS`], and that no index repeats.
pub fn check_landmark_list(indices: &[usize], name: &str) -> CliResult<()> {
    if indices.len() > MAX_POINTS {
        return Err(CliError::input(format!(
            "{name}: {}: {}",
            count(indices.len(), "landmark"),
            too_many_landmarks()
        )));
    }
    let mut sorted = indices.to_vec();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(CliError::input(format!(
            "{name}: landmark index {} is listed more than once (landmarks are distinct \
             training rows)",
            w[0]
        )));
    }
    Ok(())
}

/// Per-column mean and standard deviation (ddof = 0) of a table, in f64.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnStats {
    /// Mean of each column.
    pub mean: Vec<f64>,
    /// Standard deviation of each column (ddof = 0, as the fit's standardisation).
    pub std: Vec<f64>,
}

impl ColumnStats {
    /// The statistics of `table`'s columns (two passes: the mean, then the
    /// squared deviations from it).
    pub fn of(table: &Table<f64>) -> ColumnStats {
        let (mean, std) = kpca_fit::hints::column_stats(&table.values, table.n_cols);
        ColumnStats { mean, std }
    }
}

/// Column `c` (0-based) for messages, 1-based and with its header name when
/// there is one: `column 3 ("ash")`.
pub fn column_text(table: &Table<f64>, c: usize) -> String {
    match table.header.as_ref().and_then(|h| h.get(c)) {
        Some(name) if !name.is_empty() => format!("column {} ({name:?})", c + 1),
        _ => format!("column {}", c + 1),
    }
}

/// Row `r` (0-based) for messages: `line 5` of a CSV file, `row 5 (numpy
/// index 4)` of an NPY array.
pub fn row_text(table: &Table<f64>, r: usize) -> String {
    table
        .origins
        .get(r)
        .copied()
        .unwrap_or(RowOrigin::NpyRow(r))
        .to_string()
}

/// Checks the table's size against `--components`, the device model's input
/// dimension and the full fit's row limit.
fn check_size(args: &FitArgs, table: &Table<f64>) -> CliResult<()> {
    let (n, d, k) = (table.n_rows(), table.n_cols, args.components);
    let name = &table.name;
    if d > MAX_DIM {
        return Err(CliError::input(format!(
            "{name}: {d} columns: the device model takes at most {MAX_DIM} input features \
             (kpca::MAX_DIM)"
        )));
    }
    if n < k + 1 {
        return Err(CliError::input(format!(
            "{name}: {}: --components {k} needs at least {k_plus} training rows (kernel PCA on \
             n rows has at most n - 1 components)",
            count(n, "row"),
            k_plus = k + 1
        )));
    }
    if args.nystrom.is_none() && args.landmarks.is_none() && n > MAX_FULL_POINTS {
        return Err(CliError::input(format!(
            "{name}: {n} rows: full kernel PCA takes at most {MAX_FULL_POINTS} rows \
             (kpca_fit::MAX_FULL_POINTS; its n x n kernel matrix would take {:.1} GiB): use \
             --nystrom M, for example --nystrom {}",
            (n as f64).powi(2) * 8.0 / f64::from(1u32 << 30),
            MAX_FULL_POINTS.min(n / 10).max(k)
        )));
    }
    Ok(())
}

/// Checks the landmarks (drawn or given) against the number of rows.
fn check_landmarks_in_range(
    args: &FitArgs,
    table: &Table<f64>,
    landmarks: Option<&[usize]>,
) -> CliResult<()> {
    let (n, k) = (table.n_rows(), args.components);
    if let Some(m) = args.nystrom.filter(|&m| m < k || m > n) {
        let msg = format!("--nystrom {m}: {}", landmark_range(k, n, &table.name));
        // Fewer than --components is the flags' fault; more than n the data's.
        return Err(if m < k {
            CliError::usage(msg)
        } else {
            CliError::input(msg)
        });
    }
    if let (Some(idx), Some(path)) = (landmarks, &args.landmarks) {
        let name = crate::table::Source::from_arg(path).name();
        if idx.len() < k || idx.len() > n {
            return Err(CliError::input(format!(
                "{name}: {}: {}",
                count(idx.len(), "landmark"),
                landmark_range(k, n, &table.name)
            )));
        }
        if let Some(&bad) = idx.iter().find(|&&i| i >= n) {
            return Err(CliError::input(format!(
                "{name}: landmark index {bad} is past the last training row ({} has {}: \
                 0-based indices 0 to {})",
                table.name,
                count(n, "row"),
                n - 1
            )));
        }
    }
    Ok(())
}

/// Checks every value against the f32 range and, without standardisation,
/// every row's squared norm (the device computes both in f32).
pub fn check_f32_range(table: &Table<f64>, standardize: bool) -> CliResult<()> {
    let max = f64::from(f32::MAX);
    for (r, row) in table.rows().enumerate() {
        if let Some(c) = row.iter().position(|v| v.abs() > max) {
            return Err(CliError::input(format!(
                "{}: {}, {}: {} is outside the f32 range (|x| <= {}): the device model is f32",
                table.name,
                row_text(table, r),
                column_text(table, c),
                number_text(row[c]),
                float_text(f32::MAX)
            )));
        }
        if standardize {
            continue;
        }
        let sq: f64 = row.iter().map(|&v| f64::from(v as f32).powi(2)).sum();
        if sq > max {
            let (c, v) = row.iter().enumerate().fold((0, 0.0f64), |b, (c, &v)| {
                if v.abs() > b.1.abs() {
                    (c, v)
                } else {
                    b
                }
            });
            return Err(CliError::input(format!(
                "{}: {}: the squared norm of this row ({sq:.2e}) overflows f32, the device \
                 model's precision (its largest value is {} in {}): rescale the data (values \
                 below about {:.1e}) or pass --standardize",
                table.name,
                row_text(table, r),
                number_text(v),
                column_text(table, c),
                f32_square_limit()
            )));
        }
    }
    Ok(())
}

/// Checks, with --standardize, that no column is constant.
fn check_constant_columns(table: &Table<f64>, stats: &ColumnStats) -> CliResult<()> {
    if let Some(c) = stats.std.iter().position(|&s| s == 0.0) {
        let value = table.values.get(c).copied().unwrap_or(0.0);
        return Err(CliError::input(format!(
            "{}: {} has the same value ({}) in every row: --standardize cannot divide by its \
             standard deviation 0; drop the column or leave out --standardize",
            table.name,
            column_text(table, c),
            number_text(value)
        )));
    }
    Ok(())
}

/// The stored points m of the model `args` would fit on `n` rows.
pub fn stored_points(args: &FitArgs, n: usize, landmarks: Option<&[usize]>) -> usize {
    match (args.nystrom, landmarks) {
        (Some(m), _) => m,
        (None, Some(idx)) => idx.len(),
        (None, None) => n,
    }
}

/// Checks that the blob of the model would fit the format's 32-bit length.
fn check_blob_len(
    args: &FitArgs,
    table: &Table<f64>,
    landmarks: Option<&[usize]>,
) -> CliResult<()> {
    let (d, k) = (table.n_cols, args.components);
    let m = stored_points(args, table.n_rows(), landmarks);
    let len = blob_len_for(d, m, k, args.standardize);
    if len.is_none_or(|l| u32::try_from(l).is_err()) {
        return Err(CliError::input(format!(
            "{}: the model would take {} bytes (d = {d}, m = {m} stored points, k = {k}): more \
             than the 4 GiB a blob can hold; use fewer --nystrom landmarks",
            table.name,
            len.map_or("over 2^64".into(), |l| l.to_string())
        )));
    }
    Ok(())
}

/// Everything about the data that the fit would otherwise find late or word
/// without the flags: the table's size against `--components`, the device
/// model's dimension and the full fit's row limit; the landmarks against the
/// rows; the f32 range of the values (and of each row's squared norm without
/// `--standardize`); constant columns with `--standardize`; the blob's size.
pub fn check_data(
    args: &FitArgs,
    table: &Table<f64>,
    stats: &ColumnStats,
    landmarks: Option<&[usize]>,
) -> CliResult<()> {
    check_size(args, table)?;
    check_landmarks_in_range(args, table, landmarks)?;
    check_f32_range(table, args.standardize)?;
    if args.standardize {
        check_constant_columns(table, stats)?;
    }
    check_blob_len(args, table, landmarks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_statistics_are_the_population_ones() {
        let table = crate::table::parse_table::<f64>(b"1,10\n2,10\n3,10\n6,10\n", "t").unwrap();
        let stats = ColumnStats::of(&table);
        // mean 3, deviations -2 -1 0 3: variance 14 / 4 = 3.5
        assert_eq!(stats.mean, [3.0, 10.0]);
        assert!((stats.std[0] - 3.5f64.sqrt()).abs() < 1e-15);
        assert_eq!(stats.std[1], 0.0);
    }

    #[test]
    fn positions_are_1_based_with_the_header_name() {
        let table = crate::table::parse_table::<f64>(b"a,b\n1,2\n3,4\n", "t").unwrap();
        assert_eq!(column_text(&table, 1), "column 2 (\"b\")");
        assert_eq!(row_text(&table, 1), "line 3");
        let bare = crate::table::parse_table::<f64>(b"1,2\n", "t").unwrap();
        assert_eq!(column_text(&bare, 0), "column 1");
    }

    #[test]
    fn the_limits_help_states_the_constants() {
        let text = limits_help();
        for n in [MAX_COMPONENTS, MAX_DIM, MAX_FULL_POINTS, MAX_POINTS] {
            assert!(text.contains(&n.to_string()), "{n} not in {text}");
        }
        assert!(text.contains(&format!("--degree 1 to {MAX_DEGREE}")));
    }

    #[test]
    fn the_f32_square_limit_is_where_squares_overflow() {
        let limit = f32_square_limit() as f32;
        assert!((limit * 0.999_999).powi(2).is_finite());
        assert!((limit * 1.000_001).powi(2).is_infinite());
    }
}
