"""The device limits at fit, the emulator's input shapes, the fit's hints as
warnings, ``__version__``, the explained-variance attributes and PyOD's
contamination range."""

import importlib.metadata
import json
import tomllib
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import make_circles
from sklearn.decomposition import KernelPCA as SkKernelPCA

import kpca

ROOT = Path(__file__).resolve().parents[2]
HOST_TOL = 1e-8


def circles():
    X, _ = make_circles(200, factor=0.3, noise=0.05, random_state=0)
    return X[:150], X[150:]


# 1. The device model's limits, refused by the detector's fit.


def test_the_detector_refuses_more_components_than_the_device_holds_at_fit():
    train, _ = circles()
    with pytest.raises(ValueError, match=r"n_components=17: the device model holds at most 16 components"):
        kpca.KernelPCAAnomalyDetector(17, kernel="rbf", gamma=10.0).fit(train)
    assert kpca.MAX_COMPONENTS == 16
    # n_components=None keeps every positive component: 139 here.
    with pytest.raises(ValueError, match=r"n_components=None kept 139 components.*at most 16"):
        kpca.KernelPCAAnomalyDetector(None, kernel="rbf", gamma=10.0).fit(train)
    assert kpca.KernelPCAAnomalyDetector(16, kernel="rbf", gamma=10.0).fit(train).to_bytes()


def test_the_detector_refuses_more_features_or_landmarks_than_the_device_holds():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=rf"X has {kpca.MAX_DIM + 1} features.*at most {kpca.MAX_DIM}"):
        kpca.KernelPCAAnomalyDetector(2).fit(rng.normal(size=(4, kpca.MAX_DIM + 1)))
    m = kpca.MAX_POINTS + 1
    with pytest.raises(ValueError, match=rf"nystrom={m}: the device model stores at most {kpca.MAX_POINTS}"):
        kpca.KernelPCAAnomalyDetector(2, nystrom=m).fit(rng.normal(size=(10, 2)))


# 2. DeviceModel: one vector or a batch, float32 or cast to it.


def test_the_device_model_takes_one_vector_as_well_as_rows():
    train, test = circles()
    est = kpca.KernelPCA(4, kernel="rbf", gamma=10.0, fit_inverse_transform=True, alpha=0.1).fit(train)
    dev = est.device_model()
    x = test[0].astype(np.float32)
    for v in (x, test[0], list(test[0])):  # float32, float64, a list
        s = dev.anomaly_score(v)
        assert isinstance(s, np.float32) and s == dev.anomaly_score(x[None, :])[0]
        flag = dev.is_anomaly(v)
        assert isinstance(flag, np.bool_) and flag == dev.is_anomaly(x[None, :])[0]
        p = dev.project(v)
        assert p.shape == (4,) and p.dtype == np.float32
        np.testing.assert_array_equal(p, dev.project(x[None, :])[0])
        r = dev.reconstruct(v)
        assert r.shape == (2,)
        np.testing.assert_array_equal(r, dev.reconstruct(x[None, :])[0])
    with pytest.raises(ValueError, match="no regression head"):
        dev.predict(x)
    # Batches keep their shapes, float64 rows are cast.
    assert dev.anomaly_score(test).shape == (50,)
    assert dev.project(test).shape == (50, 4)
    assert dev.anomaly_score(np.zeros((0, 2))).shape == (0,)


def test_the_device_model_says_what_shape_it_wants():
    train, _ = circles()
    dev = kpca.KernelPCAAnomalyDetector(2, kernel="rbf", gamma=10.0).fit(train).device_model()
    wanted = r"one vector of shape \(2,\) or rows of shape \(n, 2\)"
    for bad in (np.zeros(13, np.float32), np.zeros((3, 13))):
        with pytest.raises(ValueError, match=r"X has 13 features, but the model's input dimension is d = 2: give " + wanted):
            dev.anomaly_score(bad)
    for method in (dev.project, dev.anomaly_score, dev.is_anomaly):
        with pytest.raises(ValueError, match=wanted + r".*got shape \(2, 2, 2\)"):
            method(np.zeros((2, 2, 2)))
        with pytest.raises(ValueError, match=wanted):
            method(np.float32(1.0))


