//! The `kpca` binary end to end: fit -> inspect -> project -> export -> plot, on
//! CSV and NPY input, through files and pipes; error messages and exit codes;
//! the help text of every subcommand; the exported C compiled against the host
//! static library and run.

mod common;

use common::*;
use kpca_core::ModelRef;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

// ---------------------------------------------------------------- helpers

/// Runs and asserts the exit code and that stderr contains every `needles`.
fn fails(args: &[&str], code: i32, needles: &[&str]) -> String {
    let (got, stdout, stderr) = run(args);
    assert_eq!(got, code, "kpca {args:?}: exit {got}\n{stdout}\n{stderr}");
    for n in needles {
        assert!(
            stderr.contains(n),
            "kpca {args:?}: {n:?} not in stderr:\n{stderr}"
        );
    }
    stderr
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

/// Deterministic pseudo-random values in [-1, 1).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// n rows of d features: a noisy ring in the first two features, scaled noise
/// elsewhere, with an offset so that standardisation matters.
fn dataset(n: usize, d: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut g = Lcg(seed);
    (0..n)
        .map(|i| {
            let t = i as f64 * 0.37;
            (0..d)
                .map(|j| match j {
                    0 => 3.0 + t.cos() + 0.05 * g.next(),
                    1 => -2.0 + 2.0 * t.sin() + 0.05 * g.next(),
                    _ => 0.3 * j as f64 * g.next(),
                })
                .collect()
        })
        .collect()
}

fn csv_text(rows: &[Vec<f64>]) -> String {
    rows.iter()
        .map(|r| {
            r.iter()
                .map(|v| format!("{v:?}"))
                .collect::<Vec<_>>()
                .join(",")
                + "\n"
        })
        .collect()
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::write(path, bytes).expect("temp file written");
}

/// An NPY file (version 1.0, C order) of `rows`, as f64 (`<f8`) or f32 (`<f4`).
fn npy(rows: &[Vec<f64>], f32_data: bool) -> Vec<u8> {
    let (n, d) = (rows.len(), rows[0].len());
    let descr = if f32_data { "<f4" } else { "<f8" };
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({n}, {d}), }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for r in rows {
        for &v in r {
            if f32_data {
                out.extend_from_slice(&(v as f32).to_le_bytes());
            } else {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    out
}

/// Parses CSV output of `kpca project` into rows of f32.
fn parse_scores(text: &str) -> Vec<Vec<f32>> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split(',')
                .map(|f| f.parse::<f32>().expect("a float"))
                .collect()
        })
        .collect()
}

