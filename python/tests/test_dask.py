"""The fit of dask arrays and dataframes on a LocalCluster of two worker
processes (loopback only): every pass runs on the partitions, and the model
is the single-process fit of the same rows (signs included) to 1e-10;
transform and the anomaly scores of a dask array are dask arrays computed on
the workers."""

import pickle

import numpy as np
import pytest

import kpca

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

# The dask fit against the in-memory fit: merged sums round differently.
DASK_REL_TOL = 1e-10


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None, silence_logs=40,
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def blobs(n=6000, d=5, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 3, size=(3, d))
    return centres[rng.integers(0, 3, size=n)] + rng.normal(size=(n, d)) + 10.0


def rel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


@pytest.mark.parametrize(
    "kw",
    [
        dict(nystrom=120, random_state=3),
        dict(nystrom=90, random_state=4, standardize=True, kernel="laplacian"),
        dict(nystrom=60, random_state=5, landmark_method="rpcholesky"),
        dict(landmarks=list(range(7, 6000, 97))),
    ],
)
def test_a_dask_fit_is_the_single_process_fit(client, kw):
    X = blobs()
    Xd = da.from_array(X, chunks=(700, 5))
    kw = {"kernel": "rbf", **kw}
    ref = kpca.KernelPCA(n_components=4, **kw).fit(X)
    est = kpca.KernelPCA(n_components=4, **kw).fit(Xd)
    assert rel(est.eigenvalues_, ref.eigenvalues_) <= DASK_REL_TOL
    Y = est.transform(Xd)
    assert isinstance(Y, da.Array)
    assert rel(Y.compute(), ref.transform(X)) <= DASK_REL_TOL
    assert rel(est.transform(X[:50]), ref.transform(X[:50])) <= DASK_REL_TOL
    # Both workers ran passes of the fit (each keeps the landmarks it built).
    cached = client.run(lambda: len(__import__("kpca")._dask._CACHE))
    assert len(cached) == 2 and all(v > 0 for v in cached.values()), cached


def test_the_detector_on_dask_sets_the_single_process_threshold(client):
    X = blobs(seed=1)
    Xd = da.from_array(X, chunks=(1000, 5))
    ref = kpca.KernelPCAAnomalyDetector(n_components=4, nystrom=100, random_state=0).fit(X)
    est = kpca.KernelPCAAnomalyDetector(n_components=4, nystrom=100, random_state=0).fit(Xd)
    assert abs(est.threshold_ - ref.threshold_) <= DASK_REL_TOL * ref.threshold_
    assert isinstance(est.decision_scores_, da.Array)
    assert rel(est.decision_scores_.compute(), ref.decision_scores_) <= DASK_REL_TOL
    assert np.array_equal(est.labels_.compute(), ref.labels_)
    outliers = np.full((5, 5), 40.0)
    assert np.array_equal(est.predict(outliers), ref.predict(outliers))
    assert (est.predict(da.from_array(outliers)).compute() == -1).all()
    # The device model of a dask fit scores as the host does.
    dev = est.device_model()
    assert np.allclose(dev.anomaly_score(X[:20].astype(np.float32)), ref.score_samples(X[:20]) * -1,
                       rtol=1e-4, atol=1e-5)


def test_a_dask_dataframe_is_fitted_as_its_rows(client):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X = blobs(n=3000, d=3, seed=2)
    frame = dd.from_pandas(pd.DataFrame(X, columns=["a", "b", "c"]), npartitions=4)
    ref = kpca.KernelPCA(n_components=3, kernel="rbf", nystrom=50, random_state=1).fit(X)
    est = kpca.KernelPCA(n_components=3, kernel="rbf", nystrom=50, random_state=1).fit(frame)
    assert rel(est.transform(frame).compute(), ref.transform(X)) <= DASK_REL_TOL


def test_a_dask_fit_pickles_and_refits_from_its_parts(client):
    X = blobs(n=2000, seed=3)
    est = kpca.KernelPCA(n_components=3, kernel="rbf", nystrom=40).fit(da.from_array(X, chunks=500))
    again = pickle.loads(pickle.dumps(est))
    assert np.array_equal(again.transform(X[:30]), est.transform(X[:30]))


def test_what_a_dask_fit_cannot_do_is_refused(client):
    X = blobs(n=1000)
    Xd = da.from_array(X, chunks=300)
    with pytest.raises(ValueError, match="Nystrom"):
        kpca.KernelPCA(n_components=2, kernel="rbf").fit(Xd)
    with pytest.raises(ValueError, match="n_components"):
        kpca.KernelPCA(n_components=None, kernel="rbf", nystrom=20).fit(Xd)
    bad = X.copy()
    bad[650, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite|not finite"):
        kpca.KernelPCA(n_components=2, kernel="rbf", nystrom=20).fit(da.from_array(bad, chunks=300))
    with pytest.raises(ValueError, match="landmarks"):
        kpca.KernelPCA(n_components=2, kernel="rbf", nystrom=2000).fit(Xd)


def test_a_model_fitted_in_memory_maps_over_dask_partitions(client):
    X = blobs(n=1500, seed=4)
    Xd = da.from_array(X, chunks=400)
    est = kpca.KernelPCA(n_components=3, kernel="rbf").fit(X)
    assert np.array_equal(est.transform(Xd).compute(), est.transform(X))
    det = kpca.KernelPCAAnomalyDetector(n_components=3).fit(X)
    assert np.array_equal(det.score_samples(Xd).compute(), det.score_samples(X))
