#!/usr/bin/env python3
"""Fixtures for the pre-image, kernel PCR, reconstruction errors and the Nystrom
confidence bound (seeds 001 and 004), written to testdata/fixtures/seeds_*.json.

References (versions in scripts/requirements-fixtures.txt):
  - pre-image: scikit-learn KernelPCA(fit_inverse_transform=True, alpha),
    inverse_transform(transform(X)); Mika's fixed-point iteration in numpy below
    (independent of the Rust code), started from scikit-learn's answer;
  - PCR: nystrompca KernelPCR / NystromKPCR (scale=False, forced landmarks) and
    scikit-learn KernelPCA + LinearRegression on the scores;
  - bound: nystrompca calc_conf_bound on the uncentred landmark kernel matrix;
  - errors: nystrompca NystromKPCA.get_reconstruction_errors(approx=False/True).

Every fixture carries its data, so the Rust tests need no Python. Run:
  python3 scripts/make_seed_fixtures.py
It exits non-zero when two references that should agree do not.
"""
import json
import os
import sys

import numpy as np
from sklearn.datasets import load_diabetes, load_iris, make_circles
from sklearn.decomposition import KernelPCA
from sklearn.linear_model import LinearRegression
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import StandardScaler
from nystrompca import KernelPCR, NystromKPCA, NystromKPCR
from nystrompca.algorithms.bound import calc_conf_bound

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "..", "testdata", "fixtures")
FAILURES = []

# Mika's stopping rule (the same numbers as kpca_fit::preimage):
MIKA_STEP_TOL = 1e-12
MIKA_DENOMINATOR_TOL = 1e-12
MIKA_STEPS = 50
BOUND_CONFIDENCES = [0.9, 0.5, 0.99]


def check(ok, msg):
    if not ok:
        FAILURES.append(msg)
        print("  CHECK FAILED: " + msg)


def tolist(a):
    return np.asarray(a, dtype=np.float64).tolist()


def rel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def write_json(name, obj):
    path = os.path.join(OUT_DIR, name)
    with open(path, "w") as f:
        json.dump(obj, f, allow_nan=False)
        f.write("\n")
    print("  wrote %s (%.0f kB)" % (name, os.path.getsize(path) / 1024))


def mika(points, weights, gamma, start, steps):
    """z <- sum g_i k(z,z_i) z_i / sum g_i k(z,z_i); stops after a step moving z by
    at most MIKA_STEP_TOL (1 + ||z||), or before a step whose denominator is at most
    MIKA_DENOMINATOR_TOL * sum |g_i k(z, z_i)|."""
    z = np.array(start, dtype=np.float64)
    for _ in range(steps):
        w = weights * np.exp(-gamma * np.sum((points - z) ** 2, axis=1))
        den = w.sum()
        if not abs(den) > MIKA_DENOMINATOR_TOL * np.abs(w).sum():
            break
        nz = w @ points / den
        moved = np.linalg.norm(nz - z)
        z = nz
        if moved <= MIKA_STEP_TOL * (1.0 + np.linalg.norm(z)):
            break
    return z


