#!/usr/bin/env python3
"""demo protocol (`cargo run --release -p kpca-cli --example demo`) on data/basicmotions.csv: reference numbers and peers.

Reproduces the DEMO PROTOCOL of data/README.md and reports anomaly-detection
ROC AUC on the exact same windows and features for

  (a) our model: RBF kernel PCA, feature-space reconstruction error
      e(x) = k(x,x) - 2 c'k_x + s - ||y||^2 (DESIGN.md section 2), computed
      here in numpy float64. This is the reference the Rust demo must match;
  (b) scikit-learn KernelPCA(fit_inverse_transform=True): squared Euclidean
      input-space reconstruction error ||x - inverse_transform(transform(x))||^2,
      and sklearn's own projections put into the feature-space formula;
  (c) PyOD KPCA detector, decision_function as score;

plus a few context baselines (linear PCA reconstruction error, One-class SVM,
Isolation Forest, LOF) on the same features.

Writes scripts/peers/demo_peers.json (AUCs, false-alarm and detection rates,
window counts, fit timings, protocol constants) and
scripts/peers/demo_reference_scores.csv (the per-window reference scores of (a)).

Usage:  pip install -r scripts/peers/requirements.txt
        python scripts/peers/demo_peers.py [--output-dir DIR]

With --output-dir the two files go into DIR instead (scripts/demo.sh computes
the peers that way when they are installed, leaving the committed files alone).
"""
import os

# One BLAS thread: same floating-point summation order on every run.
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import csv  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy  # noqa: E402
import sklearn  # noqa: E402
from sklearn.decomposition import PCA, KernelPCA  # noqa: E402
from sklearn.ensemble import IsolationForest  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402
from sklearn.neighbors import LocalOutlierFactor  # noqa: E402
from sklearn.svm import OneClassSVM  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data" / "basicmotions.csv"
OUT_JSON = Path(__file__).resolve().parent / "demo_peers.json"
OUT_SCORES = Path(__file__).resolve().parent / "demo_reference_scores.csv"

# ---- DEMO PROTOCOL constants (documented in data/README.md) -----------------
CHANNELS = ["acc_x", "acc_y", "acc_z", "gyr_x", "gyr_y", "gyr_z"]
SERIES_LENGTH = 100
NORMAL_CLASS = "Walking"
WINDOW = 20
STRIDE = 10
STATS = ["mean", "std", "min", "max"]  # feature index = stat_index * 6 + channel_index
N_FEATURES = len(STATS) * len(CHANNELS)  # 24
GAMMA = 1.0 / N_FEATURES  # 1/24, scikit-learn's default 1/n_features
N_COMPONENTS = 4
THRESHOLD_PERCENTILE = 99.0  # numpy "linear" percentile of the training scores
REPEATS = 5  # fit timings: median of this many fits


# ---- data and features --------------------------------------------------------
def load_cases(path):
    """{split: [(label, array (100, 6))]} ordered by case index."""
    rows = {"train": {}, "test": {}}
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == ["case", "split", "label", "t"] + CHANNELS, reader.fieldnames
        for r in reader:
            case, t = int(r["case"]), int(r["t"])
            entry = rows[r["split"]].setdefault(case, [r["label"], np.full((SERIES_LENGTH, 6), np.nan)])
            assert entry[0] == r["label"]
            entry[1][t] = [float(r[c]) for c in CHANNELS]
    out = {}
    for split, d in rows.items():
        assert sorted(d) == list(range(len(d)))
        out[split] = [(d[c][0], d[c][1]) for c in range(len(d))]
        assert not any(np.isnan(a).any() for _, a in out[split])
    return out


def window_features(series):
    """Feature vectors of all windows of one (100, 6) series, in start order."""
    feats, starts = [], []
    for start in range(0, SERIES_LENGTH - WINDOW + 1, STRIDE):
        w = series[start:start + WINDOW]
        # std is the population standard deviation (ddof = 0)
        feats.append(np.concatenate([w.mean(axis=0), w.std(axis=0, ddof=0), w.min(axis=0), w.max(axis=0)]))
        starts.append(start)
    return feats, starts


