//! `kpca fit` checks its flags before reading the data and the data before
//! fitting, naming the flag as typed, the limit (from the crates' constants)
//! and the value, with rows and columns from 1; and after a fit it prints
//! one-line hints on standard error about a model that is likely useless,
//! which --quiet silences. Runs the binary.

mod common;

use common::*;
use kpca_core::format::HEADER_LEN;
use kpca_core::{MAX_COMPONENTS, MAX_DEGREE, MAX_DIM, MAX_POINTS};
use kpca_fit::MAX_FULL_POINTS;
use std::path::PathBuf;

/// Deterministic pseudo-random numbers.
struct Lcg(u64);
impl Lcg {
    /// Uniform in [0, 1).
    fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Standard normal (Box-Muller).
    fn normal(&mut self) -> f64 {
        let u = self.uniform().max(1e-300);
        let v = self.uniform();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

fn csv(header: Option<&[&str]>, rows: &[Vec<f64>]) -> String {
    let mut text = header.map(|h| h.join(",") + "\n").unwrap_or_default();
    for r in rows {
        let fields: Vec<String> = r.iter().map(|v| format!("{v:?}")).collect();
        text += &(fields.join(",") + "\n");
    }
    text
}

struct Dir(tempfile::TempDir);

impl Dir {
    fn new() -> Dir {
        Dir(tempfile::tempdir().expect("temp dir"))
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
    fn p(&self, name: &str) -> String {
        self.path(name).to_str().expect("utf-8 path").to_string()
    }
    fn write(&self, name: &str, text: impl AsRef<[u8]>) -> String {
        std::fs::write(self.path(name), text).expect("written");
        self.p(name)
    }
    /// `kpca fit --input INPUT --output out.kpca ARGS...`.
    fn fit(&self, input: &str, args: &[&str]) -> (i32, String, String) {
        let out = self.p("out.kpca");
        let mut all = vec!["fit", "--input", input, "--output", &out];
        all.extend_from_slice(args);
        run(&all)
    }
}

/// A small ordinary training set: 40 rows of 3 features.
fn small_rows() -> Vec<Vec<f64>> {
    let mut g = Lcg(11);
    (0..40)
        .map(|i| {
            let t = f64::from(i) * 0.3;
            vec![t.cos() + 0.1 * g.normal(), t.sin(), 0.5 * g.normal()]
        })
        .collect()
}

fn assert_fails(got: (i32, String, String), code: i32, needles: &[&str]) {
    let (c, stdout, stderr) = got;
    assert_eq!(c, code, "exit {c}, stdout:\n{stdout}\nstderr:\n{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{n:?} not in stderr:\n{stderr}");
    }
}

#[test]
fn flag_limits_are_checked_before_the_data_is_read() {
    let dir = Dir::new();
    // The input does not exist: each error below comes before reading it.
    let missing = dir.p("missing.csv");
    let rbf = |extra: &[&str]| {
        let mut v = vec!["--kernel", "rbf"];
        v.extend_from_slice(extra);
        dir.fit(&missing, &v)
    };
    let over = (MAX_COMPONENTS + 1).to_string();
    assert_fails(
        rbf(&["--components", &over]),
        2,
        &[&format!(
            "--components {over}: at most {MAX_COMPONENTS} components fit the device model"
        )],
    );
    assert_fails(
        rbf(&["--components", "0"]),
        2,
        &["--components 0: at least 1 component is needed"],
    );
    let too_many = (MAX_POINTS + 1).to_string();
    assert_fails(
        rbf(&["--components", "1", "--nystrom", &too_many]),
        2,
        &[&format!(
            "at most {MAX_POINTS} landmarks fit the device model"
        )],
    );
    assert_fails(
        rbf(&["--components", "1", "--gamma", "-1"]),
        2,
        &["--gamma -1: gamma must be a finite number > 0"],
    );
    assert_fails(
        rbf(&["--components", "1", "--gamma", "1e-50"]),
        2,
        &["--gamma 1e-50: rounds to 0 in f32"],
    );
    assert_fails(
        rbf(&["--components", "1", "--false-alarm-rate", "0"]),
        2,
        &["--false-alarm-rate 0: must be between 0 and 1"],
    );
    let degree = (MAX_DEGREE + 1).to_string();
    let poly = dir.fit(
        &missing,
        &["--kernel", "poly", "--components", "1", "--degree", &degree],
    );
    assert_fails(
        poly,
        2,
        &[&format!(
            "--degree {degree}: the polynomial degree must be 1 to {MAX_DEGREE}"
        )],
    );
    let coef0 = dir.fit(
        &missing,
        &[
            "--kernel",
            "sigmoid",
            "--components",
            "1",
            "--coef0",
            "1e39",
        ],
    );
    assert_fails(
        coef0,
        2,
        &["--coef0 1e39: must be a finite number within the f32 range"],
    );
    // With valid flags, the missing file is the error.
    assert_fails(
        rbf(&["--components", "1"]),
        1,
        &["missing.csv: cannot read"],
    );
}

#[test]
fn gamma_zero_is_refused_because_the_device_kernel_needs_gamma_above_zero() {
    // The core refuses gamma = 0 in a model (kernel parameter check)...
    assert!(kpca_core::Kernel::Rbf { gamma: 0.0 }.validate().is_err());
    assert!(kpca_core::Kernel::Rbf {
        gamma: f32::from_bits(1)
    }
    .validate()
    .is_ok());
    // ... and the fit refuses it as a parameter.
    let spec = kpca_fit::KernelSpec::rbf(0.0);
    assert!(kpca_fit::KernelPca::params().kernel(spec).check().is_err());
    let dir = Dir::new();
    let input = dir.write("small.csv", csv(None, &small_rows()));
    for (kernel, constant) in [
        ("rbf", "exp(0) = 1"),
        ("laplacian", "exp(0) = 1"),
        ("poly", "coef0^degree"),
        ("sigmoid", "tanh(coef0)"),
    ] {
        let got = dir.fit(
            &input,
            &["--kernel", kernel, "--components", "1", "--gamma", "0"],
        );
        assert_fails(
            got,
            2,
            &[
                &format!("--gamma 0: with gamma = 0 every {kernel} kernel value is the same constant ({constant})"),
                "the device model needs gamma > 0",
            ],
        );
    }
    // The smallest positive f32 is accepted, and the model loads.
    let tiny = format!("{:?}", f32::from_bits(1));
    let (code, _, stderr) = dir.fit(
        &input,
        &[
            "--kernel",
            "rbf",
            "--components",
            "1",
            "--gamma",
            &tiny,
            "-q",
        ],
    );
    // A constant-looking kernel may have no positive eigenvalue: either way a
    // clear answer, never "cannot build the device model".
    assert!(
        code == 0 || stderr.contains("positive eigenvalue"),
        "{code}: {stderr}"
    );
    assert!(
        !stderr.contains("cannot build the device model"),
        "{stderr}"
    );
}

#[test]
fn data_checks_name_the_flag_the_limit_the_value_and_1_based_positions() {
    let dir = Dir::new();
    let small = dir.write("small.csv", csv(None, &small_rows()));
    assert_fails(
        dir.fit(
            &small,
            &["--kernel", "rbf", "--components", "2", "--nystrom", "41"],
        ),
        1,
        &[
            "--nystrom 41: needs between 2 and 40 landmarks: at least one per component \
           (--components 2) and at most one per training row (",
            "small.csv has 40 rows)",
        ],
    );
    // Too few for the components: the flags disagree (2), and n is named too.
    assert_fails(
        dir.fit(
            &small,
            &["--kernel", "rbf", "--components", "3", "--nystrom", "2"],
        ),
        2,
        &[
            "--nystrom 2: needs between 3 and 40 landmarks: at least one per component \
           (--components 3)",
        ],
    );
    let few = dir.write("few.csv", "1,2\n3,4\n5,7\n");
    assert_fails(
        dir.fit(&few, &["--kernel", "rbf", "--components", "3"]),
        1,
        &["few.csv: 3 rows: --components 3 needs at least 4 training rows"],
    );
    let idx = dir.write("idx.csv", "0\n5\n5\n");
    assert_fails(
        dir.fit(
            &small,
            &["--kernel", "rbf", "--components", "2", "--landmarks", &idx],
        ),
        1,
        &["idx.csv: landmark index 5 is listed more than once"],
    );
    let idx = dir.write("far.csv", "index\n0\n40\n");
    assert_fails(
        dir.fit(
            &small,
            &["--kernel", "rbf", "--components", "2", "--landmarks", &idx],
        ),
        1,
        &[
            "far.csv: landmark index 40 is past the last training row",
            "has 40 rows: 0-based indices 0 to 39",
        ],
    );
    let idx = dir.write("one.csv", "3\n");
    assert_fails(
        dir.fit(
            &small,
            &["--kernel", "rbf", "--components", "2", "--landmarks", &idx],
        ),
        1,
        &["one.csv: 1 landmark: needs between 2 and 40 landmarks"],
    );
    // Constant column, 1-based, with its header name.
    let constant = dir.write("const.csv", "a,b,c\n1,5,2\n2,5,1\n3,5,7\n");
    assert_fails(
        dir.fit(
            &constant,
            &["--kernel", "rbf", "--components", "1", "--standardize"],
        ),
        1,
        &[
            "const.csv: column 2 (\"b\") has the same value (5) in every row: --standardize \
           cannot divide by its standard deviation 0",
        ],
    );
}

#[test]
fn values_past_the_f32_range_are_named_with_their_position() {
    let dir = Dir::new();
    // 1e20 squared overflows f32: the device computes squared norms in f32.
    let big = dir.write("big.csv", "x,y\n1,2\n3,1e20\n4,5\n6,1\n");
    let limit = f64::from(f32::MAX).sqrt();
    assert!(1e20 > limit && 1e19 < limit);
    assert_fails(
        dir.fit(&big, &["--kernel", "rbf", "--components", "1"]),
        1,
        &[
            "big.csv: line 3: the squared norm of this row (1.00e40) overflows f32",
            "its largest value is 1e20 in column 2 (\"y\")",
            "or pass --standardize",
        ],
    );
    // Standardised, the device stores and squares standardised values: fine.
    let (code, _, stderr) = dir.fit(
        &big,
        &[
            "--kernel",
            "rbf",
            "--components",
            "1",
            "--standardize",
            "-q",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    // Past f32::MAX the value itself cannot reach the device.
    let huge = dir.write("huge.csv", "1,2\n3,4\n5,-1e39\n");
    assert_fails(
        dir.fit(
            &huge,
            &["--kernel", "rbf", "--components", "1", "--standardize"],
        ),
        1,
        &[
            "huge.csv: line 3, column 2: -1e39 is outside the f32 range (|x| <= 3.4028235e38): \
           the device model is f32",
        ],
    );
    // NPY rows are named from 1 too, with their numpy index.
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    let mut header = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }".to_string();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    npy.extend_from_slice(&(header.len() as u16).to_le_bytes());
    npy.extend_from_slice(header.as_bytes());
    for v in [1.0f64, 2.0, 3.0, 4.0, 5.0, 1e39] {
        npy.extend_from_slice(&v.to_le_bytes());
    }
    let input = dir.write("huge.npy", npy);
    assert_fails(
        dir.fit(&input, &["--kernel", "rbf", "--components", "1"]),
        1,
        &["huge.npy: row 3 (numpy index 2), column 2: 1e39 is outside the f32 range"],
    );
}

#[test]
fn a_model_past_the_f32_range_is_reported_once_with_the_flags_to_change() {
    let dir = Dir::new();
    // (1e3 x'z + 1)^16 is finite in f64 and past f32 for these rows.
    let input = dir.write("lin.csv", "1,2\n2,1\n3,5\n4,4\n5,9\n6,2\n");
    let args = [
        "--kernel",
        "poly",
        "--degree",
        "16",
        "--gamma",
        "1e3",
        "--components",
        "2",
    ];
    let (code, _, stderr) = dir.fit(&input, &args);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("lin.csv: the fitted model does not fit the f32 device model"),
        "{stderr}"
    );
    assert!(
        stderr.contains("use a smaller --gamma or --degree, or pass --standardize"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("device model").count(),
        1,
        "said once: {stderr}"
    );
}

#[test]
fn kernel_flags_the_kernel_does_not_use_are_ignored_with_a_warning() {
    let dir = Dir::new();
    let input = dir.write("small.csv", csv(None, &small_rows()));
    let (code, _, stderr) = dir.fit(&input, &["--kernel", "rbf", "--components", "2", "-q"]);
    assert_eq!(code, 0, "{stderr}");
    let plain = std::fs::read(dir.path("out.kpca")).unwrap();
    let (code, _, stderr) = dir.fit(
        &input,
        &[
            "--kernel",
            "rbf",
            "--components",
            "2",
            "--degree",
            "5",
            "--coef0",
            "2",
            "-q",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("kpca: warning: --degree 5 is ignored: the rbf kernel has no degree (only poly uses it)"), "{stderr}");
    assert!(stderr.contains("kpca: warning: --coef0 2 is ignored: the rbf kernel has no coef0 (only poly and sigmoid use it)"), "{stderr}");
    assert_eq!(
        std::fs::read(dir.path("out.kpca")).unwrap(),
        plain,
        "the same model"
    );
    let (_, _, stderr) = dir.fit(
        &input,
        &["--kernel", "linear", "--components", "2", "--gamma", "0.5"],
    );
    assert!(
        stderr.contains("--gamma 0.5 is ignored: the linear kernel has no gamma"),
        "{stderr}"
    );
    let (_, _, stderr) = dir.fit(
        &input,
        &[
            "--kernel",
            "rbf",
            "--components",
            "2",
            "--nystrom",
            "20",
            "--solver",
            "iterative",
        ],
    );
    assert!(
        stderr.contains("--solver iterative is ignored: a Nyström fit"),
        "{stderr}"
    );
}

#[test]
fn fit_help_states_the_limits_from_the_constants() {
    let (code, help, _) = run(&["fit", "--help"]);
    assert_eq!(code, 0);
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for needle in [
        format!("--components 1 to {MAX_COMPONENTS} (kpca::MAX_COMPONENTS)"),
        format!("at most {MAX_DIM} input features (kpca::MAX_DIM)"),
        format!("at most {MAX_FULL_POINTS} training rows (kpca_fit::MAX_FULL_POINTS"),
        format!("at most {MAX_POINTS} landmarks (kpca::MAX_POINTS)"),
        format!("--degree 1 to {MAX_DEGREE} (kpca::MAX_DEGREE)"),
        format!("1 to {MAX_COMPONENTS} (kpca::MAX_COMPONENTS, the device model's limit)"),
    ] {
        assert!(
            help.contains(&needle),
            "{needle:?} not in fit --help:\n{help}"
        );
    }
}

// ---------------------------------------------------------------- hints

/// The `kpca: hint:` lines of stderr.
fn hints(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("kpca: hint: "))
        .collect()
}

/// Like raw wine data: twelve columns of scale 0.2 to 2 and one of scale
/// about 300 in steps of 10 (so rows share values there).
fn winelike_rows() -> Vec<Vec<f64>> {
    let mut g = Lcg(5);
    let scales = [0.5, 1.0, 2.0, 0.3, 0.8, 1.2, 0.2, 0.6, 1.5, 0.9, 0.4, 0.7];
    (0..90)
        .map(|_| {
            let mut r: Vec<f64> = scales.iter().map(|s| s * g.normal()).collect();
            r.push(10.0 * ((750.0 + 300.0 * g.normal()) / 10.0).round());
            r
        })
        .collect()
}

/// Population standard deviation of column `c`.
fn column_std(rows: &[Vec<f64>], c: usize) -> f64 {
    let n = rows.len() as f64;
    let mean = rows.iter().map(|r| r[c]).sum::<f64>() / n;
    (rows.iter().map(|r| (r[c] - mean).powi(2)).sum::<f64>() / n).sqrt()
}

/// The "(total 0.0405)" of the report's explained-variance line.
fn reported_total(stdout: &str) -> f64 {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("explained variance ratio"))
        .expect("the explained variance line");
    let total = line.rsplit("(total ").next().unwrap().trim_end_matches(')');
    total.parse().expect("a number")
}

#[test]
fn a_tiny_kept_variance_gets_a_hint_naming_standardize_and_gamma() {
    let dir = Dir::new();
    let rows = winelike_rows();
    let names: Vec<String> = (1..=13).map(|j| format!("f{j}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let input = dir.write("winelike.csv", csv(Some(&names), &rows));
    let (code, stdout, stderr) = dir.fit(&input, &["--kernel", "rbf", "--components", "2"]);
    assert_eq!(code, 0, "{stderr}");
    let total = reported_total(&stdout);
    assert!(total < 0.05, "the data must keep under 5%: {total}");
    let hint = hints(&stderr)
        .into_iter()
        .find(|h| h.contains("of the variance"))
        .unwrap_or_else(|| panic!("no variance hint in:\n{stderr}"));
    // The hint's percentage (one decimal) is the report's total (four).
    let percent: f64 = hint
        .split("the 2 components keep only ")
        .nth(1)
        .and_then(|t| t.split('%').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no percentage in {hint}"));
    assert!(
        (percent - 100.0 * total).abs() <= 0.051,
        "{hint} vs {total}"
    );
    assert!(
        hint.contains("try --standardize (column scales differ by a factor of"),
        "{hint}"
    );
    assert!(hint.contains("or a smaller --gamma (now 0.07692"), "{hint}");
    // Standardised, the same data keeps more and gets no such hint.
    let (code, stdout, stderr) = dir.fit(
        &input,
        &["--kernel", "rbf", "--components", "2", "--standardize"],
    );
    assert_eq!(code, 0);
    assert!(reported_total(&stdout) > 0.05);
    assert!(!stderr.contains("of the variance"), "{stderr}");
}

#[test]
fn a_tiny_kept_variance_of_a_linear_kernel_suggests_more_components() {
    // 60 rows of 400 independent noise features: no direction stands out.
    let mut g = Lcg(9);
    let rows: Vec<Vec<f64>> = (0..60)
        .map(|_| (0..400).map(|_| g.normal()).collect())
        .collect();
    let dir = Dir::new();
    let input = dir.write("noise.csv", csv(None, &rows));
    let (code, stdout, stderr) = dir.fit(&input, &["--kernel", "linear", "--components", "1"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(reported_total(&stdout) < 0.05, "{stdout}");
    let hint = hints(&stderr)
        .into_iter()
        .find(|h| h.contains("of the variance"))
        .expect("a hint");
    assert!(
        hint.starts_with("kpca: hint: the 1 component keeps only"),
        "{hint}"
    );
    assert!(hint.ends_with("try more --components"), "{hint}");
}

#[test]
fn nearly_equal_eigenvalues_get_a_hint_with_the_median_heuristic() {
    let dir = Dir::new();
    let rows = small_rows();
    let input = dir.write("small.csv", csv(None, &rows));
    let (code, stdout, stderr) = dir.fit(
        &input,
        &[
            "--kernel",
            "rbf",
            "--components",
            "3",
            "--gamma",
            "1e6",
            "--standardize",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("1.000000  1.000000  1.000000"), "{stdout}");
    // 1 / median squared distance between the standardised rows, all pairs.
    let d = rows[0].len();
    let (mean, std): (Vec<f64>, Vec<f64>) = (0..d)
        .map(|c| {
            let m = rows.iter().map(|r| r[c]).sum::<f64>() / rows.len() as f64;
            (m, column_std(&rows, c))
        })
        .unzip();
    let z: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| (0..d).map(|c| (r[c] - mean[c]) / std[c]).collect())
        .collect();
    let mut dist = Vec::new();
    for i in 0..z.len() {
        for j in i + 1..z.len() {
            dist.push((0..d).map(|c| (z[i][c] - z[j][c]).powi(2)).sum::<f64>());
        }
    }
    dist.sort_by(f64::total_cmp);
    let median = (dist[dist.len() / 2 - 1] + dist[dist.len() / 2]) / 2.0;
    let gamma = 1.0 / median;
    let hint = hints(&stderr)
        .into_iter()
        .find(|h| h.contains("nearly equal"))
        .expect("a hint");
    assert!(
        hint.contains("the 3 kept eigenvalues are nearly equal"),
        "{hint}"
    );
    assert!(
        hint.contains("with --gamma 1e6 each row is similar almost only to itself"),
        "{hint}"
    );
    let text = hint
        .rsplit("the median heuristic gives ")
        .next()
        .unwrap()
        .trim_end_matches(')');
    let got: f64 = text.parse().expect("a number");
    assert!((got - gamma).abs() <= 1e-3 * gamma, "{got} vs {gamma}");
    // Not the low-variance hint as well: one diagnosis.
    assert!(!stderr.contains("of the variance"), "{stderr}");
}

#[test]
fn columns_whose_scales_are_far_apart_get_a_hint_without_standardize() {
    let dir = Dir::new();
    let mut g = Lcg(3);
    let rows: Vec<Vec<f64>> = (0..50)
        .map(|_| vec![0.01 * g.normal(), g.normal(), 50.0 * g.normal()])
        .collect();
    let input = dir.write("scales.csv", csv(Some(&["tiny", "unit", "wide"]), &rows));
    let ratio = column_std(&rows, 2) / column_std(&rows, 0);
    assert!(ratio > 1000.0, "{ratio}");
    let (code, _, stderr) = dir.fit(&input, &["--kernel", "rbf", "--components", "2"]);
    assert_eq!(code, 0);
    let hint = hints(&stderr)
        .into_iter()
        .find(|h| h.contains("column scales"))
        .expect("a hint");
    let factor: f64 = hint
        .split("differ by a factor of ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|t| t.parse().ok())
        .expect("the factor");
    assert!(
        (factor - ratio).abs() <= 1e-3 * ratio,
        "{factor} vs {ratio}"
    );
    assert!(
        hint.contains("in column 3 (\"wide\")") && hint.contains("in column 1 (\"tiny\")"),
        "{hint}"
    );
    assert!(hint.ends_with("try --standardize"), "{hint}");
    let (_, _, stderr) = dir.fit(
        &input,
        &["--kernel", "rbf", "--components", "2", "--standardize"],
    );
    assert!(!stderr.contains("column scales"), "{stderr}");
}

#[test]
fn a_model_over_256_kib_gets_a_hint_with_the_landmarks_that_fit() {
    // 70 rows of 1000 features: 70 x 1000 floats alone are 273 KiB.
    let mut g = Lcg(21);
    let rows: Vec<Vec<f64>> = (0..70)
        .map(|_| (0..1000).map(|_| g.normal()).collect())
        .collect();
    let dir = Dir::new();
    let input = dir.write("wide.csv", csv(None, &rows));
    let k = 2;
    let (code, stdout, stderr) = dir.fit(&input, &["--kernel", "rbf", "--components", "2"]);
    assert_eq!(code, 0, "{stderr}");
    let size = std::fs::metadata(dir.path("out.kpca")).unwrap().len() as usize;
    assert!(size > 256 * 1024 && stdout.contains(&format!("({size} bytes")));
    // Header, CRC, then per point d + 1 (norm) + k (A) + 1 (c) floats, and 2k.
    let per_point = 4 * (1000 + 2 + k);
    // The rbf model also stores its input map (the centre it is stored
    // relative to, and 1/std = 1): 2 d floats.
    let fixed = HEADER_LEN + 4 + 4 * 2 * k + 4 * 2 * 1000;
    let m = (256 * 1024 - fixed) / per_point;
    let hint = hints(&stderr)
        .into_iter()
        .find(|h| h.contains("flash"))
        .expect("a hint");
    assert!(
        hint.contains(&format!(
            "({size} bytes, 70 stored points of 1000 features)"
        )),
        "{hint}"
    );
    assert!(
        hint.contains(&format!(
            "--nystrom {m} (or fewer landmarks) keeps it within 256 KiB"
        )),
        "{hint}"
    );
    // The advice holds: m landmarks fit, m + 1 do not.
    for (landmarks, fits) in [(m, true), (m + 1, false)] {
        let ms = landmarks.to_string();
        let (code, _, stderr) = dir.fit(
            &input,
            &[
                "--kernel",
                "rbf",
                "--components",
                "2",
                "--nystrom",
                &ms,
                "-q",
            ],
        );
        assert_eq!(code, 0, "{stderr}");
        let len = std::fs::metadata(dir.path("out.kpca")).unwrap().len() as usize;
        assert_eq!(
            len <= 256 * 1024,
            fits,
            "{landmarks} landmarks: {len} bytes"
        );
    }
    // inspect and export say it too; --quiet silences them.
    let big = dir.p("big.kpca");
    dir.fit(&input, &["--kernel", "rbf", "--components", "2", "-q"]);
    std::fs::rename(dir.path("out.kpca"), &big).unwrap();
    let (_, _, stderr) = run(&["inspect", &big]);
    assert!(stderr.contains("a fit with --nystrom"), "{stderr}");
    let (_, _, stderr) = run(&["inspect", "-q", &big]);
    assert_eq!(stderr, "");
    let out_dir = dir.p("e");
    let (_, _, stderr) = run(&["export", "--model", &big, "--output-dir", &out_dir]);
    assert!(stderr.contains("more than the 256 KiB"), "{stderr}");
}

#[test]
fn quiet_silences_every_hint_but_keeps_warnings() {
    let dir = Dir::new();
    let rows = winelike_rows();
    let input = dir.write("winelike.csv", csv(None, &rows));
    let (code, stdout, stderr) = dir.fit(&input, &["--kernel", "rbf", "--components", "2"]);
    assert_eq!(code, 0);
    assert!(hints(&stderr).len() >= 2, "{stderr}");
    assert!(!stdout.is_empty());
    let (code, stdout, stderr) =
        dir.fit(&input, &["--kernel", "rbf", "--components", "2", "--quiet"]);
    assert_eq!(code, 0);
    assert_eq!((stdout.as_str(), stderr.as_str()), ("", ""));
    let (_, _, stderr) = dir.fit(
        &input,
        &[
            "--kernel",
            "rbf",
            "--components",
            "2",
            "-q",
            "--degree",
            "2",
        ],
    );
    assert!(
        stderr.contains("kpca: warning: --degree 2 is ignored"),
        "{stderr}"
    );
    assert!(hints(&stderr).is_empty(), "{stderr}");
}