fn with_model<T>(blob: &[u8], f: impl FnOnce(ModelRef<'_>) -> T) -> T {
    // A ModelBlob holds the blob at a 4-byte-aligned address, validated once.
    let blob = kpca_fit::ModelBlob::from_bytes(blob).expect("valid blob");
    f(*blob.model())
}

struct Fixture {
    dir: tempfile::TempDir,
    train: Vec<Vec<f64>>,
    test: Vec<Vec<f64>>,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let train = dataset(120, 5, 1);
        let test = dataset(40, 5, 2);
        write(&dir.path().join("train.csv"), csv_text(&train));
        write(&dir.path().join("test.csv"), csv_text(&test));
        Fixture { dir, train, test }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn p(&self, name: &str) -> String {
        s(&self.path(name)).to_string()
    }
    fn fit(&self, extra: &[&str], out: &str) -> String {
        let (train, model) = (self.p("train.csv"), self.p(out));
        let mut args = vec!["fit", "--input", &train, "--output", &model];
        args.extend_from_slice(extra);
        ok(&args)
    }
}

const RBF: &[&str] = &[
    "--kernel",
    "rbf",
    "--gamma",
    "0.3",
    "--components",
    "3",
    "--standardize",
];

// ---------------------------------------------------------------- tests

#[test]
fn fit_inspect_project_export_plot() {
    let fx = Fixture::new();
    let out = fx.fit(RBF, "model.kpca");
    for needle in [
        "eigenvalues",
        "explained variance ratio",
        "anomaly threshold",
        "bytes",
        "time:",
        "rbf (gamma = 0.3)",
        "standardised: yes",
    ] {
        assert!(out.contains(needle), "{needle:?} not in fit output:\n{out}");
    }
    let blob = std::fs::read(fx.path("model.kpca")).unwrap();
    assert_eq!(&blob[..4], b"KPCA");
    assert!(out.contains(&format!("{} bytes", blob.len())), "{out}");

    // inspect
    let info = ok(&["inspect", &fx.p("model.kpca")]);
    for needle in [
        "kernel: rbf (gamma = 0.3)",
        "input dimension d: 5",
        "stored points m: 120",
        "components k: 3",
        "standardised input: yes",
        &format!("flash: {} bytes", blob.len()),
        &format!("format: version {}", kpca_core::format::FORMAT_VERSION),
        "training rows, total variance ",
        "eigenvalues (of the centred kernel matrix, scikit-learn's eigenvalues_)",
        "explained variance (share of the fit's total variance)",
        "anomaly threshold: ",
        "check: OK",
    ] {
        assert!(
            info.contains(needle),
            "{needle:?} not in inspect output:\n{info}"
        );
    }

    // project (file to file), with the anomaly score, against the core directly
    ok(&[
        "project",
        "--model",
        &fx.p("model.kpca"),
        "--input",
        &fx.p("test.csv"),
        "--output",
        &fx.p("scores.csv"),
        "--anomaly-score",
    ]);
    let scores = parse_scores(&std::fs::read_to_string(fx.path("scores.csv")).unwrap());
    assert_eq!(scores.len(), fx.test.len());
    with_model(&blob, |model| {
        for (row, got) in fx.test.iter().zip(&scores) {
            let x: Vec<f32> = row.iter().map(|&v| v as f32).collect();
            let mut y = [0.0f32; 3];
            let e = model.project_and_score(&x, &mut y).unwrap();
            assert_eq!(got.len(), 4);
            for (a, b) in got.iter().zip(y.iter().chain([e].iter())) {
                assert_eq!(
                    a.to_bits(),
                    b.to_bits(),
                    "CSV output must round-trip the f32"
                );
            }
        }
    });

    // the same through stdin/stdout, with a header line
    let test_csv = std::fs::read(fx.path("test.csv")).unwrap();
    let (code, stdout, stderr) = run_stdin(
        &[
            "project",
            "--model",
            &fx.p("model.kpca"),
            "--input",
            "-",
            "--output",
            "-",
            "--anomaly-score",
            "--header",
        ],
        &test_csv,
    );
    assert_eq!(code, 0, "{stderr}");
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("y1,y2,y3,anomaly_score"));
    let rest: String = lines.map(|l| format!("{l}\n")).collect();
    assert_eq!(parse_scores(&rest), scores);
    // without --anomaly-score: only the k coordinates
    let (code, stdout, _) = run_stdin(
        &["project", "--model", &fx.p("model.kpca"), "--input", "-"],
        &test_csv,
    );
    assert_eq!(code, 0);
    let coords = parse_scores(&stdout);
    assert!(coords.iter().zip(&scores).all(|(c, s)| c[..] == s[..3]));

    // export: C pair, raw blob, Rust source
    let outdir = fx.path("export");
    for format in ["c", "blob", "rust"] {
        let out = ok(&[
            "export",
            "--model",
            &fx.p("model.kpca"),
            "--format",
            format,
            "--name",
            "sensor_model",
            "--output-dir",
            s(&outdir),
        ]);
        assert!(out.contains("wrote"), "{out}");
    }
    let h = std::fs::read_to_string(outdir.join("sensor_model.h")).unwrap();
    let c = std::fs::read_to_string(outdir.join("sensor_model.c")).unwrap();
    assert!(
        h.contains("extern const uint8_t sensor_model_blob[];"),
        "{h}"
    );
    assert!(h.contains(&format!("#define SENSOR_MODEL_BLOB_LEN {}u", blob.len())));
    assert!(c.contains("#include \"sensor_model.h\""));
    assert_eq!(
        std::fs::read(outdir.join("sensor_model.kpca")).unwrap(),
        blob
    );
    let rs = std::fs::read_to_string(outdir.join("sensor_model.rs")).unwrap();
    assert!(rs.contains("pub static SENSOR_MODEL"), "{rs}");

    // plot: one SVG with both panels, then scatter and scree apart
    let labels: String = (0..fx.test.len())
        .map(|i| {
            if i % 3 == 0 {
                "pump_on\n"
            } else {
                "pump_off\n"
            }
        })
        .collect();
    write(&fx.path("labels.csv"), format!("state\n{labels}"));
    ok(&[
        "plot",
        "--model",
        &fx.p("model.kpca"),
        "--input",
        &fx.p("test.csv"),
        "--labels",
        &fx.p("labels.csv"),
        "--output",
        &fx.p("fig.svg"),
    ]);
    let svg = std::fs::read_to_string(fx.path("fig.svg")).unwrap();
    let texts = svg_texts(&svg);
    for needle in [
        "component 1",
        "component 2",
        "pump_on (14)",
        "pump_off (26)",
        "explained variance",
        "cumulative",
    ] {
        assert!(
            texts.iter().any(|t| t.contains(needle)),
            "{needle:?} not among the SVG texts {texts:?}"
        );
    }
    assert!(svg_circles(&svg) >= fx.test.len());
    ok(&[
        "plot",
        "--model",
        &fx.p("model.kpca"),
        "--input",
        &fx.p("test.csv"),
        "--output",
        &fx.p("scatter.svg"),
        "--scree-output",
        &fx.p("scree.svg"),
    ]);
    let scatter = svg_texts(&std::fs::read_to_string(fx.path("scatter.svg")).unwrap());
    let scree = svg_texts(&std::fs::read_to_string(fx.path("scree.svg")).unwrap());
    assert!(scatter.iter().any(|t| t.contains("component 2")));
    assert!(!scatter.iter().any(|t| t.contains("cumulative")));
    assert!(scree.iter().any(|t| t.contains("cumulative")));
}