def build_windows(cases):
    X, meta = [], []
    for case, (label, series) in enumerate(cases):
        feats, starts = window_features(series)
        X.extend(feats)
        meta.extend((case, label, s) for s in starts)
    return np.array(X, dtype=np.float64), meta


# ---- (a) our model, numpy float64 ------------------------------------------------
def rbf(A, B, gamma):
    # direct difference form (no |a|^2 + |b|^2 - 2a'b cancellation): k(x, x) = 1 exactly
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d2)


class ReferenceKPCA:
    """Full kernel PCA as in DESIGN.md sections 1-2 (device form y = A'k_x + b)."""

    def __init__(self, gamma, k):
        self.gamma, self.k = gamma, k

    def fit(self, X):
        n = X.shape[0]
        self.X = X
        K = rbf(X, X, self.gamma)
        r = K.mean(axis=1)  # row means
        g = K.mean()  # grand mean
        Kc = K - r[None, :] - r[:, None] + g
        Kc = 0.5 * (Kc + Kc.T)
        mu, U = np.linalg.eigh(Kc)
        order = np.argsort(mu)[::-1]
        mu, U = mu[order], U[:, order]
        self.mu_positive_sum = float(mu[mu > 0].sum())
        keep = [i for i in range(self.k) if mu[i] > 0]
        mu, U = mu[keep], U[:, keep]
        # svd_flip rule: largest-|.| entry of each eigenvector positive
        big = np.argmax(np.abs(U), axis=0)
        U = U * np.sign(U[big, np.arange(U.shape[1])])
        self.mu = mu
        self.A = U / np.sqrt(mu)  # n x k
        self.b = -self.A.T @ r  # k
        self.c = np.full(n, 1.0 / n)
        self.s = g
        self.r = r
        return self

    def project(self, X):
        Kx = rbf(X, self.X, self.gamma)
        return Kx, Kx @ self.A + self.b

    def score(self, X):
        Kx, Y = self.project(X)
        kxx = np.ones(X.shape[0])  # RBF: k(x, x) = 1
        return kxx - 2.0 * Kx @ self.c + self.s - (Y * Y).sum(axis=1)


# ---- helpers ---------------------------------------------------------------------
def timed_fit(make, X):
    times = []
    model = None
    for _ in range(REPEATS):
        m = make()
        t0 = time.perf_counter()
        m.fit(X)
        times.append(time.perf_counter() - t0)
        model = m
    return model, float(np.median(times))


def auc(y, s):
    return float(roc_auc_score(y, s))


def per_class_auc(labels, scores):
    labels = np.asarray(labels)
    normal = scores[labels == NORMAL_CLASS]
    out = {}
    for c in sorted(set(labels) - {NORMAL_CLASS}):
        a = scores[labels == c]
        out[str(c)] = auc(np.r_[np.zeros(len(normal)), np.ones(len(a))], np.r_[normal, a])
    return out


def output_paths(argv):
    """(json path, scores path): scripts/peers/, or DIR of --output-dir DIR."""
    if len(argv) == 2 and argv[0] == "--output-dir":
        out = Path(argv[1]).resolve()
        out.mkdir(parents=True, exist_ok=True)
        return out / OUT_JSON.name, out / OUT_SCORES.name
    if argv:
        sys.exit("usage: demo_peers.py [--output-dir DIR]")
    return OUT_JSON, OUT_SCORES


