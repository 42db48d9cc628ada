#!/usr/bin/env python3
"""Generate the reference fixtures that the Rust tests replay (no Python at test time).

Rerun with

    pip install -r scripts/requirements-fixtures.txt
    python3 scripts/make_fixtures.py            # writes testdata/fixtures/*.json

Everything is deterministic: each data set is drawn from a fixed seed, and the
output JSON is written with Python's float repr (shortest string that reads back
to the same f64). Rerunning with the pinned versions reproduces the files byte for
byte; other versions of LAPACK/numpy may change the last bits only.

Notation follows the project's DESIGN.md (sections 1-3): Kc is the centred Gram matrix, mu_l its eigenvalues (scikit-learn's
`eigenvalues_`), y_l(x) the kernel-PCA scores.

Full kernel PCA fixtures, testdata/fixtures/full_<name>.json
----------------------------------------------------------
Reference: sklearn.decomposition.KernelPCA(eigen_solver="dense"). Keys:

  name, description
  kernel          sklearn kernel name: linear|poly|rbf|laplacian|sigmoid|cosine
  gamma           the exact gamma given to sklearn (null for linear and cosine)
  degree, coef0   as given to sklearn (sklearn defaults 3 and 1.0 where the kernel
                  ignores them)
  n_components    k
  x_train, x_test lists of rows
  eigenvalues     sklearn `eigenvalues_` (length k, = mu_l, NOT divided by n)
  all_eigenvalues every eigenvalue of Kc, numpy eigvalsh, sorted descending (length n)
  n_positive_eigenvalues  count of all_eigenvalues > 1e-10 * max|all_eigenvalues|
  n_negative_eigenvalues  count of all_eigenvalues < -1e-10 * max|all_eigenvalues|
  train_scores    sklearn fit_transform(x_train)                 (n x k)
  test_scores     sklearn transform(x_test) of the fitted model  (n_test x k)
  train_anomaly_scores, test_anomaly_scores
                  feature-space reconstruction error, DESIGN.md section 2:
                  e(x) = k(x,x) - 2 c'k_x + s - sum_l y_l(x)^2, c = 1/n, s = mean(K),
                  y = sklearn's scores above; the kernel is evaluated with
                  sklearn.metrics.pairwise kernels, all in f64 numpy. e(x) >= 0 for
                  every positive-definite kernel; for sigmoid_case (indefinite) it is
                  negative for many rows, see that case.
  extra keys on some cases: "pca_scores" (linear_blobs), "test_labels" (sensor_rbf).

Cases:
  circles_rbf   make_circles(200, factor=0.3, noise=0.05, random_state=0), first
                150 rows train / last 50 test; rbf gamma=10, k=4.
  moons_poly    make_moons(200, noise=0.05, random_state=1), 150/50; poly gamma=1,
                degree=3, coef0=1, k=4.
  digits_rbf    sklearn load_digits (bundled), pixels / 16; rows 0..399 train,
                400..499 test; rbf gamma = 1/64 = 1/d, k=8.
  linear_blobs  anisotropic Gaussian, d=5, 120/30 (seed 4); linear kernel, k=3.
                "pca_scores" = sklearn PCA(3).fit(x_train).transform(x_test): linear
                kernel PCA equals ordinary PCA, so these equal test_scores up to the
                sign of each column (PCA and KernelPCA use different sign rules).
  sigmoid_case  Gaussian d=4, 100/30 (seed 5), standardised with the train mean/std;
                sigmoid gamma=0.1, coef0=0.0, k=3. The sigmoid kernel is indefinite:
                Kc has both positive and negative eigenvalues here (counts recorded),
                and the anomaly scores of many train and test rows are NEGATIVE:
                summed over the training rows e(x) is the sum of the dropped
                eigenvalues, negative ones included. Replay them as numbers; do not
                assert e(x) >= 0 for this kernel.
  laplacian_case  uniform cube d=3, 100/30 (seed 6); laplacian gamma=0.5, k=3.
                sklearn's KernelPCA does not accept kernel="laplacian" by name, so it
                is fitted with kernel="precomputed" on
                sklearn.metrics.pairwise.laplacian_kernel matrices (identical maths).
  cosine_case   Gaussian with non-zero mean, d=4, 100/30 (seed 7); cosine, k=3.
  poly2_case    Gaussian d=3, 100/30 (seed 8); poly gamma=0.5, degree=2, coef0=1, k=4.
  sensor_rbf    synthetic 8-channel sensor, 128 train / 64 test (seed 9): three
                latent factors mixed into 8 channels plus noise, standardised with the
                train mean/std. Test rows 0..47 are normal, 48..63 are anomalies
                ("test_labels": 0 normal, 1 anomaly). rbf gamma = 1/8, k=4. This is
                the firmware benchmark size (m=128, d=8, k=4).

Nystrom fixtures, testdata/fixtures/nystrom_<name>.json
-----------------------------------------------------
Reference: nystrompca 1.0.2, NystromKPCA(kernel="rbf", sigma=1/sqrt(gamma), degree=2,
scale=False). nystrompca's rbf is exp(-||x-y||^degree / sigma^2), so degree MUST be 2
(its default) and sigma = 1/sqrt(gamma) gives sklearn's exp(-gamma ||x-y||^2).
scale=False turns off its StandardScaler (default scale=True standardises x first).
(nystrompca's "laplace" kernel is exp(-||x-y||_2 / sigma^2), not sklearn's L1
laplacian, so only rbf is compared.) Fixed landmarks: the estimator's `.subset`
attribute is set (sorted 0-based index array) before fit_transform; fit_transform only
draws a random subset when `.subset is None`. Keys:

  name, description, kernel ("rbf"), gamma, sigma, n_components, x_train, x_test
  landmarks       0-based indices into x_train (sorted ascending)
  eigenvalues     nystrompca explained_variance_ (length k), see eigenvalue_convention
  train_scores    nystrompca fit_transform(x_train), columns sign-aligned (sign_rule)
  test_scores     nystrompca transform(x_test), same column signs
  test_scores_source  where test_scores come from
  eigenvalue_convention, sign_rule, centring   short texts
  numpy_eigenvalues, numpy_train_scores, numpy_test_scores
                  this script's own f64 numpy implementation of DESIGN.md section 3
                  for the same landmarks (pseudo-inverses through eigh, eigenvalues
                  <= numpy_pinv_rel_tol * largest eigenvalue dropped)
  numpy_pinv_rel_tol  1e-9. Smaller values (1e-10 and below) keep the null direction
                  of K'mm when m = n: that eigenvalue is not ~1e-16 but ~1e-9 because
                  m0 = K_mm^-1 n_mean carries the error of an ill-conditioned solve
                  (cond(K_mm) ~ 1e7 for circles_full), and keeping it costs ~2e-10
                  in the scores (vs ~4e-13 with 1e-9).
  numpy_train_anomaly_scores, numpy_test_anomaly_scores
                  e(x) of DESIGN.md section 2 with c = m0 = K_mm^+ n_mean and
                  s = n_mean' m0, y = numpy scores
  full_eigenvalues, full_train_scores, full_test_scores   (only nystrom_circles_full,
                  m = n): sklearn KernelPCA(dense) eigenvalues_ (mu, not divided by n)
                  and scores, for comparison (expect eigenvalues * n == full_eigenvalues)

Cases: circles (the circles_rbf data, n=150, m=30, k=3, gamma=10),
       digits (digits rows 0..299 train, 300..399 test, n=300, m=60, k=5, gamma=1/64),
       circles_full (make_circles(80, factor=0.3, noise=0.05, random_state=2), 60/20,
       m = n = 60, k=3, gamma=10).

The script checks, and prints: sklearn train scores == sqrt(mu) * u for an independent
numpy eigh of Kc with sklearn's sign rule; train anomaly scores >= -1e-9; the largest
differences numpy vs nystrompca, and m = n Nystrom vs full kernel PCA. It exits with a
non-zero status if a check fails.
"""

