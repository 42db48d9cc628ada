//! `kpca plot`, running the binary: the scree plot shows shares of the fit's
//! total variance (the cumulative share reaches what the fit reported, not
//! 100%) or says on the picture what its shares are of; the anomaly view
//! shows every row's score against the threshold for every number of
//! components, coloured by label, the rows above the threshold marked.

mod common;

use common::*;
use kpca_core::ModelRef;
use std::path::PathBuf;

/// Deterministic values in [-1, 1).
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

/// n rows of 4 features: a noisy ring and noise.
fn rows(n: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut g = Lcg(seed);
    (0..n)
        .map(|i| {
            let t = i as f64 * 0.37;
            vec![
                t.cos() + 0.1 * g.next(),
                2.0 * t.sin() + 0.1 * g.next(),
                0.5 * g.next(),
                0.2 * g.next(),
            ]
        })
        .collect()
}

fn csv(rows: &[Vec<f64>]) -> String {
    rows.iter()
        .map(|r| {
            let f: Vec<String> = r.iter().map(|v| format!("{v:?}")).collect();
            f.join(",") + "\n"
        })
        .collect()
}

struct Fixture {
    dir: tempfile::TempDir,
    test: Vec<Vec<f64>>,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("train.csv"), csv(&rows(80, 1))).unwrap();
        let mut test = rows(30, 2);
        // Two rows far away: above any threshold.
        test[4] = vec![3.0, -3.0, 2.0, 1.0];
        test[17] = vec![-3.0, 3.0, -2.0, 1.0];
        std::fs::write(dir.path().join("test.csv"), csv(&test)).unwrap();
        let labels: String = (0..test.len())
            .map(|i| {
                if i % 3 == 0 {
                    "valve_open\n"
                } else {
                    "valve_shut\n"
                }
            })
            .collect();
        std::fs::write(dir.path().join("labels.csv"), labels).unwrap();
        Fixture { dir, test }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn p(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_string()
    }
    /// Fits with k components; returns the report.
    fn fit(&self, k: usize, out: &str) -> String {
        ok(&[
            "fit",
            "--input",
            &self.p("train.csv"),
            "--kernel",
            "rbf",
            "--gamma",
            "0.5",
            "--components",
            &k.to_string(),
            "--standardize",
            "--output",
            &self.p(out),
        ])
    }
    /// Plots `input` with `model`; returns the SVG texts, joined by spaces.
    fn plot(&self, model: &str, input: &str, labels: bool) -> (String, String) {
        let svg_path = self.p("fig.svg");
        let mut args = vec![
            "plot", "--model", model, "--input", input, "--output", &svg_path,
        ];
        let labels_path = self.p("labels.csv");
        if labels {
            args.extend_from_slice(&["--labels", &labels_path]);
        }
        ok(&args);
        let svg = std::fs::read_to_string(self.path("fig.svg")).unwrap();
        (texts(&svg), svg)
    }
}