def main():
    out_json, out_scores = output_paths(sys.argv[1:])
    cases = load_cases(DATA)
    Xtr_all, meta_tr = build_windows(cases["train"])
    Xte, meta_te = build_windows(cases["test"])
    train_mask = np.array([lab == NORMAL_CLASS for _, lab, _ in meta_tr])
    Xtr_raw = Xtr_all[train_mask]
    meta_fit = [m for m, keep in zip(meta_tr, train_mask) if keep]
    labels_te = [lab for _, lab, _ in meta_te]
    y = np.array([0 if lab == NORMAL_CLASS else 1 for lab in labels_te])

    # standardisation with the training mean and population std (ddof = 0)
    f_mean = Xtr_raw.mean(axis=0)
    f_std = Xtr_raw.std(axis=0, ddof=0)
    assert (f_std > 0).all(), "a feature is constant on the training windows"
    Xtr = (Xtr_raw - f_mean) / f_std
    Xts = (Xte - f_mean) / f_std

    results = {}
    timing = {}

    # (a) reference
    ref, timing["a_reference_numpy"] = timed_fit(lambda: ReferenceKPCA(GAMMA, N_COMPONENTS), Xtr)
    s_tr = ref.score(Xtr)
    s_te = ref.score(Xts)
    # cross-check the affine device form against explicit centring (DESIGN.md section 2)
    Kx = rbf(Xts, ref.X, GAMMA)
    y_explicit = (Kx - ref.r[None, :] - Kx.mean(axis=1, keepdims=True) + ref.s) @ ref.A
    assert np.allclose(y_explicit, ref.project(Xts)[1], atol=1e-10)
    threshold = float(np.percentile(s_tr, THRESHOLD_PERCENTILE))  # method="linear"
    alarm = s_te > threshold
    far = float(alarm[y == 0].mean())
    dr = float(alarm[y == 1].mean())
    train_alarm = float((s_tr > threshold).mean())
    results["a_ours_feature_space_error"] = auc(y, s_te)
    # far from every training window k_x -> 0, y -> b, so e(x) -> 1 + s - ||b||^2 (the ceiling)
    ceiling = 1.0 + ref.s - float(ref.b @ ref.b)
    at_ceiling = np.abs(s_te - ceiling) < 1e-6
    auc_rounded = auc(y, np.round(s_te, 6))

    # (b) scikit-learn KernelPCA
    def make_skl():
        return KernelPCA(n_components=N_COMPONENTS, kernel="rbf", gamma=GAMMA,
                         fit_inverse_transform=True, alpha=1.0, eigen_solver="dense")

    skl, timing["b_sklearn_kernelpca"] = timed_fit(make_skl, Xtr)
    Z = skl.transform(Xts)
    recon = skl.inverse_transform(Z)
    s_skl_input = ((Xts - recon) ** 2).sum(axis=1)
    results["b_sklearn_input_space_error"] = auc(y, s_skl_input)
    Kx_skl = rbf(Xts, skl.X_fit_, GAMMA)
    s_skl_feat = 1.0 - 2.0 * Kx_skl.mean(axis=1) + skl._centerer.K_fit_all_ - (Z * Z).sum(axis=1)
    results["b_sklearn_feature_space_error"] = auc(y, s_skl_feat)
    diff_skl = float(np.max(np.abs(s_skl_feat - s_te)))
    eig_diff = float(np.max(np.abs(np.sort(skl.eigenvalues_)[::-1] - ref.mu)))

    # (c) PyOD KPCA
    from pyod.models.kpca import KPCA as PyodKPCA
    import pyod

    def make_pyod():
        return PyodKPCA(contamination=0.01, n_components=N_COMPONENTS, n_selected_components=None,
                        kernel="rbf", gamma=GAMMA, eigen_solver="dense", random_state=0)

    pyd, timing["c_pyod_kpca"] = timed_fit(make_pyod, Xtr)
    s_pyod = pyd.decision_function(Xts)
    results["c_pyod_kpca_decision_function"] = auc(y, s_pyod)
    diff_pyod = float(np.max(np.abs(s_pyod - s_te)))
    pyod_pred = pyd.predict(Xts)
    pyod_far = float(pyod_pred[y == 0].mean())
    pyod_dr = float(pyod_pred[y == 1].mean())

    # context baselines on the same standardised features
    extra = {}
    pca, timing["x_linear_pca"] = timed_fit(lambda: PCA(n_components=N_COMPONENTS, svd_solver="full"), Xtr)
    extra["x_linear_pca_k4_input_space_error"] = auc(y, ((Xts - pca.inverse_transform(pca.transform(Xts))) ** 2).sum(1))
    ocsvm, timing["x_ocsvm"] = timed_fit(lambda: OneClassSVM(kernel="rbf", gamma=GAMMA, nu=0.01), Xtr)
    extra["x_ocsvm_rbf_nu0.01"] = auc(y, -ocsvm.decision_function(Xts))
    iso, timing["x_iforest"] = timed_fit(lambda: IsolationForest(n_estimators=200, random_state=0), Xtr)
    extra["x_iforest_200_seed0"] = auc(y, -iso.score_samples(Xts))
    lof, timing["x_lof"] = timed_fit(lambda: LocalOutlierFactor(n_neighbors=20, novelty=True), Xtr)
    extra["x_lof_k20"] = auc(y, -lof.score_samples(Xts))

    # sensitivity of (a) to the two model constants (not used for the demo numbers)
    sens = {}
    for k in (1, 2, 4, 8, 16):
        for gname, g in (("1/96", 1 / 96), ("1/24", 1 / 24), ("1/6", 1 / 6)):
            m = ReferenceKPCA(g, k).fit(Xtr)
            st, se = m.score(Xtr), m.score(Xts)
            th = np.percentile(st, THRESHOLD_PERCENTILE)
            sens[f"k={k},gamma={gname}"] = {
                "auc": round(auc(y, se), 6),
                "false_alarm_rate": round(float((se[y == 0] > th).mean()), 6),
                "detection_rate": round(float((se[y == 1] > th).mean()), 6),
            }

    report = {
        "protocol": {
            "data": "data/basicmotions.csv",
            "normal_class": NORMAL_CLASS,
            "window": WINDOW,
            "stride": STRIDE,
            "window_starts": list(range(0, SERIES_LENGTH - WINDOW + 1, STRIDE)),
            "features": "for stat in (mean, std ddof=0, min, max): for ch in (acc_x, acc_y, acc_z, gyr_x, gyr_y, gyr_z)",
            "n_features": N_FEATURES,
            "standardise": "train mean, train std (ddof=0)",
            "kernel": "rbf",
            "gamma": GAMMA,
            "n_components": N_COMPONENTS,
            "score": "k(x,x) - 2 c'k_x + s - ||y||^2",
            "threshold": f"numpy.percentile(train_scores, {THRESHOLD_PERCENTILE}) (linear); alarm if score > threshold",
        },
        "n_train_windows": int(Xtr.shape[0]),
        "n_train_cases": int(len({c for c, _, _ in meta_fit})),
        "n_test_windows": int(Xts.shape[0]),
        "n_test_normal_windows": int((y == 0).sum()),
        "n_test_anomalous_windows": int((y == 1).sum()),
        "roc_auc": {k: round(v, 6) for k, v in results.items()},
        "roc_auc_context_baselines": {k: round(v, 6) for k, v in extra.items()},
        "reference": {
            "roc_auc_per_anomaly_class": {k: round(v, 6) for k, v in per_class_auc(labels_te, s_te).items()},
            "threshold": float(f"{threshold:.12e}"),
            "false_alarm_rate": round(far, 6),
            "detection_rate": round(dr, 6),
            "false_alarms": int(alarm[y == 0].sum()),
            "detections": int(alarm[y == 1].sum()),
            "train_alarm_rate": round(train_alarm, 6),
            "eigenvalues_mu": [float(f"{v:.12e}") for v in ref.mu],
            "explained_variance_ratio": [float(f"{v:.12e}") for v in ref.mu / ref.mu_positive_sum],
            "feature_mean": [float(f"{v:.12e}") for v in f_mean],
            "feature_std": [float(f"{v:.12e}") for v in f_std],
            "score_ceiling_1_plus_s_minus_b2": float(f"{ceiling:.12e}"),
            "test_windows_within_1e-6_of_ceiling": {
                c: int(at_ceiling[np.asarray(labels_te) == c].sum()) for c in ["Walking", "Standing", "Running", "Badminton"]
            },
            "roc_auc_scores_rounded_to_1e-6": round(auc_rounded, 6),
            "test_score_min_max": [float(f"{s_te.min():.12e}"), float(f"{s_te.max():.12e}")],
        },
        "agreement_with_reference": {
            "sklearn_feature_space_max_abs_score_diff": diff_skl,
            "sklearn_eigenvalues_max_abs_diff": eig_diff,
            "pyod_max_abs_score_diff": diff_pyod,
        },
        "pyod_own_threshold_contamination_0.01": {
            "false_alarm_rate": round(pyod_far, 6),
            "detection_rate": round(pyod_dr, 6),
        },
        "sensitivity_of_reference": sens,
        "peer_settings": {
            "b": "sklearn.decomposition.KernelPCA(n_components=4, kernel='rbf', gamma=1/24, fit_inverse_transform=True, "
                 "alpha=1.0, eigen_solver='dense'); input-space score = sum((x - inverse_transform(transform(x)))**2) "
                 "on standardised features; feature-space score = 1 - 2*mean(k_x) + _centerer.K_fit_all_ - "
                 "sum(transform(x)**2)",
            "c": "pyod.models.kpca.KPCA(contamination=0.01, n_components=4, kernel='rbf', gamma=1/24, "
                 "eigen_solver='dense', random_state=0); score = decision_function(x)",
            "x": "PCA(n_components=4) squared input-space reconstruction error; OneClassSVM(rbf, gamma=1/24, nu=0.01) "
                 "-decision_function; IsolationForest(n_estimators=200, random_state=0) -score_samples; "
                 "LocalOutlierFactor(n_neighbors=20, novelty=True) -score_samples",
        },
        "fit_time_seconds_median_of_5": {k: float(f"{v:.3g}") for k, v in timing.items()},
        "versions": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "scikit-learn": sklearn.__version__,
            "pyod": pyod.__version__,
        },
    }
    out_json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")

    with open(out_scores, "w", newline="\n", encoding="utf-8") as f:
        f.write("split,case,label,start,is_anomaly,score\n")
        for (case, label, start), s in zip(meta_fit, s_tr):
            f.write(f"train,{case},{label},{start},0,{s:.12e}\n")
        for (case, label, start), s, yy in zip(meta_te, s_te, y):
            f.write(f"test,{case},{label},{start},{yy},{s:.12e}\n")

    # table
    print(f"BasicMotions demo: normal={NORMAL_CLASS}, window={WINDOW}, stride={STRIDE}, "
          f"{N_FEATURES} features, rbf gamma=1/{N_FEATURES}, k={N_COMPONENTS}")
    print(f"train windows {Xtr.shape[0]} (normal only), test windows {Xts.shape[0]} "
          f"({(y == 0).sum()} normal, {(y == 1).sum()} anomalous)")
    print()
    print(f"{'method':<44} {'ROC AUC':>8} {'fit s':>8}")
    tkey = {"a_ours_feature_space_error": "a_reference_numpy",
            "b_sklearn_input_space_error": "b_sklearn_kernelpca",
            "b_sklearn_feature_space_error": "b_sklearn_kernelpca",
            "c_pyod_kpca_decision_function": "c_pyod_kpca",
            "x_linear_pca_k4_input_space_error": "x_linear_pca",
            "x_ocsvm_rbf_nu0.01": "x_ocsvm",
            "x_iforest_200_seed0": "x_iforest",
            "x_lof_k20": "x_lof"}
    for name, v in list(results.items()) + list(extra.items()):
        print(f"{name:<44} {v:8.4f} {timing[tkey[name]]:8.4f}")
    print()
    print(f"(a) threshold (99th pct of train scores) = {threshold:.6f}: "
          f"false-alarm rate {far:.4f} ({int(alarm[y == 0].sum())}/{(y == 0).sum()}), "
          f"detection rate {dr:.4f} ({int(alarm[y == 1].sum())}/{(y == 1).sum()})")
    print("(a) AUC per anomaly class:", {k: round(v, 4) for k, v in per_class_auc(labels_te, s_te).items()})
    print(f"(a) score ceiling 1 + s - ||b||^2 = {ceiling:.6f}; test windows within 1e-6 of it: "
          f"{int(at_ceiling[y == 0].sum())} normal, {int(at_ceiling[y == 1].sum())} anomalous; "
          f"AUC with scores rounded to 1e-6: {auc_rounded:.6f}")
    print(f"max |score diff| vs (a): sklearn feature-space {diff_skl:.2e}, pyod {diff_pyod:.2e}")
    print(f"wrote {out_json} and {out_scores}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