import json
import os
import sys

import numpy as np
import sklearn
from sklearn.datasets import load_digits, make_circles, make_moons
from sklearn.decomposition import PCA, KernelPCA
from sklearn.metrics.pairwise import pairwise_kernels
from nystrompca import NystromKPCA

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "..", "testdata", "fixtures")

FAILURES = []


def check(ok, msg):
    if not ok:
        FAILURES.append(msg)
        print("  CHECK FAILED: " + msg)


def tolist(a):
    return np.asarray(a, dtype=np.float64).tolist()


def write_json(name, obj):
    path = os.path.join(OUT_DIR, name)
    with open(path, "w") as f:
        json.dump(obj, f, allow_nan=False)
        f.write("\n")
    print("  wrote %s (%.0f kB)" % (os.path.relpath(path, os.path.join(HERE, "..")),
                                    os.path.getsize(path) / 1024))


# ---------------------------------------------------------------------------
# kernels (sklearn definitions)

def kernel_matrix(kernel, a, b, gamma, degree, coef0):
    """k(a_i, b_j) with sklearn.metrics.pairwise kernels, f64."""
    params = {}
    if kernel in ("rbf", "laplacian", "poly", "sigmoid"):
        params["gamma"] = gamma
    if kernel == "poly":
        params["degree"] = degree
    if kernel in ("poly", "sigmoid"):
        params["coef0"] = coef0
    return pairwise_kernels(a, b, metric=kernel, **params)