/// The `<text>` contents of a well-formed SVG, joined by single spaces.
fn texts(svg: &str) -> String {
    let doc = roxmltree::Document::parse(svg).expect("valid XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let all: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect();
    all.join(" ")
}

/// Rings (stroked, unfilled circles) in the SVG.
fn rings(svg: &str) -> usize {
    let doc = roxmltree::Document::parse(svg).expect("valid XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("circle") && n.attribute("fill") == Some("none"))
        .count()
}

/// "(total 0.5524)" of the fit report.
fn reported_total(report: &str) -> f64 {
    let line = report
        .lines()
        .find(|l| l.starts_with("explained variance ratio"))
        .expect("explained variance line");
    line.rsplit("(total ")
        .next()
        .unwrap()
        .trim_end_matches(')')
        .parse()
        .unwrap()
}

/// The "NN.N% in all" of the scree plot.
fn cumulative_percent(texts: &str) -> f64 {
    let before = texts.split("% in all").next().expect("a cumulative label");
    before
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .expect("a percentage")
}

#[test]
fn the_scree_of_the_training_rows_reaches_the_fits_total_not_100_percent() {
    let fx = Fixture::new();
    let report = fx.fit(3, "m.kpca");
    let total = reported_total(&report);
    assert!(
        total < 0.95,
        "the test needs a fit that keeps well under 100%: {total}"
    );
    let (texts, _) = fx.plot(&fx.p("m.kpca"), &fx.p("train.csv"), false);
    let shown = cumulative_percent(&texts);
    // The fit's f64 ratio against the device's f32 scores of the same rows.
    assert!((shown - 100.0 * total).abs() <= 0.1, "{shown}% vs {total}");
    assert!(
        texts.contains("share of the fit's total variance"),
        "{texts}"
    );
    assert!(!texts.contains("not stored"), "{texts}");
}

/// Any rows (here the test rows): the scree still shows the shares of the
/// fit's total variance, which a format-2 model stores.
#[test]
fn the_scree_of_other_rows_shows_the_shares_of_the_stored_total() {
    let fx = Fixture::new();
    let total = reported_total(&fx.fit(3, "m.kpca"));
    let (texts, _) = fx.plot(&fx.p("m.kpca"), &fx.p("test.csv"), false);
    assert!(
        (cumulative_percent(&texts) - 100.0 * total).abs() <= 0.1,
        "{texts}"
    );
    assert!(!texts.contains("not stored"), "{texts}");
}

/// A format-1 model stores no total: on rows other than its training rows the
/// scree shows the shares among the stored components, and says so.
#[test]
fn the_scree_of_a_format_1_model_says_its_shares_are_among_the_stored_components() {
    let dir = kpca_testkit::repo_root().join("testdata/format-v1");
    let model = dir.join("full_rbf.kpca");
    let input = dir.join("test.csv");
    let fx = Fixture::new();
    let (texts, _) = fx.plot(model.to_str().unwrap(), input.to_str().unwrap(), false);
    assert_eq!(cumulative_percent(&texts), 100.0);
    assert!(
        texts.contains("shares among the 3 stored components; total variance not stored in this model (format 1)"),
        "{texts}"
    );
    assert!(texts.contains("share among the 3 stored"), "{texts}");
}

/// The device's anomaly scores of the test rows and the model's threshold.
fn device_scores(blob: &[u8], test: &[Vec<f64>]) -> (Vec<f32>, f32) {
    let blob = kpca_fit::ModelBlob::from_bytes(blob).expect("a valid model");
    let model: &ModelRef<'_> = blob.model();
    let mut y = vec![0.0f32; model.n_components()];
    let scores = test
        .iter()
        .map(|r| {
            let x: Vec<f32> = r.iter().map(|&v| v as f32).collect();
            model.project_and_score(&x, &mut y).unwrap()
        })
        .collect();
    (scores, model.threshold())
}

#[test]
fn the_anomaly_view_shows_every_row_against_the_threshold_for_every_k() {
    let fx = Fixture::new();
    for k in [1, 2, 3] {
        fx.fit(k, "m.kpca");
        let blob = std::fs::read(fx.path("m.kpca")).unwrap();
        let (scores, threshold) = device_scores(&blob, &fx.test);
        let above: Vec<usize> = (0..scores.len())
            .filter(|&i| scores[i] > threshold)
            .collect();
        assert!(
            above.contains(&4) && above.contains(&17),
            "k = {k}: {above:?}"
        );
        let (texts, svg) = fx.plot(&fx.p("m.kpca"), &fx.p("test.csv"), true);
        let t = kpca_cli::output::float_text(threshold);
        for needle in [
            format!(
                "anomaly score by row: {} of 30 above the threshold",
                above.len()
            ),
            format!("threshold {t}"),
            format!("above the threshold ({})", above.len()),
            "row (input order)".to_string(),
            "anomaly score".to_string(),
        ] {
            assert!(
                texts.contains(&needle),
                "k = {k}: {needle:?} not in {texts}"
            );
        }
        // Both legends (scatter and anomaly view) name the labels with their counts.
        assert_eq!(
            texts.matches("valve_open (10)").count(),
            2,
            "k = {k}: {texts}"
        );
        assert_eq!(
            texts.matches("valve_shut (20)").count(),
            2,
            "k = {k}: {texts}"
        );
        // One ring per row above the threshold, and one in the legend.
        assert_eq!(rings(&svg), above.len() + 1, "k = {k}");
    }
}

#[test]
fn a_model_without_threshold_says_so_in_the_anomaly_view() {
    let fx = Fixture::new();
    // A model whose threshold is unset (0), written by the fit crate.
    let data = kpca_fit::Dataset::from_rows(rows(40, 3)).unwrap();
    let fitted = kpca_fit::KernelPca::params()
        .kernel(kpca_fit::KernelSpec::rbf(0.5))
        .n_components(2)
        .fit(&data)
        .unwrap();
    let mut model = fitted.to_model().unwrap();
    model.threshold = 0.0;
    std::fs::write(fx.path("nothr.kpca"), model.to_blob().unwrap().as_bytes()).unwrap();
    let (texts, svg) = fx.plot(&fx.p("nothr.kpca"), &fx.p("test.csv"), false);
    assert!(
        texts.contains("anomaly score by row (the model has no threshold)"),
        "{texts}"
    );
    assert!(!texts.contains("above the threshold"), "{texts}");
    assert_eq!(rings(&svg), 0);
}

#[test]
fn scree_output_splits_the_scree_from_the_scatter_and_the_anomaly_view() {
    let fx = Fixture::new();
    fx.fit(2, "m.kpca");
    let (model, test) = (fx.p("m.kpca"), fx.p("test.csv"));
    let (main, scree) = (fx.p("main.svg"), fx.p("scree.svg"));
    let out = ok(&[
        "plot",
        "--model",
        &model,
        "--input",
        &test,
        "--output",
        &main,
        "--scree-output",
        &scree,
    ]);
    assert!(out.contains("(scatter and anomaly view)"), "{out}");
    let main = texts(&std::fs::read_to_string(&main).unwrap());
    let scree = texts(&std::fs::read_to_string(&scree).unwrap());
    assert!(main.contains("anomaly score by row") && main.contains("component 2"));
    assert!(!main.contains("cumulative"), "{main}");
    assert!(
        scree.contains("cumulative") && scree.contains("% in all"),
        "{scree}"
    );
    assert!(!scree.contains("anomaly score by row"), "{scree}");
}
