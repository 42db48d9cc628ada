"""kpca's scikit-learn estimators against scikit-learn itself (live and the
committed fixtures of scripts/make_fixtures.py), the device emulator
against the host fit, and the errors at the Python boundary."""

import json
import os
import pickle
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_circles, make_moons
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import kpca

FIXTURES = Path(__file__).resolve().parents[2] / "testdata" / "fixtures"

# f64 host results against scikit-learn's f64 results, relative to each
# column's scale (the fixtures' tolerance for the Rust fit).
HOST_TOL = 1e-8
# The device's f32 results against the f64 fit, relative to each column's scale.
DEVICE_TOL = 1e-4


def col_rel(got, want):
    """Largest |got - want| per column over the column's largest |want|; NaN
    propagates (np.max of a NaN is NaN)."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = np.max(np.abs(want), axis=0)
    return float(np.max(np.abs(got - want) / scale))


def circles():
    X, _ = make_circles(200, factor=0.3, noise=0.05, random_state=0)
    return X[:150], X[150:]


def full_fixtures():
    return sorted(FIXTURES.glob("full_*.json"))


@pytest.mark.parametrize("path", full_fixtures(), ids=lambda p: p.stem)
def test_transform_matches_the_scikit_learn_fixtures(path):
    fx = json.loads(path.read_text())
    est = kpca.KernelPCA(
        fx["n_components"],
        kernel=fx["kernel"],
        gamma=fx.get("gamma"),
        degree=fx.get("degree", 3),
        coef0=fx.get("coef0", 1.0),
    ).fit(np.array(fx["x_train"]))
    err = col_rel(est.transform(np.array(fx["x_test"])), fx["test_scores"])
    assert err <= HOST_TOL, f"{path.stem}: {err:e}"


def test_fit_transform_eigenpairs_and_inverse_transform_match_scikit_learn():
    train, test = circles()
    args = dict(kernel="rbf", gamma=10.0, fit_inverse_transform=True, alpha=0.1)
    ours = kpca.KernelPCA(4, **args).fit(train)
    ref = SkKernelPCA(4, **args).fit(train)
    assert col_rel(ours.transform(test), ref.transform(test)) <= HOST_TOL
    assert col_rel(kpca.KernelPCA(4, **args).fit_transform(train), ref.fit_transform(train)) <= HOST_TOL
    assert col_rel(ours.eigenvalues_[None, :], ref.eigenvalues_[None, :]) <= HOST_TOL
    assert col_rel(ours.eigenvectors_, ref.eigenvectors_) <= HOST_TOL
    pre = ours.inverse_transform(ours.transform(test))
    assert col_rel(pre, ref.inverse_transform(ref.transform(test))) <= HOST_TOL
    assert ours.gamma_ == ref.gamma_ and ours.n_features_in_ == 2
    np.testing.assert_array_equal(ours.X_fit_, ref.X_fit_)
    assert list(ours.get_feature_names_out()) == [f"kernelpca{i}" for i in range(4)]


def test_n_components_none_keeps_every_positive_component_as_scikit_learn():
    X, _ = make_moons(30, noise=0.1, random_state=1)
    ours = kpca.KernelPCA(kernel="rbf", gamma=2.0).fit(X)
    ref = SkKernelPCA(kernel="rbf", gamma=2.0).fit(X)
    assert ours.eigenvalues_.shape == ref.eigenvalues_.shape
    k = 10  # the leading components are well separated
    assert col_rel(ours.transform(X)[:, :k], ref.transform(X)[:, :k]) <= 1e-6


def test_the_device_emulator_matches_the_host_fit():
    train, test = circles()
    est = kpca.KernelPCA(4, kernel="rbf", gamma=10.0, fit_inverse_transform=True, alpha=0.1).fit(train)
    dev = kpca.DeviceModel.from_bytes(est.to_bytes())
    assert (dev.dim, dev.n_components, dev.n_points) == (2, 4, 150)
    x32 = test.astype(np.float32)
    assert col_rel(dev.project(x32), est.transform(test)) <= DEVICE_TOL
    assert col_rel(dev.reconstruct(x32), est.inverse_transform(est.transform(test))) <= DEVICE_TOL
    assert dev.has_preimage and dev.n_targets == 0
    with pytest.raises(ValueError, match="no regression head"):
        dev.predict(x32)
    with pytest.raises(ValueError, match="input dimension"):
        dev.project(np.zeros((1, 3), dtype=np.float32))


def test_export_writes_a_loadable_blob_and_c_and_rust_sources(tmp_path):
    train, _ = circles()
    est = kpca.KernelPCA(3, kernel="rbf", gamma=10.0).fit(train)
    (blob,) = est.export(tmp_path / "m.kpca")
    assert kpca.DeviceModel.from_bytes(Path(blob).read_bytes()).n_components == 3
    assert kpca.DeviceModel.load(str(blob)).to_bytes() == est.to_bytes()
    with pytest.raises(OSError):
        kpca.DeviceModel.load(str(tmp_path / "missing.kpca"))
    with pytest.raises(ValueError, match="kpca status"):
        kpca.DeviceModel.from_bytes(est.to_bytes()[:-1])
    c_files = est.export(tmp_path / "c", format="c", name="circles_model")
    assert sorted(Path(p).name for p in c_files) == ["circles_model.c", "circles_model.h"]
    assert "circles_model_blob" in Path(c_files[0]).read_text() + Path(c_files[1]).read_text()
    (rs,) = est.export(tmp_path / "rs", format="rust", name="circles_model")
    assert Path(rs).read_text().strip()
    with pytest.raises(ValueError, match="format"):
        est.export(tmp_path / "x", format="onnx")
    big = kpca.KernelPCA(20, kernel="rbf", gamma=10.0).fit(train)
    assert big.transform(train).shape == (150, 20)
    with pytest.raises(ValueError, match="at most 16 components"):
        big.to_bytes()


def test_the_anomaly_detector_flags_what_lies_off_the_training_data():
    train, test = circles()
    det = kpca.KernelPCAAnomalyDetector(4, kernel="rbf", gamma=10.0, contamination=0.05).fit(train)
    assert det.labels_.mean() == pytest.approx(0.05, abs=0.02)
    np.testing.assert_allclose(det.decision_scores_, -det.score_samples(train), rtol=1e-12)
    far = np.array([[3.0, 3.0], [-2.5, 0.0]])
    assert list(det.predict(far)) == [-1, -1]
    d = det.decision_function(test)
    np.testing.assert_array_equal(det.predict(test), np.where(d < 0, -1, 1))
    assert det.threshold_ == -det.offset_ > 0
    fp = kpca.KernelPCAAnomalyDetector(4, kernel="rbf", gamma=10.0).fit_predict(train)
    assert set(np.unique(fp)) <= {-1, 1}


def test_bad_input_raises_scikit_learns_exceptions():
    train, test = circles()
    with pytest.raises(NotFittedError):
        kpca.KernelPCA(2, kernel="rbf").transform(test)
    with pytest.raises(ValueError, match="not supported"):
        kpca.KernelPCA(2, kernel="chi2").fit(train)
    with pytest.raises(ValueError, match="not supported"):
        kpca.KernelPCAAnomalyDetector(2, kernel="precomputed").fit(train)
    with pytest.raises(ValueError):
        kpca.KernelPCA(2, kernel="rbf", gamma=-1.0).fit(train)
    with pytest.raises(ValueError):
        kpca.KernelPCA(0, kernel="rbf").fit(train)
    bad = train.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError):
        kpca.KernelPCA(2, kernel="rbf").fit(bad)
    est = kpca.KernelPCA(2, kernel="rbf").fit(train)
    with pytest.raises(ValueError):
        est.transform(np.zeros((2, 3)))
    with pytest.raises(NotFittedError, match="fit_inverse_transform"):
        est.inverse_transform(est.transform(test))
    with pytest.raises(ValueError, match="contamination"):
        kpca.KernelPCAAnomalyDetector(contamination=1.5).fit(train)
    inv = kpca.KernelPCA(2, kernel="rbf", fit_inverse_transform=True).fit(train)
    with pytest.raises(ValueError, match="NaN"):
        inv.inverse_transform(np.full((1, 2), np.nan))
    with pytest.raises(ValueError, match="degree"):
        kpca.KernelPCA(2, kernel="poly", degree=2.5).fit(train)
    with pytest.raises(ValueError, match="eigen_solver"):
        kpca.KernelPCA(2, kernel="rbf", eigen_solver="lobpcg").fit(train)
    with pytest.raises(ValueError, match="no component has a positive eigenvalue"):
        kpca.KernelPCAAnomalyDetector(None, kernel="rbf").fit(np.ones((5, 2)))
    # As scikit-learn: at most n columns, and a constant kernel gives zero columns.
    assert kpca.KernelPCA(10, kernel="rbf").fit(train[:6]).transform(test).shape == (50, 6)
    assert kpca.KernelPCA(kernel="rbf").fit(np.ones((5, 2))).transform(test).shape == (50, 0)
    assert kpca.KernelPCA(3, kernel="rbf").fit(np.ones((5, 2))).transform(test).shape == (50, 3)
    # The emulator takes float64 rows too (cast to the device's float32).
    np.testing.assert_array_equal(inv.device_model().project(test), inv.device_model().project(test.astype(np.float32)))


def test_pickle_clone_and_pipeline_keep_the_results():
    train, test = circles()
    est = kpca.KernelPCA(3, kernel="rbf", gamma=10.0, fit_inverse_transform=True).fit(train)
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.transform(test), est.transform(test))
    np.testing.assert_array_equal(back.inverse_transform(back.transform(test)), est.inverse_transform(est.transform(test)))
    assert clone(est).get_params() == est.get_params()
    pipe = make_pipeline(StandardScaler(), kpca.KernelPCA(3, kernel="rbf", gamma=0.5)).fit(train)
    ref = make_pipeline(StandardScaler(), SkKernelPCA(3, kernel="rbf", gamma=0.5)).fit(train)
    assert col_rel(pipe.transform(test), ref.transform(test)) <= HOST_TOL


def test_precomputed_and_callable_kernels_match_scikit_learn_and_have_no_device_model():
    train, test = circles()
    from sklearn.metrics.pairwise import rbf_kernel

    K, K_test = rbf_kernel(train, gamma=10.0), rbf_kernel(test, train, gamma=10.0)
    ours = kpca.KernelPCA(4, kernel="precomputed").fit(K)
    ref = SkKernelPCA(4, kernel="precomputed").fit(K)
    assert col_rel(ours.transform(K_test), ref.transform(K_test)) <= HOST_TOL
    assert col_rel(ours.eigenvalues_[None, :], ref.eigenvalues_[None, :]) <= HOST_TOL
    assert col_rel(ours.eigenvectors_, ref.eigenvectors_) <= HOST_TOL
    # The same model as the built-in rbf kernel's.
    builtin = kpca.KernelPCA(4, kernel="rbf", gamma=10.0).fit(train)
    assert col_rel(ours.transform(K_test), builtin.transform(test)) <= HOST_TOL
    laplace = lambda a, b: np.exp(-2.0 * np.abs(a - b).sum())  # noqa: E731
    mine = kpca.KernelPCA(3, kernel=laplace).fit(train[:40])
    theirs = SkKernelPCA(3, kernel=laplace).fit(train[:40])
    assert col_rel(mine.transform(test[:5]), theirs.transform(test[:5])) <= HOST_TOL
    with pytest.raises(ValueError, match="no device model"):
        ours.to_bytes()
    with pytest.raises(ValueError, match="significant negative eigenvalues"):
        kpca.KernelPCA(3, kernel="precomputed").fit(-np.eye(4) + 0.1 * np.ones((4, 4)) * 0)
    back = pickle.loads(pickle.dumps(ours))
    np.testing.assert_array_equal(back.transform(K_test), ours.transform(K_test))


def test_float32_input_gives_the_float64_fit():
    train, test = circles()
    a = kpca.KernelPCA(3, kernel="rbf", gamma=10.0).fit(train.astype(np.float32))
    b = kpca.KernelPCA(3, kernel="rbf", gamma=10.0).fit(train.astype(np.float32).astype(np.float64))
    np.testing.assert_array_equal(a.transform(test), b.transform(test))


def python_block(text, marker="<!-- python-example -->"):
    """The first ```python block after `marker` in a page's text."""
    return text.split(marker, 1)[1].split("```python\n", 1)[1].split("```", 1)[0]


@pytest.mark.parametrize("page", ["README.md", "docs/PYTHON.md"])
def test_readme_python_example_runs(page, tmp_path, monkeypatch, capsys):
    """The Python quick start of the README and the longer example of
    docs/PYTHON.md, each run as written from a directory holding data/."""
    root = FIXTURES.parents[1]
    block = python_block((root / page).read_text())
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").symlink_to(root / "data")
    exec(compile(block, page, "exec"), {})
    out = capsys.readouterr().out
    running, walking = (float(v.split()[-1].rstrip(",")) for v in out.splitlines()[0].split(":")[1].split(", "))
    assert running > 0.9 and walking < 0.1, out
    assert float(out.splitlines()[1].split()[-1]) < 1e-4, out
    assert (tmp_path / "fw" / "walking_model.h").exists()


def test_the_device_emulator_is_bit_for_bit_the_emulated_cortex_m4f(tmp_path):
    """The blob through scripts/firmware-run.sh (C firmware, libkpca.a,
    QEMU mps2-an386) and through DeviceModel: the same f32 coordinates and
    scores, bit for bit (the firmware prints 9 significant digits, which
    round-trip an f32)."""
    import shutil
    import subprocess

    root = FIXTURES.parents[1]
    missing = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm") if shutil.which(t) is None]
    if missing:
        if os.environ.get("KPCA_REQUIRE_FIRMWARE_TOOLS") == "1":
            pytest.fail(f"firmware tools missing: {missing}")
        pytest.skip(f"firmware tools missing: {missing} (scripts/install-firmware-deps.sh)")
    train = np.loadtxt(root / "data" / "sensor-train.csv", delimiter=",", skiprows=1)
    test = np.loadtxt(root / "data" / "sensor-test.csv", delimiter=",", skiprows=1)[::40]
    det = kpca.KernelPCAAnomalyDetector(4, kernel="rbf", standardize=True, nystrom=64, random_state=3).fit(train)
    det.export(tmp_path / "model.kpca")
    x32 = test.astype(np.float32)
    np.savetxt(tmp_path / "vectors.csv", x32, delimiter=",", fmt="%.9g")
    run = subprocess.run(
        [str(root / "scripts" / "firmware-run.sh"), str(tmp_path / "model.kpca"), str(tmp_path / "vectors.csv"), str(tmp_path / "fw")],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    fw = np.loadtxt(tmp_path / "fw" / "firmware_scores.csv", delimiter=",", dtype=np.float32, ndmin=2)
    device = kpca.DeviceModel.from_bytes((tmp_path / "model.kpca").read_bytes())
    np.testing.assert_array_equal(fw[:, :4], device.project(x32))
    np.testing.assert_array_equal(fw[:, 4], device.anomaly_score(x32))


def test_the_anomaly_detector_matches_pyod_kpca():
    """PyOD's KPCA (full kernel PCA, its decision scores are the
    feature-space reconstruction error) on the fixture of
    scripts/make_pyod_fixture.py: the same training scores, test scores,
    threshold and labels."""
    fx = json.loads((FIXTURES / "pyod_kpca_circles.json").read_text())
    p = fx["params"]
    det = kpca.KernelPCAAnomalyDetector(
        p["n_components"], kernel=p["kernel"], gamma=p["gamma"], contamination=p["contamination"]
    ).fit(np.array(fx["x_train"]))
    want = np.array(fx["decision_scores"])
    scale = np.max(np.abs(want))
    assert np.max(np.abs(det.decision_scores_ - want)) / scale <= HOST_TOL
    test_want = np.array(fx["test_decision_function"])
    got = -det.score_samples(np.array(fx["x_test"]))
    assert np.max(np.abs(got - test_want)) / np.max(np.abs(test_want)) <= HOST_TOL
    assert abs(det.threshold_ - fx["threshold"]) / fx["threshold"] <= HOST_TOL
    np.testing.assert_array_equal(det.labels_, fx["labels"])


def test_nystrom_landmark_methods_pick_the_rows_the_rust_fit_picks():
    """kmeans++ and rpcholesky choose other landmarks than a uniform draw, the
    same for the same random_state, and approach the full fit as m grows."""
    train, test = circles()
    full = kpca.KernelPCA(2, kernel="rbf", gamma=2.0).fit(train)
    for method in ("kmeans++", "rpcholesky"):
        a = kpca.KernelPCA(2, kernel="rbf", gamma=2.0, nystrom=40, landmark_method=method, random_state=3).fit(train)
        b = kpca.KernelPCA(2, kernel="rbf", gamma=2.0, nystrom=40, landmark_method=method, random_state=3).fit(train)
        u = kpca.KernelPCA(2, kernel="rbf", gamma=2.0, nystrom=40, random_state=3).fit(train)
        np.testing.assert_array_equal(a.transform(test), b.transform(test))
        assert not np.array_equal(a.transform(test), u.transform(test)), method
        big = kpca.KernelPCA(2, kernel="rbf", gamma=2.0, nystrom=140, landmark_method=method).fit(train)
        err = np.max(np.abs(big.eigenvalues_ - full.eigenvalues_) / full.eigenvalues_)
        assert err < 0.05, (method, err)
    with pytest.raises(ValueError, match="landmark_method"):
        kpca.KernelPCA(2, kernel="rbf", nystrom=40, landmark_method="farthest").fit(train)