def kernel_diag(kernel, a, gamma, degree, coef0):
    return np.array([kernel_matrix(kernel, r[None, :], r[None, :], gamma, degree, coef0)[0, 0]
                     for r in a])


def sign_flip_columns(u):
    """sklearn's svd_flip rule: entry of largest absolute value of each column positive.
    Returns the +1/-1 factor per column."""
    idx = np.argmax(np.abs(u), axis=0)
    s = np.sign(u[idx, np.arange(u.shape[1])])
    s[s == 0] = 1.0
    return s


def anomaly_scores(kdiag, kx, c, s, y):
    """e(x) = k(x,x) - 2 c'k_x + s - sum_l y_l^2; kx is (n_points x m)."""
    return kdiag - 2.0 * kx @ c + s - np.sum(y * y, axis=1)


# ---------------------------------------------------------------------------
# full kernel PCA

def full_case(name, description, kernel, x_train, x_test, k, gamma=None, degree=3,
              coef0=1.0, extra=None):
    print("full_%s: kernel=%s n=%d d=%d n_test=%d k=%d" % (
        name, kernel, x_train.shape[0], x_train.shape[1], x_test.shape[0], k))
    x_train = np.ascontiguousarray(x_train, dtype=np.float64)
    x_test = np.ascontiguousarray(x_test, dtype=np.float64)
    n = x_train.shape[0]

    K = kernel_matrix(kernel, x_train, x_train, gamma, degree, coef0)
    Kx_test = kernel_matrix(kernel, x_test, x_train, gamma, degree, coef0)

    if kernel == "laplacian":
        # not accepted by name by KernelPCA; same maths through a precomputed Gram matrix
        kp = KernelPCA(n_components=k, kernel="precomputed", eigen_solver="dense")
        train_scores = kp.fit_transform(K.copy())
        test_scores = kp.transform(Kx_test.copy())
    else:
        kp = KernelPCA(n_components=k, kernel=kernel, gamma=gamma, degree=degree,
                       coef0=coef0, eigen_solver="dense")
        train_scores = kp.fit_transform(x_train)
        test_scores = kp.transform(x_test)
    mu = kp.eigenvalues_

    # independent numpy route: Kc = H K H, eigh, sign rule, sqrt(mu) * u
    H = np.eye(n) - np.full((n, n), 1.0 / n)
    Kc = H @ K @ H
    Kc = 0.5 * (Kc + Kc.T)
    all_mu = np.linalg.eigvalsh(Kc)[::-1]
    w, V = np.linalg.eigh(Kc)
    w, V = w[::-1][:k], V[:, ::-1][:, :k]
    V = V * sign_flip_columns(V)
    np_scores = V * np.sqrt(np.maximum(w, 0.0))
    d_eig = np.max(np.abs(w - mu) / np.abs(mu[0]))
    d_sc = np.max(np.abs(np_scores - train_scores))
    d_sk = np.max(np.abs(kp.eigenvectors_ * np.sqrt(mu) - train_scores))
    print("  max|sklearn scores - sqrt(mu) u_sklearn| = %.2e, vs numpy eigh = %.2e, "
          "eigenvalue rel diff = %.2e" % (d_sk, d_sc, d_eig))
    scale = np.max(np.abs(train_scores))
    check(d_sk <= 1e-12 * max(scale, 1.0), name + ": sklearn scores != sqrt(mu) u")
    check(d_sc <= 1e-8 * max(scale, 1.0), name + ": sklearn scores != numpy eigh scores")
    check(np.all(mu > 0), name + ": a kept eigenvalue is not positive")

    tol = 1e-10 * np.max(np.abs(all_mu))
    n_pos = int(np.sum(all_mu > tol))
    n_neg = int(np.sum(all_mu < -tol))

    c = np.full(n, 1.0 / n)
    s = float(K.mean())
    e_train = anomaly_scores(kernel_diag(kernel, x_train, gamma, degree, coef0), K, c, s,
                             train_scores)
    e_test = anomaly_scores(kernel_diag(kernel, x_test, gamma, degree, coef0), Kx_test, c,
                            s, test_scores)
    print("  eigenvalues %s; positive %d, negative %d of %d" % (
        np.array2string(mu, precision=5), n_pos, n_neg, n))
    print("  train e(x): min %.3e max %.3e; test e(x): min %.3e max %.3e" % (
        e_train.min(), e_train.max(), e_test.min(), e_test.max()))
    if kernel == "sigmoid":
        # indefinite kernel: there is no feature space, e(x_j) = sum over the dropped
        # eigenpairs of mu_l u_lj^2 includes the negative mu_l, so e(x) can be < 0
        print("  sigmoid is indefinite: e(x) >= 0 is not expected (%d train rows < 0)"
              % int(np.sum(e_train < 0)))
    else:
        check(e_train.min() >= -1e-9, name + ": negative training anomaly score")
        check(e_test.min() >= -1e-9, name + ": negative test anomaly score")

    obj = {
        "name": name,
        "description": description,
        "kernel": kernel,
        "gamma": None if gamma is None else float(gamma),
        "degree": int(degree),
        "coef0": float(coef0),
        "n_components": int(k),
        "x_train": tolist(x_train),
        "x_test": tolist(x_test),
        "eigenvalues": tolist(mu),
        "all_eigenvalues": tolist(all_mu),
        "n_positive_eigenvalues": n_pos,
        "n_negative_eigenvalues": n_neg,
        "train_scores": tolist(train_scores),
        "test_scores": tolist(test_scores),
        "train_anomaly_scores": tolist(e_train),
        "test_anomaly_scores": tolist(e_test),
    }
    if extra:
        obj.update(extra)
    write_json("full_%s.json" % name, obj)
    return obj