# 3. The command's hints, as warnings of the category kpca.KpcaHint.


def test_column_scales_far_apart_are_hinted():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 3)) * [1.0, 1.0, 1e4]
    with pytest.warns(kpca.KpcaHint, match=r"column scales differ by a factor of .*in feature 2.*try standardize=True"):
        kpca.KernelPCAAnomalyDetector(2, kernel="rbf").fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", kpca.KpcaHint)
        kpca.KernelPCAAnomalyDetector(2, kernel="rbf", standardize=True).fit(X)


def test_little_kept_variance_is_hinted():
    # 400 points on the axes of R^400, two longer than the rest: the two
    # components keep (9 + 4) / (9 + 4 + 398) of the variance, about 3%.
    X = np.eye(400)
    X[0, 0], X[1, 1] = 3.0, 2.0
    with pytest.warns(kpca.KpcaHint, match=r"the 2 components keep only 3\.\d% of the variance: try more n_components"):
        kpca.KernelPCA(2, kernel="linear").fit(X)


def test_nearly_equal_eigenvalues_are_hinted():
    # An 8 x 8 lattice of spacing 10: with gamma 1 the kernel matrix is the
    # identity to rounding, and every centred eigenvalue is 1.
    X = 10.0 * np.array([(i, j) for i in range(8) for j in range(8)])
    with pytest.warns(kpca.KpcaHint, match=r"the 3 kept eigenvalues are nearly equal.*with gamma 1 .*try a smaller gamma"):
        kpca.KernelPCA(3, kernel="rbf", gamma=1.0).fit(X)


def test_a_useful_model_gets_no_hint():
    train, _ = circles()
    with warnings.catch_warnings():
        warnings.simplefilter("error", kpca.KpcaHint)
        kpca.KernelPCA(4, kernel="rbf", gamma=10.0).fit(train)
        kpca.KernelPCAAnomalyDetector(4, kernel="rbf", gamma=10.0).fit(train)


# 4. The version.


def test_the_version_is_the_crates_and_the_installed_packages():
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    assert kpca.__version__ == kpca._kpca.__version__ == cargo
    assert kpca.__version__ == importlib.metadata.version("kpca")


# 5. eigenvalues_ and explained_variance_ratio_.


@pytest.mark.parametrize("cls", [kpca.KernelPCA, kpca.KernelPCAAnomalyDetector])
def test_eigenvalues_and_explained_variance_ratio_match_scikit_learn(cls):
    fx = json.loads((ROOT / "testdata" / "fixtures" / "full_circles_rbf.json").read_text())
    X = np.array(fx["x_train"])
    est = cls(fx["n_components"], kernel="rbf", gamma=fx["gamma"]).fit(X)
    want = np.array(fx["eigenvalues"])
    np.testing.assert_allclose(est.eigenvalues_, want, rtol=HOST_TOL)
    # scikit-learn keeps every positive eigenvalue with n_components=None.
    every = SkKernelPCA(kernel="rbf", gamma=fx["gamma"]).fit(X).eigenvalues_
    np.testing.assert_allclose(est.eigenvalues_, every[: len(want)], rtol=HOST_TOL)
    np.testing.assert_allclose(est.explained_variance_ratio_, want / every.sum(), rtol=1e-6)
    all_fx = np.array(fx["all_eigenvalues"])
    np.testing.assert_allclose(est.explained_variance_ratio_, want / all_fx[all_fx > 0].sum(), rtol=1e-6)


# 6. PyOD's contamination range.


def test_contamination_must_be_in_pyods_range():
    train, _ = circles()
    for bad in (0.7, 0.0, 0.51, -0.1, "half"):
        with pytest.raises(ValueError, match=r"contamination must be 'auto' or in \(0, 0\.5\]"):
            kpca.KernelPCAAnomalyDetector(2, kernel="rbf", gamma=10.0, contamination=bad).fit(train)
    det = kpca.KernelPCAAnomalyDetector(2, kernel="rbf", gamma=10.0, contamination=0.5).fit(train)
    assert det.labels_.mean() == pytest.approx(0.5, abs=0.02)