/// Parses the SVG (it must be well-formed XML with an `svg` root) and returns
/// the contents of its `<text>` elements.
fn svg_texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is valid XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert!(root.attribute("width").is_some() && root.attribute("viewBox").is_some());
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect()
}

fn svg_circles(svg: &str) -> usize {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is valid XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("circle"))
        .count()
}

#[test]
fn csv_variants_and_npy_give_the_same_model() {
    let fx = Fixture::new();
    fx.fit(RBF, "plain.kpca");
    let plain = std::fs::read(fx.path("plain.kpca")).unwrap();
    // whitespace-separated, header line, comments, blank lines, CRLF
    let mut text = String::from("# sensor log\r\nf1 f2 f3 f4 f5\r\n");
    for r in &fx.train {
        let row: Vec<String> = r.iter().map(|v| format!("{v:?}")).collect();
        text += &format!("  {}\t# reading\r\n\r\n", row.join("  "));
    }
    write(&fx.path("ws.txt"), text);
    let (ws, out) = (fx.p("ws.txt"), fx.p("ws.kpca"));
    let mut args = vec!["fit", "--input", &ws, "--output", &out];
    args.extend_from_slice(RBF);
    ok(&args);
    assert_eq!(std::fs::read(fx.path("ws.kpca")).unwrap(), plain);
    // NPY f64, from a file and from stdin
    write(&fx.path("train.npy"), npy(&fx.train, false));
    let (np, out) = (fx.p("train.npy"), fx.p("npy.kpca"));
    let mut args = vec!["fit", "--input", &np, "--output", &out];
    args.extend_from_slice(RBF);
    ok(&args);
    assert_eq!(std::fs::read(fx.path("npy.kpca")).unwrap(), plain);
    let out2 = fx.p("npy_stdin.kpca");
    let mut args = vec!["fit", "--input", "-", "--output", &out2];
    args.extend_from_slice(RBF);
    let (code, _, stderr) = run_stdin(&args, &npy(&fx.train, false));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read(fx.path("npy_stdin.kpca")).unwrap(), plain);
    // project from an f32 NPY file: the same numbers as from the CSV
    write(&fx.path("test.npy"), npy(&fx.test, true));
    let model = fx.p("plain.kpca");
    let from_csv = ok(&["project", "--model", &model, "--input", &fx.p("test.csv")]);
    let from_npy = ok(&["project", "--model", &model, "--input", &fx.p("test.npy")]);
    assert_eq!(from_csv, from_npy);
    // a 1-D NPY array of length d is one vector
    let one = npy(&fx.test[..1], true);
    let mut one_d = one.clone();
    let shape = format!("(1, {})", fx.test[0].len());
    let at = one
        .windows(shape.len())
        .position(|w| w == shape.as_bytes())
        .unwrap();
    let flat = format!("({},)", fx.test[0].len());
    one_d.splice(
        at..at + shape.len(),
        format!("{flat:<width$}", width = shape.len()).bytes(),
    );
    write(&fx.path("one.npy"), one_d);
    let single = ok(&["project", "--model", &model, "--input", &fx.p("one.npy")]);
    assert_eq!(
        single.lines().collect::<Vec<_>>(),
        from_csv.lines().take(1).collect::<Vec<_>>()
    );
}