def preimage_circles():
    print("seeds_preimage_circles")
    x, _ = make_circles(200, factor=0.3, noise=0.05, random_state=0)
    tr, te = x[:150], x[150:]
    gamma, k, alpha = 10.0, 4, 0.1
    est = KernelPCA(n_components=k, kernel="rbf", gamma=gamma, fit_inverse_transform=True,
                    alpha=alpha, eigen_solver="dense").fit(tr)
    y_te = est.transform(te)
    pre_te = est.inverse_transform(y_te)
    pre_tr = est.inverse_transform(est.transform(tr))
    # Mika in numpy: gamma_i = 1/n + sum_l y_l (a_il - mean_j a_jl), a = v / sqrt(mu)
    a = est.eigenvectors_ / np.sqrt(est.eigenvalues_)
    n = tr.shape[0]
    mika_te = []
    for y, s in zip(y_te, pre_te):
        g = 1.0 / n + (a - a.mean(axis=0)) @ y
        mika_te.append(mika(tr, g, gamma, s, MIKA_STEPS))
    mika_te = np.array(mika_te)
    print("  mika moved the learned pre-images by up to %.3g" % np.max(np.abs(mika_te - pre_te)))
    write_json("seeds_preimage_circles.json", {
        "description": "make_circles(200, factor=0.3, noise=0.05, random_state=0), rows "
                       "0..149 train, 150..199 test; sklearn KernelPCA rbf gamma 10, k 4, "
                       "fit_inverse_transform alpha 0.1; mika_test: numpy Mika iteration "
                       "from preimage_test, at most mika_steps steps",
        "kernel": "rbf", "gamma": gamma, "n_components": k, "alpha": alpha,
        "x_train": tolist(tr), "x_test": tolist(te),
        "test_scores": tolist(y_te),
        "preimage_test": tolist(pre_te), "preimage_train": tolist(pre_tr),
        "mika_steps": MIKA_STEPS, "mika_test": tolist(mika_te),
    })


def preimage_iris():
    print("seeds_preimage_iris_poly_std")
    x = load_iris().data
    perm = np.random.default_rng(3).permutation(x.shape[0])
    tr, te = x[perm[:120]], x[perm[120:]]
    sc = StandardScaler().fit(tr)
    gamma, k, alpha = 0.25, 3, 1.0
    est = KernelPCA(n_components=k, kernel="poly", gamma=gamma, degree=3, coef0=1.0,
                    fit_inverse_transform=True, alpha=alpha, eigen_solver="dense")
    est.fit(sc.transform(tr))
    pre_te = sc.inverse_transform(est.inverse_transform(est.transform(sc.transform(te))))
    write_json("seeds_preimage_iris_poly_std.json", {
        "description": "iris, permutation default_rng(3), 120 train / 30 test; "
                       "StandardScaler on train, sklearn KernelPCA poly degree 3 coef0 1 "
                       "gamma 0.25 k 3, fit_inverse_transform alpha 1; preimage_test in "
                       "raw units (scaler.inverse_transform)",
        "kernel": "poly", "gamma": gamma, "degree": 3, "coef0": 1.0, "n_components": k,
        "alpha": alpha, "standardize": True,
        "x_train": tolist(tr), "x_test": tolist(te), "preimage_test": tolist(pre_te),
    })


def diabetes_split():
    data = load_diabetes()
    perm = np.random.default_rng(5).permutation(data.data.shape[0])
    x, y = data.data[perm], data.target[perm]
    return x[:300], y[:300], x[300:400], y[300:400]


def nystrompca_pcr(cls, tr, t, te, gamma, k, landmarks=None):
    kw = dict(kernel="rbf", sigma=1.0 / np.sqrt(gamma), degree=2, n_components=k, scale=False)
    if landmarks is not None:
        kw["m_subset"] = len(landmarks)
    est = cls(**kw)
    if landmarks is not None:
        est.subset = np.array(landmarks)
    est.fit(tr.copy(), t.copy())
    if landmarks is not None:
        check(np.array_equal(est.subset, landmarks), "nystrompca changed the subset")
    return est.predict(te.copy()).ravel()