def make_all_full():
    # 1. circles
    X, _ = make_circles(n_samples=200, factor=0.3, noise=0.05, random_state=0)
    full_case("circles_rbf", "make_circles(200, factor=0.3, noise=0.05, random_state=0); "
              "rows 0..149 train, 150..199 test; rbf gamma=10",
              "rbf", X[:150], X[150:], 4, gamma=10.0)

    # 2. moons
    X, _ = make_moons(n_samples=200, noise=0.05, random_state=1)
    full_case("moons_poly", "make_moons(200, noise=0.05, random_state=1); rows 0..149 "
              "train, 150..199 test; poly gamma=1 degree=3 coef0=1",
              "poly", X[:150], X[150:], 4, gamma=1.0, degree=3, coef0=1.0)

    # 3. digits
    D = load_digits().data / 16.0
    full_case("digits_rbf", "sklearn load_digits, pixels/16 (d=64); rows 0..399 train, "
              "400..499 test; rbf gamma=1/64",
              "rbf", D[:400], D[400:500], 8, gamma=1.0 / 64.0)

    # 4. linear, anisotropic Gaussian
    rng = np.random.default_rng(4)
    A = rng.normal(size=(5, 5)) * np.array([3.0, 2.0, 1.0, 0.5, 0.2])
    X = rng.normal(size=(150, 5)) @ A.T + np.array([1.0, -2.0, 0.5, 3.0, 0.0])
    xtr, xte = X[:120], X[120:]
    pca = PCA(n_components=3).fit(xtr)
    obj = full_case("linear_blobs", "anisotropic Gaussian d=5 (numpy default_rng(4)); "
                    "rows 0..119 train, 120..149 test; linear kernel. pca_scores = "
                    "sklearn PCA(3) transform of x_test, equal to test_scores up to the "
                    "sign of each column",
                    "linear", xtr, xte, 3, gamma=None,
                    extra={"pca_scores": tolist(pca.transform(xte))})
    ts, ps = np.array(obj["test_scores"]), np.array(obj["pca_scores"])
    sg = np.sign(np.sum(ts * ps, axis=0))
    d = np.max(np.abs(ts - ps * sg))
    print("  max |KPCA test scores - PCA scores (sign-aligned)| = %.2e" % d)
    check(d < 1e-9, "linear_blobs: KPCA != PCA")

    # 5. sigmoid (indefinite)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(130, 4)) @ rng.normal(size=(4, 4)) + rng.normal(size=4)
    mean, std = X[:100].mean(0), X[:100].std(0)
    X = (X - mean) / std
    obj = full_case("sigmoid_case", "correlated Gaussian d=4 (numpy default_rng(5)), "
                    "standardised by the train mean/std; rows 0..99 train, 100..129 "
                    "test; sigmoid gamma=0.1 coef0=0 (indefinite kernel)",
                    "sigmoid", X[:100], X[100:], 3, gamma=0.1, coef0=0.0)
    check(obj["n_positive_eigenvalues"] >= 3 and obj["n_negative_eigenvalues"] > 0,
          "sigmoid_case: needs >= k positive and some negative eigenvalues")

    # 6. laplacian, cosine, poly degree 2
    rng = np.random.default_rng(6)
    X = rng.uniform(-1.0, 1.0, size=(130, 3))
    full_case("laplacian_case", "uniform on [-1,1]^3 (numpy default_rng(6)); rows 0..99 "
              "train, 100..129 test; laplacian gamma=0.5 (fitted through "
              "KernelPCA(kernel='precomputed') on sklearn laplacian_kernel)",
              "laplacian", X[:100], X[100:], 3, gamma=0.5)

    rng = np.random.default_rng(7)
    X = rng.normal(size=(130, 4)) * np.array([1.0, 0.7, 0.5, 0.3]) + np.array(
        [1.0, 0.5, 0.0, -0.5])
    full_case("cosine_case", "Gaussian with non-zero mean, d=4 (numpy default_rng(7)); "
              "rows 0..99 train, 100..129 test; cosine kernel",
              "cosine", X[:100], X[100:], 3, gamma=None)

    rng = np.random.default_rng(8)
    X = rng.normal(size=(130, 3)) * np.array([1.0, 0.6, 0.3])
    full_case("poly2_case", "Gaussian d=3 (numpy default_rng(8)); rows 0..99 train, "
              "100..129 test; poly gamma=0.5 degree=2 coef0=1",
              "poly", X[:100], X[100:], 4, gamma=0.5, degree=2, coef0=1.0)

    # 7. sensor-like, the firmware benchmark size
    rng = np.random.default_rng(9)
    n_tr, n_norm, n_anom = 128, 48, 16
    mix = rng.normal(size=(8, 3))
    offs = rng.normal(size=8)

    def normal_rows(cnt):
        t = rng.uniform(0.0, 2.0 * np.pi, size=cnt)
        z = np.column_stack([np.sin(t), np.cos(t), 0.5 * rng.normal(size=cnt)])
        return z @ mix.T + offs + 0.05 * rng.normal(size=(cnt, 8))

    xtr = normal_rows(n_tr)
    xno = normal_rows(n_norm)
    xan = normal_rows(n_anom)
    mean, std = xtr.mean(0), xtr.std(0)
    xtr = (xtr - mean) / std
    xno = (xno - mean) / std
    xan = (xan - mean) / std
    # anomalies (in standardised units): even rows have one channel stuck 4..6 std
    # away, odd rows are pushed 4 std along a random direction
    for i in range(n_anom):
        if i % 2 == 0:
            xan[i, (i // 2) % 8] += rng.choice([-1.0, 1.0]) * rng.uniform(4.0, 6.0)
        else:
            v = rng.normal(size=8)
            xan[i] += 4.0 * v / np.linalg.norm(v)
    xte = np.vstack([xno, xan])
    labels = [0] * n_norm + [1] * n_anom
    obj = full_case("sensor_rbf", "synthetic 8-channel sensor (numpy default_rng(9)): 3 "
                    "latent factors (sin t, cos t, noise) mixed into 8 channels plus "
                    "noise, standardised by the train mean/std; 128 train, 64 test "
                    "(rows 0..47 normal, 48..63 anomalies, see test_labels); rbf "
                    "gamma=1/8", "rbf", xtr, xte, 4, gamma=1.0 / 8.0,
                    extra={"test_labels": labels})
    e = np.array(obj["test_anomaly_scores"])
    print("  sensor: normal test e(x) max %.4f, anomaly test e(x) min %.4f" % (
        e[:n_norm].max(), e[n_norm:].min()))


# ---------------------------------------------------------------------------
# Nystrom kernel PCA

NUMPY_PINV_REL_TOL = 1e-9


def sym_pinv_pow(M, power, rel_tol):
    """M^power for symmetric M over its eigenvalues > rel_tol * largest (pseudo-inverse
    for negative powers)."""
    M = 0.5 * (M + M.T)
    w, U = np.linalg.eigh(M)
    keep = w > rel_tol * np.max(w)
    return (U[:, keep] * w[keep] ** power) @ U[:, keep].T


def numpy_nystrom(x_train, x_test, landmarks, gamma, k, rel_tol):
    """DESIGN.md section 3 in f64 numpy."""
    n = x_train.shape[0]
    K_nm = kernel_matrix("rbf", x_train, x_train[landmarks], gamma, 0, 0.0)
    K_mm = K_nm[landmarks]
    n_mean = K_nm.mean(axis=0)
    m0 = sym_pinv_pow(K_mm, -1.0, rel_tol) @ n_mean
    nm0 = float(n_mean @ m0)
    Kp_nm = K_nm - n_mean[None, :] - (K_nm @ m0)[:, None] + nm0
    Kp_mm = K_mm - n_mean[None, :] - n_mean[:, None] + nm0
    R = sym_pinv_pow(Kp_mm, -0.5, rel_tol)
    N = R @ Kp_nm.T @ Kp_nm @ R / n
    N = 0.5 * (N + N.T)
    lam, V = np.linalg.eigh(N)
    lam, V = lam[::-1][:k], V[:, ::-1][:, :k]
    C = R @ V
    W = Kp_nm @ C
    sgn = sign_flip_columns(W)
    C, W = C * sgn, W * sgn
    kappa = kernel_matrix("rbf", x_test, x_train[landmarks], gamma, 0, 0.0)  # (t x m)
    kappa_p = kappa - n_mean[None, :] - (kappa @ m0)[:, None] + nm0
    Y = kappa_p @ C
    # the affine form of DESIGN.md section 3 must give the same test scores
    A = C - np.outer(m0, C.sum(axis=0))
    b = -C.T @ n_mean + nm0 * C.sum(axis=0)
    Y2 = kappa @ A + b
    e_tr = anomaly_scores(np.ones(n), K_nm, m0, nm0, W)
    e_te = anomaly_scores(np.ones(x_test.shape[0]), kappa, m0, nm0, Y)
    return dict(eigenvalues=lam, train_scores=W, test_scores=Y, affine_diff=np.max(
        np.abs(Y - Y2)), train_anomaly=e_tr, test_anomaly=e_te)


def nystrom_case(name, description, x_train, x_test, gamma, m, k, seed, with_full=False):
    x_train = np.ascontiguousarray(x_train, dtype=np.float64)
    x_test = np.ascontiguousarray(x_test, dtype=np.float64)
    n = x_train.shape[0]
    print("nystrom_%s: n=%d d=%d m=%d k=%d gamma=%r" % (name, n, x_train.shape[1], m, k,
                                                       gamma))
    if m == n:
        landmarks = np.arange(n)
    else:
        landmarks = np.sort(np.random.default_rng(seed).choice(n, size=m, replace=False))
    sigma = 1.0 / np.sqrt(gamma)

    est = NystromKPCA(kernel="rbf", sigma=sigma, degree=2, n_components=k, m_subset=m,
                      scale=False)
    est.subset = landmarks.copy()
    tr = est.fit_transform(x_train.copy())
    check(np.array_equal(est.subset, landmarks), name + ": nystrompca changed the subset")
    te = est.transform(x_test.copy())
    lam = np.array(est.explained_variance_[:k], dtype=np.float64)
    # nystrompca flips so the midpoint of each score column's range is positive;
    # re-flip to sklearn's rule on the training score columns
    sgn = sign_flip_columns(tr)
    tr, te = tr * sgn, te * sgn

    ref = numpy_nystrom(x_train, x_test, landmarks, gamma, k, NUMPY_PINV_REL_TOL)
    d_lam = np.max(np.abs(lam - ref["eigenvalues"]) / lam[0])
    d_tr = np.max(np.abs(tr - ref["train_scores"]))
    d_te = np.max(np.abs(te - ref["test_scores"]))
    print("  nystrompca eigenvalues %s" % np.array2string(lam, precision=6))
    print("  numpy vs nystrompca: eigenvalue rel %.2e, train scores %.2e, test scores "
          "%.2e (score scale %.2f); affine form vs direct %.2e" % (
              d_lam, d_tr, d_te, np.max(np.abs(tr)), ref["affine_diff"]))
    check(d_lam < 1e-8 and d_tr < 1e-6 and d_te < 1e-6,
          name + ": numpy and nystrompca disagree")
    print("  numpy train e(x) min %.3e, test e(x) min %.3e max %.3e" % (
        ref["train_anomaly"].min(), ref["test_anomaly"].min(), ref["test_anomaly"].max()))
    check(ref["train_anomaly"].min() >= -1e-9, name + ": negative train anomaly score")
    # score columns are uncorrelated with variance lambda (mean zero, divided by n)
    cov = ref["train_scores"].T @ ref["train_scores"] / n
    d_cov = np.max(np.abs(cov - np.diag(ref["eigenvalues"])))
    print("  numpy: max |W'W/n - diag(lambda)| = %.2e, max |mean of score column| = "
          "%.2e" % (d_cov, np.max(np.abs(ref["train_scores"].mean(0)))))

    obj = {
        "name": name,
        "description": description,
        "kernel": "rbf",
        "gamma": float(gamma),
        "sigma": float(sigma),
        "n_components": int(k),
        "x_train": tolist(x_train),
        "x_test": tolist(x_test),
        "landmarks": [int(i) for i in landmarks],
        "eigenvalues": tolist(lam),
        "train_scores": tolist(tr),
        "test_scores": tolist(te),
        "test_scores_source": "nystrompca.NystromKPCA.transform(x_test)",
        "eigenvalue_convention": (
            "eigenvalues are nystrompca explained_variance_ = eigenvalues of "
            "N = K'mm^-1/2 K'nm' K'nm K'mm^-1/2 / n, i.e. ALREADY DIVIDED BY n: the "
            "variance (1/n, not 1/(n-1)) of each training score column. Multiply by n "
            "to compare with scikit-learn eigenvalues_ (mu)."),
        "sign_rule": (
            "each component's sign is set so that the entry of largest absolute value "
            "of its training score column (n-vector K'nm C_l, proportional to the "
            "sklearn eigenvector u_l when m = n) is positive (sklearn svd_flip rule); "
            "nystrompca's own rule (midpoint of the score range positive) was undone "
            "by flipping train and test score columns together."),
        "centring": (
            "nystrompca centres in feature space with n_mean = K_nm'1/n, "
            "m0 = pinv(K_mm) n_mean, exactly DESIGN.md section 3; its pseudo-inverses "
            "drop eigenvalues < 1e-9 (absolute) and N's eigenvalues < 1e-12 are set "
            "to 0."),
        "numpy_pinv_rel_tol": NUMPY_PINV_REL_TOL,
        "numpy_eigenvalues": tolist(ref["eigenvalues"]),
        "numpy_train_scores": tolist(ref["train_scores"]),
        "numpy_test_scores": tolist(ref["test_scores"]),
        "numpy_train_anomaly_scores": tolist(ref["train_anomaly"]),
        "numpy_test_anomaly_scores": tolist(ref["test_anomaly"]),
    }

    if with_full:
        kp = KernelPCA(n_components=k, kernel="rbf", gamma=gamma, eigen_solver="dense")
        ftr = kp.fit_transform(x_train)
        fte = kp.transform(x_test)
        fmu = kp.eigenvalues_
        d_mu = np.max(np.abs(lam * n - fmu) / fmu[0])
        d_ftr = np.max(np.abs(tr - ftr))
        d_fte = np.max(np.abs(te - fte))
        d_nftr = np.max(np.abs(ref["train_scores"] - ftr))
        d_nfte = np.max(np.abs(ref["test_scores"] - fte))
        d_nmu = np.max(np.abs(ref["eigenvalues"] * n - fmu) / fmu[0])
        print("  m = n vs full KPCA: nystrompca eigenvalues*n rel %.2e, train %.2e, test "
              "%.2e; numpy eigenvalues*n rel %.2e, train %.2e, test %.2e" % (
                  d_mu, d_ftr, d_fte, d_nmu, d_nftr, d_nfte))
        check(d_mu < 1e-8 and d_ftr < 1e-6 and d_fte < 1e-6,
              name + ": m = n nystrompca differs from full KPCA")
        check(d_nmu < 1e-8 and d_nftr < 1e-6 and d_nfte < 1e-6,
              name + ": m = n numpy Nystrom differs from full KPCA")
        obj["full_eigenvalues"] = tolist(fmu)
        obj["full_train_scores"] = tolist(ftr)
        obj["full_test_scores"] = tolist(fte)

    write_json("nystrom_%s.json" % name, obj)


def make_all_nystrom():
    X, _ = make_circles(n_samples=200, factor=0.3, noise=0.05, random_state=0)
    nystrom_case("circles", "circles_rbf data (make_circles(200, factor=0.3, noise=0.05, "
                 "random_state=0), rows 0..149 train, 150..199 test); m=30 landmarks "
                 "from numpy default_rng(10).choice(150, 30, replace=False), sorted",
                 X[:150], X[150:], 10.0, 30, 3, seed=10)

    D = load_digits().data / 16.0
    nystrom_case("digits", "load_digits pixels/16, rows 0..299 train, 300..399 test; m=60 "
                 "landmarks from numpy default_rng(11).choice(300, 60, replace=False), "
                 "sorted; gamma=1/64", D[:300], D[300:400], 1.0 / 64.0, 60, 5, seed=11)

    X, _ = make_circles(n_samples=80, factor=0.3, noise=0.05, random_state=2)
    nystrom_case("circles_full", "make_circles(80, factor=0.3, noise=0.05, "
                 "random_state=2), rows 0..59 train, 60..79 test; every training point "
                 "is a landmark (m = n = 60), compare with full_* keys (sklearn)",
                 X[:60], X[60:], 10.0, 60, 3, seed=0, with_full=True)


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    print("numpy %s, scikit-learn %s" % (np.__version__, sklearn.__version__))
    make_all_full()
    make_all_nystrom()
    if FAILURES:
        print("\n%d check(s) failed:" % len(FAILURES))
        for f in FAILURES:
            print("  " + f)
        sys.exit(1)
    print("\nall checks passed")


if __name__ == "__main__":
    main()