#[test]
fn nystrom_and_landmarks() {
    let fx = Fixture::new();
    let common = ["--kernel", "rbf", "--components", "2"];
    let mut a = common.to_vec();
    a.extend_from_slice(&["--nystrom", "30", "--seed", "7"]);
    let out = fx.fit(&a, "ny1.kpca");
    assert!(
        out.contains("Nyström kernel PCA, 30 landmarks (seed 7)"),
        "{out}"
    );
    fx.fit(&a, "ny2.kpca");
    assert_eq!(
        std::fs::read(fx.path("ny1.kpca")).unwrap(),
        std::fs::read(fx.path("ny2.kpca")).unwrap(),
        "the same seed gives the same model"
    );
    let info = ok(&["inspect", &fx.p("ny1.kpca")]);
    assert!(info.contains("stored points m: 30"), "{info}");
    // gamma defaults to 1/d
    assert!(info.contains("kernel: rbf (gamma = 0.2)"), "{info}");
    // The other landmark methods: valid models of m points, other landmarks
    // than the uniform draw of the same seed.
    for (method, file) in [("kmeans++", "km.kpca"), ("rpcholesky", "rpc.kpca")] {
        let mut c = a.clone();
        c.extend_from_slice(&["--landmark-method", method]);
        fx.fit(&c, file);
        let info = ok(&["inspect", &fx.p(file)]);
        assert!(
            info.contains("check: OK") && info.contains("stored points m: 30"),
            "{method}: {info}"
        );
        assert_ne!(
            std::fs::read(fx.path(file)).unwrap(),
            std::fs::read(fx.path("ny1.kpca")).unwrap(),
            "{method} chose the uniform draw's landmarks"
        );
    }

    let idx: String = (0..120).step_by(4).map(|i| format!("{i}\n")).collect();
    write(&fx.path("idx.csv"), format!("index\n{idx}"));
    let idx_path = fx.p("idx.csv");
    let mut b = common.to_vec();
    b.extend_from_slice(&["--landmarks", &idx_path]);
    let out = fx.fit(&b, "lm.kpca");
    assert!(out.contains("30 given landmarks"), "{out}");
    let info = ok(&["inspect", &fx.p("lm.kpca")]);
    assert!(info.contains("stored points m: 30"), "{info}");
    // every solver and kernel name is accepted
    for solver in ["auto", "dense", "iterative"] {
        fx.fit(
            &["--kernel", "rbf", "--components", "2", "--solver", solver],
            "s.kpca",
        );
    }
    for kernel in ["linear", "poly", "rbf", "laplacian", "cosine"] {
        fx.fit(&["--kernel", kernel, "--components", "2"], "k.kpca");
    }
    let out = fx.fit(
        &[
            "--kernel",
            "sigmoid",
            "--gamma",
            "0.05",
            "--coef0",
            "-0.5",
            "--components",
            "2",
        ],
        "sig.kpca",
    );
    assert!(out.contains("coef0 = -0.5"), "{out}");
    let out = fx.fit(
        &[
            "--kernel",
            "poly",
            "--degree",
            "2",
            "--coef0",
            "0.5",
            "--components",
            "2",
            "--false-alarm-rate",
            "0.05",
        ],
        "poly.kpca",
    );
    assert!(out.contains("false-alarm rate 0.05"), "{out}");
    let info = ok(&["inspect", &fx.p("poly.kpca")]);
    assert!(
        info.contains("poly (gamma = 0.2, degree = 2, coef0 = 0.5)"),
        "{info}"
    );
}