def pcr_diabetes():
    print("seeds_pcr_diabetes")
    tr, y_tr, te, y_te = diabetes_split()
    gamma, k = 20.0, 8
    landmarks = np.sort(np.random.default_rng(11).choice(300, size=60, replace=False))
    targets = np.c_[y_tr, np.log(y_tr)]
    full = np.c_[[nystrompca_pcr(KernelPCR, tr, targets[:, j], te, gamma, k) for j in range(2)]].T
    nys = np.c_[[nystrompca_pcr(NystromKPCR, tr, targets[:, j], te, gamma, k, landmarks)
                 for j in range(2)]].T
    kp = KernelPCA(n_components=k, kernel="rbf", gamma=gamma, eigen_solver="dense").fit(tr)
    lr = LinearRegression().fit(kp.transform(tr), targets)
    sk = lr.predict(kp.transform(te))
    print("  nystrompca KernelPCR vs sklearn KernelPCA+LinearRegression: %.2e" % rel(full, sk))
    check(rel(full, sk) < 1e-8, "full PCR: nystrompca and sklearn disagree")
    write_json("seeds_pcr_diabetes.json", {
        "description": "load_diabetes, permutation default_rng(5), rows 0..299 train, "
                       "300..399 test; rbf gamma 20, k 8; targets [y, log y], each column "
                       "fitted alone with nystrompca KernelPCR / NystromKPCR (scale=False, "
                       "sigma = 1/sqrt(gamma), degree 2; landmarks default_rng(11)."
                       "choice(300, 60) sorted) and both together with sklearn KernelPCA + "
                       "LinearRegression",
        "kernel": "rbf", "gamma": gamma, "n_components": k,
        "x_train": tolist(tr), "x_test": tolist(te), "targets_train": tolist(targets),
        "landmarks": [int(i) for i in landmarks],
        "full_predictions": tolist(full), "nystrom_predictions": tolist(nys),
        "sklearn_predictions": tolist(sk),
    })


def bound_case(name, tr, gamma, k, landmarks, description):
    print("seeds_bound_" + name)
    n = tr.shape[0]
    est = NystromKPCA(kernel="rbf", sigma=1.0 / np.sqrt(gamma), degree=2, n_components=k,
                      m_subset=len(landmarks), scale=False)
    est.subset = np.array(landmarks)
    est.fit_transform(tr.copy())
    exact = est.get_reconstruction_errors(approx=False)
    approx = est.get_reconstruction_errors(approx=True)
    kmm = rbf_kernel(tr[landmarks], tr[landmarks], gamma=gamma)
    check(rel(est.K_mm, kmm) < 1e-12, name + ": nystrompca's K_mm is not sklearn's rbf")
    bounds = {str(c): tolist(calc_conf_bound(kmm, n, 1.0, alpha=c)[:k]) for c in BOUND_CONFIDENCES}
    full = KernelPCA(n_components=k, kernel="rbf", gamma=gamma, eigen_solver="dense").fit(tr)
    kc = rbf_kernel(tr, tr, gamma=gamma)
    kc = kc - kc.mean(0) - kc.mean(1)[:, None] + kc.mean()
    full_errors = np.trace(kc) / n - np.cumsum(full.eigenvalues_ / n)
    write_json("seeds_bound_%s.json" % name, {
        "description": description + "; nystrompca NystromKPCA (scale=False) "
                       "get_reconstruction_errors exact/approx, calc_conf_bound(K_mm, n, "
                       "B=1, alpha) first k; full_reconstruction_errors: trace(Kc)/n - "
                       "cumsum(sklearn eigenvalues_/n)",
        "kernel": "rbf", "gamma": gamma, "n_components": k, "x_train": tolist(tr),
        "landmarks": [int(i) for i in landmarks],
        "reconstruction_errors": tolist(exact), "reconstruction_errors_approx": tolist(approx),
        "confidence_bound": bounds, "full_reconstruction_errors": tolist(full_errors),
    })


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    preimage_circles()
    preimage_iris()
    pcr_diabetes()
    x, _ = make_circles(200, factor=0.3, noise=0.05, random_state=0)
    lm = np.sort(np.random.default_rng(10).choice(150, size=30, replace=False))
    bound_case("circles", x[:150], 10.0, 6, lm,
               "circles rows 0..149 (as nystrom_circles.json), rbf gamma 10, k 6, m 30 "
               "landmarks default_rng(10).choice(150, 30) sorted")
    tr, _, _, _ = diabetes_split()
    lm = np.sort(np.random.default_rng(11).choice(300, size=60, replace=False))
    bound_case("diabetes", tr, 20.0, 10, lm,
               "diabetes train rows of seeds_pcr_diabetes, rbf gamma 20, k 10, m 60 "
               "landmarks default_rng(11).choice(300, 60) sorted")
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