#[test]
fn bad_input_exits_1_naming_file_line_column() {
    let fx = Fixture::new();
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "ragged.csv",
            "1,2,3\n4,5,6\n7,8\n",
            &["ragged.csv: line 3: ragged row: 2 values, but line 1 has 3"],
        ),
        (
            "text.csv",
            "a,b\n1,2\n3,x\n",
            &["text.csv: line 3, column 2: expected a number, found \"x\""],
        ),
        (
            "nan.csv",
            "1,2\n3,4\nNaN,5\n",
            &["nan.csv: line 3, column 1: NaN is not allowed"],
        ),
        (
            "inf.csv",
            "1,2\n3,-inf\n",
            &["inf.csv: line 2, column 2: infinity is not allowed"],
        ),
        ("empty.csv", "", &["empty.csv: empty file"]),
        (
            "comments.csv",
            "# nothing\n\n",
            &["comments.csv: empty file"],
        ),
        (
            "header_only.csv",
            "a,b\n",
            &["header_only.csv: no data rows"],
        ),
        (
            "blank_lines.csv",
            "x,y\n\n1,2\n\n# calibration\n\n3,oops\n",
            &["blank_lines.csv: line 7, column 2: expected a number, found \"oops\""],
        ),
        (
            "hole.csv",
            "1,2\n3,\n",
            &["hole.csv: line 2, column 2: empty field"],
        ),
    ];
    for (name, text, needles) in cases {
        write(&fx.path(name), text);
        let input = fx.p(name);
        let out = fx.p("x.kpca");
        fails(
            &[
                "fit",
                "--input",
                &input,
                "--kernel",
                "rbf",
                "--components",
                "1",
                "--output",
                &out,
            ],
            1,
            needles,
        );
    }
    let missing = fx.p("missing.csv");
    let out = fx.p("x.kpca");
    fails(
        &[
            "fit",
            "--input",
            &missing,
            "--kernel",
            "rbf",
            "--components",
            "1",
            "--output",
            &out,
        ],
        1,
        &["missing.csv: cannot read"],
    );
    // Fortran-order NPY
    let mut f = npy(&fx.train, false);
    let pos = f.windows(5).position(|w| w == b"False").unwrap();
    f.splice(pos..pos + 5, b"True ".iter().copied());
    write(&fx.path("fortran.npy"), f);
    let input = fx.p("fortran.npy");
    fails(
        &[
            "fit",
            "--input",
            &input,
            "--kernel",
            "rbf",
            "--components",
            "1",
            "--output",
            &out,
        ],
        1,
        &["fortran.npy: Fortran-order array"],
    );
    // data the fit cannot use
    write(&fx.path("const.csv"), "1,2\n1,3\n1,4\n");
    let input = fx.p("const.csv");
    fails(
        &[
            "fit",
            "--input",
            &input,
            "--kernel",
            "rbf",
            "--components",
            "1",
            "--standardize",
            "--output",
            &out,
        ],
        1,
        &["const.csv: column 1 has the same value (1) in every row: --standardize cannot divide"],
    );
    fails(
        &[
            "fit",
            "--input",
            &input,
            "--kernel",
            "rbf",
            "--components",
            "5",
            "--output",
            &out,
        ],
        1,
        &["const.csv: 3 rows: --components 5 needs at least 6 training rows"],
    );

    // project: wrong width, bad model
    fx.fit(RBF, "model.kpca");
    write(&fx.path("narrow.csv"), "1,2\n");
    let (model, narrow) = (fx.p("model.kpca"), fx.p("narrow.csv"));
    fails(
        &["project", "--model", &model, "--input", &narrow],
        1,
        &["narrow.csv: 2 columns, but the model's input dimension is d = 5"],
    );
    let mut blob = std::fs::read(fx.path("model.kpca")).unwrap();
    let last = blob.len() - 10;
    blob[last] ^= 0x55;
    write(&fx.path("corrupt.kpca"), &blob);
    let corrupt = fx.p("corrupt.kpca");
    let (code, stdout, stderr) = run(&["inspect", &corrupt]);
    assert_eq!(code, 1);
    assert!(stdout.contains("CRC-32: stored 0x"), "{stdout}");
    assert!(stdout.contains("MISMATCH"), "{stdout}");
    assert!(
        stdout.contains("check: FAILED: model blob CRC-32 mismatch"),
        "{stdout}"
    );
    assert!(
        stderr.contains("corrupt.kpca: not a valid kpca model"),
        "{stderr}"
    );
    let test = fx.p("test.csv");
    fails(
        &["project", "--model", &corrupt, "--input", &test],
        1,
        &["corrupt.kpca: not a valid kpca model: model blob CRC-32 mismatch"],
    );
    write(&fx.path("short.kpca"), &blob[..10]);
    let short = fx.p("short.kpca");
    fails(
        &["inspect", &short],
        1,
        &["short.kpca: not a valid kpca model: model blob is truncated"],
    );
    fails(&["export", "--model", &short], 1, &["short.kpca"]);
    // labels that do not match the rows
    write(&fx.path("few.csv"), "a\nb\n");
    let (few, fig) = (fx.p("few.csv"), fx.p("fig.svg"));
    fails(
        &[
            "plot", "--model", &model, "--input", &test, "--labels", &few, "--output", &fig,
        ],
        1,
        &["few.csv: 2 labels, but the data has 40 rows"],
    );
}

#[test]
fn usage_errors_exit_2() {
    let fx = Fixture::new();
    let (train, out) = (fx.p("train.csv"), fx.p("m.kpca"));
    let base = [
        "fit",
        "--input",
        &train,
        "--output",
        &out,
        "--components",
        "2",
    ];
    let with = |extra: &[&str]| {
        let mut v: Vec<&str> = base.to_vec();
        v.extend_from_slice(extra);
        v.iter().map(|s| s.to_string()).collect::<Vec<String>>()
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (with(&["--kernel", "gaussian"]), "invalid value 'gaussian'"),
        (with(&["--kernel", "rbf", "--seed", "3"]), "--nystrom"),
        (
            with(&["--kernel", "rbf", "--nystrom", "10", "--landmarks", "x.csv"]),
            "cannot be used with",
        ),
        (
            with(&["--kernel", "rbf", "--gamma", "-1"]),
            "--gamma -1: gamma must be a finite number > 0",
        ),
        (
            with(&["--kernel", "poly", "--degree", "0"]),
            "--degree 0: the polynomial degree must be 1 to 16",
        ),
        (
            with(&["--kernel", "rbf", "--false-alarm-rate", "2"]),
            "--false-alarm-rate 2: must be between 0 and 1",
        ),
        (
            with(&["--kernel", "rbf", "--solver", "magic"]),
            "invalid value 'magic'",
        ),
        (vec!["fit".to_string()], "required"),
        (vec!["frobnicate".to_string()], "unrecognized subcommand"),
    ];
    for (args, needle) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fails(&args, 2, &[needle]);
    }
    fx.fit(RBF, "model.kpca");
    let model = fx.p("model.kpca");
    fails(
        &["export", "--model", &model, "--name", "2bad"],
        2,
        &["--name: invalid name \"2bad\""],
    );
    fails(
        &[
            "export", "--model", &model, "--format", "rust", "--name", "fn",
        ],
        2,
        &["keyword"],
    );
}

#[test]
fn no_progress_output_when_not_a_terminal() {
    let fx = Fixture::new();
    let (train, out) = (fx.p("train.csv"), fx.p("m.kpca"));
    let (code, _, stderr) = run(&[
        "fit",
        "--input",
        &train,
        "--output",
        &out,
        "--kernel",
        "rbf",
        "--components",
        "2",
    ]);
    assert_eq!(code, 0);
    // stderr is a pipe here: indicatif must not draw (no spinner, no escape codes).
    assert_eq!(stderr, "", "unexpected stderr: {stderr:?}");
}

/// Every option of every subcommand is documented, with its default or
/// "(required)".
#[test]
fn help_is_complete() {
    let expected: &[(&str, &[&str])] = &[
        (
            "fit",
            &[
                "--input",
                "--kernel",
                "--gamma",
                "--components",
                "--degree",
                "--coef0",
                "--standardize",
                "--nystrom",
                "--seed",
                "--landmark-method",
                "--landmarks",
                "--solver",
                "--false-alarm-rate",
                "--output",
                "--target",
                "--inverse-transform",
                "--alpha",
                "--report",
                "--bound-confidence",
                "--stream",
                "--quiet",
            ],
        ),
        (
            "predict",
            &["--model", "--input", "--output", "--header", "--truth"],
        ),
        (
            "reconstruct",
            &[
                "--model",
                "--input",
                "--output",
                "--iterate",
                "--residual",
                "--header",
            ],
        ),
        (
            "project",
            &[
                "--model",
                "--input",
                "--output",
                "--anomaly-score",
                "--header",
            ],
        ),
        ("inspect", &["<MODEL>", "--quiet"]),
        (
            "export",
            &["--model", "--format", "--name", "--output-dir", "--quiet"],
        ),
        (
            "plot",
            &[
                "--model",
                "--input",
                "--labels",
                "--output",
                "--scree-output",
                "--quiet",
            ],
        ),
    ];
    for (sub, flags) in expected {
        let help = ok(&[sub, "--help"]);
        let entries = option_entries(&help);
        for flag in *flags {
            let entry = entries
                .iter()
                .find(|(name, _)| name == flag)
                .unwrap_or_else(|| panic!("{sub} --help has no {flag}:\n{help}"));
            let text = &entry.1;
            assert!(
                text.contains("[default:") || text.contains("(required)"),
                "{sub} {flag}: no default or (required) in {text:?}"
            );
            assert!(
                text.split_whitespace().count() >= 3,
                "{sub} {flag}: {text:?}"
            );
        }
        for (name, _) in &entries {
            assert!(
                flags.contains(&name.as_str()) || name == "--help",
                "{sub}: {name} is not in the expected list"
            );
        }
        assert!(help.contains("Example:"), "{sub} --help has no example");
    }
    let top = ok(&["--help"]);
    for sub in [
        "fit",
        "project",
        "predict",
        "reconstruct",
        "inspect",
        "export",
        "plot",
    ] {
        assert!(top.contains(sub));
    }
    // The demo is an example of the library's users, not a subcommand.
    assert!(!top.contains("demo"), "{top}");
    fails(&["demo"], 2, &["unrecognized subcommand 'demo'"]);
    assert!(top.contains("Exit codes: 0 success, 1 bad input"));
}

/// (name, text) of each option or argument entry of a clap long help.
fn option_entries(help: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut in_section = false;
    for line in help.lines() {
        if line == "Options:" || line == "Arguments:" {
            in_section = true;
            continue;
        }
        if !line.starts_with(' ') && !line.is_empty() {
            in_section = false;
        }
        if !in_section {
            continue;
        }
        let t = line.trim_start();
        let indent = line.len() - t.len();
        let starts_entry = indent <= 6 && (t.starts_with('-') || t.starts_with('<'));
        if starts_entry {
            let name = t
                .split([' ', ','])
                .find(|w| w.starts_with("--") || w.starts_with('<'))
                .unwrap_or(t)
                .to_string();
            // Short help puts the description on the same line, after 2+ spaces.
            let text = t.split_once("  ").map(|(_, d)| d.trim()).unwrap_or("");
            out.push((name, text.to_string()));
        } else if let Some(last) = out.last_mut() {
            last.1.push(' ');
            last.1.push_str(t);
        }
    }
    out
}

fn root() -> &'static Path {
    kpca_testkit::repo_root()
}

/// Builds libkpca.a for the host once, in the directory tests/c_host.rs uses.
fn host_staticlib() -> &'static PathBuf {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let target = kpca_testkit::target_dir().join("c-tests");
        let status = Command::new(env!("CARGO"))
            .args([
                "build",
                "-p",
                "kpca-staticlib",
                "--release",
                "--quiet",
                "--target-dir",
            ])
            .arg(&target)
            .current_dir(root())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building kpca-staticlib failed");
        target.join("release/libkpca.a")
    })
}

const C_MAIN: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kpca.h"
#include "sensor_model.h"

/* Projects every comma-separated row of stdin with the exported model. */
int main(void) {
    kpca_model model;
    char line[4096];
    float x[SENSOR_MODEL_DIM];
    float y[SENSOR_MODEL_N_COMPONENTS];
    kpca_status st = kpca_model_from_bytes(&model, sensor_model_blob, sensor_model_blob_len);
    if (st != 0) {
        fprintf(stderr, "load: %s\n", kpca_status_str(st));
        return 1;
    }
    while (fgets(line, sizeof line, stdin)) {
        char *p = line;
        size_t i;
        float e;
        for (i = 0; i < SENSOR_MODEL_DIM; i++) {
            char *end;
            x[i] = strtof(p, &end);
            if (end == p) {
                return 1;
            }
            p = end + (*end == ',');
        }
        st = kpca_project_and_score(&model, x, SENSOR_MODEL_DIM, y, SENSOR_MODEL_N_COMPONENTS, &e);
        if (st != 0) {
            fprintf(stderr, "project: %s\n", kpca_status_str(st));
            return 1;
        }
        for (i = 0; i < SENSOR_MODEL_N_COMPONENTS; i++) {
            printf("%.9g,", (double)y[i]);
        }
        printf("%.9g\n", (double)e);
    }
    return 0;
}
"#;

/// The exported C model, compiled with strict flags against the host static
/// library, gives what `kpca project` gives. The static library is an optimised
/// (release, LTO) build and this test's `kpca` is not; both run the same f32
/// code, and they are compared to [`C_VS_CLI_REL_TOL`] of each column's scale.
#[test]
fn exported_c_matches_kpca_project() {
    let fx = Fixture::new();
    fx.fit(RBF, "model.kpca");
    let dir = fx.path("c");
    ok(&[
        "export",
        "--model",
        &fx.p("model.kpca"),
        "--format",
        "c",
        "--name",
        "sensor_model",
        "--output-dir",
        s(&dir),
    ]);
    write(&dir.join("main.c"), C_MAIN);
    let exe = dir.join("sensor_main");
    let status = Command::new("cc")
        .args(kpca_testkit::STRICT_C_FLAGS)
        .arg("-O2")
        .arg("-I")
        .arg(root().join("include"))
        .arg("-I")
        .arg(&dir)
        .arg(dir.join("main.c"))
        .arg(dir.join("sensor_model.c"))
        .arg(host_staticlib())
        .args(["-lm", "-o"])
        .arg(&exe)
        .status()
        .expect("cc runs");
    assert!(status.success(), "compiling the exported C failed");
    // f32 inputs, written in shortest round-trip form, so C and Rust read the same floats.
    let rows: String = fx
        .test
        .iter()
        .map(|r| {
            r.iter()
                .map(|&v| format!("{:?}", v as f32))
                .collect::<Vec<_>>()
                .join(",")
                + "\n"
        })
        .collect();
    write(&fx.path("test32.csv"), &rows);
    let mut child = Command::new(&exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the C program starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(rows.as_bytes())
        .unwrap();
    let c_out = child.wait_with_output().unwrap();
    assert!(c_out.status.success());
    let from_c = parse_scores(&String::from_utf8_lossy(&c_out.stdout));
    let from_cli = parse_scores(&ok(&[
        "project",
        "--model",
        &fx.p("model.kpca"),
        "--input",
        &fx.p("test32.csv"),
        "--anomaly-score",
    ]));
    assert_eq!(from_c.len(), fx.test.len());
    assert_eq!(from_c.len(), from_cli.len());
    let cols = from_cli.first().map_or(0, Vec::len);
    for col in 0..cols {
        let scale = kpca_testkit::max_of(from_cli.iter().map(|r| f64::from(r[col].abs())))
            .max(f64::from(f32::MIN_POSITIVE)) as f32;
        for (c, r) in from_c.iter().zip(&from_cli) {
            assert_eq!(c.len(), cols);
            assert!(
                (c[col] - r[col]).abs() <= C_VS_CLI_REL_TOL * scale,
                "column {col}: C {} vs kpca project {}",
                c[col],
                r[col]
            );
        }
    }
}

/// C library (release) against the command (test build): same code, last-bit
/// differences only.
const C_VS_CLI_REL_TOL: f32 = 1e-6;
