"""The scikit-learn estimators over the Rust fit (``kpca._kpca``)."""

import os
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, OutlierMixin, TransformerMixin
from sklearn.exceptions import NotFittedError
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils.validation import check_array, check_is_fitted

from . import _dask, _kpca

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _validate_data
except ImportError:  # pragma: no cover - older scikit-learn

    def _validate_data(estimator, X, reset=True, **kwargs):
        return estimator._validate_data(X, reset=reset, **kwargs)


# The kernel and landmark-method names are the Rust tables' (kpca-core's
# KernelId, kpca-fit's LandmarkMethod), in their order.
_KERNELS = tuple(_kpca.KERNELS)
_LANDMARK_METHODS = tuple(_kpca.LANDMARK_METHODS)
_SOLVERS = {"auto": "auto", "dense": "dense", "arpack": "iterative", "randomized": "iterative"}


class KpcaHint(UserWarning):
    """A hint of ``kpca fit`` about a fitted model that is likely useless
    (column scales far apart without ``standardize=True``, kept variance below
    5%, kept eigenvalues all within 1% of each other), warned by ``fit``. Not
    an error: ``warnings.simplefilter("ignore", kpca.KpcaHint)`` silences it."""


def _check_device_limits(n_components, d, nystrom, landmarks):
    """The device model's limits (the command line's checks before the fit):
    at most ``kpca.MAX_COMPONENTS`` components, ``kpca.MAX_DIM`` features and
    ``kpca.MAX_POINTS`` landmarks."""
    if isinstance(n_components, Integral) and n_components > _kpca.MAX_COMPONENTS:
        raise ValueError(
            f"n_components={n_components}: the device model holds at most {_kpca.MAX_COMPONENTS} "
            f"components (kpca.MAX_COMPONENTS); use n_components <= {_kpca.MAX_COMPONENTS}"
        )
    if d > _kpca.MAX_DIM:
        raise ValueError(
            f"X has {d} features: the device model takes at most {_kpca.MAX_DIM} input features (kpca.MAX_DIM)"
        )
    m = len(landmarks) if landmarks is not None else nystrom
    if m is not None and m > _kpca.MAX_POINTS:
        what = f"{len(landmarks)} landmarks" if landmarks is not None else f"nystrom={nystrom}"
        raise ValueError(
            f"{what}: the device model stores at most {_kpca.MAX_POINTS} landmarks (kpca.MAX_POINTS)"
        )


def _check_kernel(kernel):
    if callable(kernel) or kernel == "precomputed":
        raise ValueError(
            "kpca fits the kernels of the device model only: kernel must be one of "
            f"{', '.join(map(repr, _KERNELS))} (callable and 'precomputed' kernels are not supported)"
        )
    if kernel not in _KERNELS:
        raise ValueError(f"kernel {kernel!r} is not supported: use one of {', '.join(map(repr, _KERNELS))}")


def _seed(random_state):
    if random_state is None:
        return 0
    if isinstance(random_state, Integral):
        return int(random_state) & 0xFFFFFFFFFFFFFFFF
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    raise ValueError(f"random_state {random_state!r}: use None, an int or a numpy RandomState")


def _dense64(X):
    """A C-contiguous float64 array of validated input (sparse input is
    densified: the fit and the device work on dense rows)."""
    if hasattr(X, "toarray"):
        X = X.toarray()
    return np.ascontiguousarray(X, dtype=np.float64)


class _FitMixin:
    """The shared fit of both estimators: validation, then the Rust fit."""

    # Whether fit refuses what the device model cannot hold (the detector's
    # purpose is the device model; KernelPCA is also a host transformer).
    _device_limits = False

    def _fit_rust(self, X, n_components, false_alarm_rate=0.01, pad=False):
        """Validates ``X`` and runs the Rust fit. With ``pad`` (KernelPCA) or
        ``n_components=None`` the fit keeps only the components with a
        positive eigenvalue (``self._fitted`` is None when there is none) and
        the caller pads with zero columns, as scikit-learn does."""
        _check_kernel(self.kernel)
        X = _validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2, accept_sparse=True)
        X64 = _dense64(X)
        if self._device_limits:
            _check_device_limits(n_components, X64.shape[1], self.nystrom, self.landmarks)
        n = X64.shape[0]
        clip = n_components is None
        if clip:  # scikit-learn's None: every component with a positive eigenvalue
            k = n - 1 if self.nystrom is None else min(n - 1, int(self.nystrom))
            if self.landmarks is not None:
                k = min(n - 1, len(self.landmarks))
        else:
            k = n_components
        if not isinstance(k, Integral) or k < 1:
            raise ValueError(f"n_components must be a positive integer or None, got {n_components!r}")
        solver = getattr(self, "eigen_solver", "auto")
        if solver not in _SOLVERS:
            raise ValueError(f"eigen_solver must be one of {sorted(_SOLVERS)}, got {solver!r}")
        self._fit_args = dict(
            self._spec(k, false_alarm_rate),
            solver=_SOLVERS[solver],
            tol=float(getattr(self, "tol", 0) or 0) or None,
            max_iter=getattr(self, "max_iter", None),
            clip_components=clip or pad,
        )
        self._fit_args["n_components"] = min(int(k), n - 1)
        self._fit_X = X64
        self._fitted = self._rust_fit()
        if self._fitted is not None:
            for hint in self._fitted.hints(X64):
                warnings.warn(hint, KpcaHint, stacklevel=3)
        return X64

    def _spec(self, k, false_alarm_rate):
        """The fit's arguments shared by the in-memory and the dask fit,
        checked (degree, landmarks, landmark_method)."""
        if not (isinstance(self.degree, Real) and self.degree >= 1 and float(self.degree).is_integer()):
            raise ValueError(f"degree must be a whole number >= 1 (the device's integer power), got {self.degree!r}")
        if self.landmarks is not None and any(int(i) < 0 for i in self.landmarks):
            raise ValueError("landmarks must be non-negative training row indices")
        if self.landmark_method not in _LANDMARK_METHODS:
            raise ValueError(
                f"landmark_method must be {', '.join(map(repr, _LANDMARK_METHODS))}, got {self.landmark_method!r}"
            )
        return dict(
            n_components=int(k),
            kernel=self.kernel,
            gamma=self.gamma,
            degree=int(self.degree),
            coef0=float(self.coef0),
            standardize=bool(self.standardize),
            nystrom=self.nystrom,
            landmarks=None if self.landmarks is None else [int(i) for i in self.landmarks],
            seed=_seed(self.random_state),
            landmark_method=self.landmark_method,
            false_alarm_rate=false_alarm_rate,
        )

    def _fit_dask(self, X, n_components, false_alarm_rate=0.01):
        """The Nyström fit of a dask array or dataframe, each pass on its
        partitions (``kpca._dask``). The training rows' scores are not kept:
        what needs them is a lazy dask array over ``X``."""
        _check_kernel(self.kernel)
        if self.nystrom is None and self.landmarks is None:
            raise ValueError(
                "a dask array is fitted with Nystrom landmarks: set nystrom=m (a full fit holds "
                "the n x n kernel matrix of every row at once)"
            )
        if n_components is None or not isinstance(n_components, Integral) or n_components < 1:
            raise ValueError(f"with a dask array n_components must be a positive integer, got {n_components!r}")
        spec = self._spec(n_components, false_alarm_rate)
        X = _dask.as_array(X)
        if self._device_limits:
            _check_device_limits(n_components, X.shape[1], self.nystrom, self.landmarks)
        self._fitted, self._dask_token, self._dask_parts = _dask.fit(X, spec)
        self._dask_spec = spec
        self.n_features_in_ = X.shape[1]
        return X

    def _dask_rows(self, X, what):
        """The transform or anomaly scores of a dask ``X``, lazily."""
        check_is_fitted(self, "_fitted")
        if getattr(self, "_dask_parts", None) is None:
            # A model fitted in memory maps over the partitions with itself.
            X = _dask.as_array(X)
            k = self._fitted.n_components
            f = self.transform if what == "transform" else self.score_samples
            sign = 1.0 if what == "transform" else -1.0
            return X.map_blocks(
                lambda b: sign * np.asarray(f(b)),
                dtype=np.float64,
                chunks=(X.chunks[0], (k,)) if what == "transform" else (X.chunks[0],),
                drop_axis=None if what == "transform" else 1,
            )
        return _dask.map_rows(X, self._dask_token, self._dask_spec, self._dask_parts, what,
                              self._fitted.n_components)

    def _rust_fit(self):
        # None when clipping leaves no component with a positive eigenvalue.
        return _kpca.fit(self._fit_X, **self._fit_args)

    def _after_fit(self):
        """What follows the Rust fit (the pre-image map); none here."""

    def __getstate__(self):
        # The Rust fit is not serialised: a pickle holds its data and
        # arguments, and unpickling refits (the fit is deterministic).
        state = self.__dict__.copy()
        state.pop("_fitted", None)
        state.pop("_pre", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if "_pre_args" in state:
            self._pre = _kpca.fit_precomputed(*self._pre_args)
            self._fitted = None
        elif state.get("_dask_parts") is not None:
            self._fitted = _dask.refit(self._dask_spec, self._dask_parts)
        elif "_fit_X" in state:
            self._fitted = self._rust_fit()
            self._after_fit()

    def to_bytes(self):
        """The device model blob (what ``kpca fit`` writes; load it with
        :meth:`DeviceModel.from_bytes`, ``kpca_model_from_bytes`` or
        ``ModelRef::from_bytes``)."""
        check_is_fitted(self, "_fitted")
        if getattr(self, "_pre", None) is not None:
            raise ValueError(
                "a model of a precomputed or callable kernel has no device model: the device "
                f"evaluates its own kernels ({', '.join(map(repr, _KERNELS))}) on stored points"
            )
        if self._fitted is None:
            raise ValueError("no component has a positive eigenvalue: there is no model to export")
        k = self._fitted.n_components
        if k > _kpca.MAX_COMPONENTS:
            raise ValueError(
                f"the device model holds at most {_kpca.MAX_COMPONENTS} components "
                f"(kpca.MAX_COMPONENTS); this model has {k}: refit with n_components <= "
                f"{_kpca.MAX_COMPONENTS} to export it"
            )
        return self._fitted.to_bytes()

    def export(self, path, format="blob", name="kpca_model"):
        """Writes the device model: ``format='blob'`` (the file ``path``),
        ``'c'`` (``name.h`` and ``name.c`` in the directory ``path``) or
        ``'rust'`` (``name.rs`` in ``path``). Returns the paths written."""
        check_is_fitted(self, "_fitted")
        if format == "blob":
            blob = self.to_bytes()
            with open(path, "wb") as f:
                f.write(blob)
            return [path]
        self.to_bytes()  # the device limits, with their message
        os.makedirs(path, exist_ok=True)
        written = []
        for file_name, text in self._fitted.export_source(format, name):
            out = os.path.join(path, file_name)
            with open(out, "w") as f:
                f.write(text)
            written.append(out)
        return written

    def device_model(self):
        """The exported model as a :class:`DeviceModel` (the firmware's f32 code)."""
        return _kpca.DeviceModel.from_bytes(self.to_bytes())


class KernelPCA(_FitMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Kernel PCA with scikit-learn's parameters and fitted attributes, on the
    Rust fit. Additions: ``nystrom`` (m landmarks, chosen by
    ``landmark_method``: 'uniform', 'kmeans++' or 'rpcholesky', from
    ``random_state``), ``landmarks`` (training row indices), ``standardize``. Not supported: callable and
    'precomputed' kernels (sparse input is densified); ``tol``, ``max_iter``,
    ``iterated_power``, ``remove_zero_eig``, ``copy_X`` and ``n_jobs`` are
    accepted for compatibility (components with a zero eigenvalue are never
    kept)."""

    def __init__(
        self,
        n_components=None,
        *,
        kernel="linear",
        gamma=None,
        degree=3,
        coef0=1,
        kernel_params=None,
        alpha=1.0,
        fit_inverse_transform=False,
        eigen_solver="auto",
        tol=0,
        max_iter=None,
        iterated_power="auto",
        remove_zero_eig=False,
        random_state=None,
        copy_X=True,
        n_jobs=None,
        nystrom=None,
        landmarks=None,
        standardize=False,
        landmark_method="uniform",
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.alpha = alpha
        self.fit_inverse_transform = fit_inverse_transform
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.iterated_power = iterated_power
        self.remove_zero_eig = remove_zero_eig
        self.random_state = random_state
        self.copy_X = copy_X
        self.n_jobs = n_jobs
        self.nystrom = nystrom
        self.landmarks = landmarks
        self.standardize = standardize
        self.landmark_method = landmark_method

    def fit(self, X, y=None):
        """Fits the model on the rows of ``X``."""
        if self.fit_inverse_transform and not (isinstance(self.alpha, Real) and self.alpha > 0):
            raise ValueError(f"alpha must be > 0, got {self.alpha!r}")
        if self.kernel == "precomputed" and self.fit_inverse_transform:
            raise ValueError("Cannot fit_inverse_transform with a precomputed kernel.")
        self._pre = None
        self._dask_parts = None
        if _dask.is_dask(X):
            if self.fit_inverse_transform:
                raise ValueError("fit_inverse_transform is not available with a dask array")
            X = self._fit_dask(X, self.n_components)
            f = self._fitted
            self._k_pos = self._n_features_out = f.n_components
            self.eigenvalues_ = np.asarray(f.eigenvalues)
            self.explained_variance_ratio_ = np.asarray(f.explained_variance_ratio)
            self.gamma_ = f.gamma if f.gamma is not None else 1.0 / X.shape[1]
            return self
        if self.kernel == "precomputed" or callable(self.kernel):
            return self._fit_kernel_matrix(X)
        X64 = self._fit_rust(X, self.n_components, pad=True)
        f = self._fitted
        self._set_components(f, X64.shape[0])
        self.gamma_ = f.gamma if f is not None and f.gamma is not None else 1.0 / X64.shape[1]
        self.X_fit_ = X64.copy() if self.copy_X else X64
        self._after_fit()
        return self

    def _kernel_rows(self, X, Y=None):
        """The kernel matrix of a precomputed or callable kernel."""
        if self.kernel == "precomputed":
            return _dense64(X)
        return np.ascontiguousarray(
            pairwise_kernels(X, self.X_fit_ if Y is None else Y, metric=self.kernel, filter_params=True,
                             **(self.kernel_params or {})),
            dtype=np.float64,
        )

    def _fit_kernel_matrix(self, X):
        """Fits on a kernel matrix: given (precomputed) or computed by the callable kernel."""
        if callable(self.kernel) and self.fit_inverse_transform:
            raise ValueError("fit_inverse_transform needs one of the built-in kernels, not a callable")
        X = _validate_data(self, X, dtype=[np.float64, np.float32], accept_sparse=True)
        X64 = _dense64(X)
        self.X_fit_ = X64.copy() if self.copy_X else X64
        K = self._kernel_rows(X64, X64)
        n = K.shape[0]
        k = n if self.n_components is None else int(self.n_components)
        if k < 1:
            raise ValueError(f"n_components must be a positive integer or None, got {self.n_components!r}")
        self._pre_args = (K, min(k, n), self.eigen_solver == "randomized")
        self._pre = _kpca.fit_precomputed(*self._pre_args)
        self._fitted = None
        self._set_components(self._pre, n)
        self.gamma_ = self.gamma if self.gamma is not None else 1.0 / X64.shape[1]
        return self

    def _set_components(self, f, n):
        """eigenvalues_, explained_variance_ratio_ (not for a precomputed or
        callable kernel: the fit of a kernel matrix does not report the
        total variance), eigenvectors_ and the training scores from the fit
        `f` (None: no positive eigenvalue), with zero columns up to
        n_components unless zero eigenvalues are removed."""
        self._k_pos = 0 if f is None else f.n_components
        keep_zeros = self.n_components is not None and not self.remove_zero_eig
        k_out = min(int(self.n_components), n) if keep_zeros else self._k_pos
        self.eigenvalues_ = np.zeros(k_out)
        ratio = np.zeros(k_out)
        self._train_scores = np.zeros((n, k_out))
        self.eigenvectors_ = np.zeros((n, k_out))
        if f is not None:
            self.eigenvalues_[: self._k_pos] = f.eigenvalues
            self._train_scores[:, : self._k_pos] = f.train_scores
            self.eigenvectors_[:, : self._k_pos] = np.asarray(f.train_scores) / np.sqrt(f.eigenvalues)
            if hasattr(f, "explained_variance_ratio"):
                ratio[: self._k_pos] = f.explained_variance_ratio
        if not isinstance(f, _kpca.Precomputed):
            self.explained_variance_ratio_ = ratio
        elif hasattr(self, "explained_variance_ratio_"):
            del self.explained_variance_ratio_
        self._n_features_out = k_out

    def _after_fit(self):
        if self.fit_inverse_transform and self._fitted is not None:
            self._fitted.fit_inverse_transform(float(self.alpha))

    def _padded(self, scores):
        """Rust scores (rows x positive components) with zero columns up to n_components."""
        out = np.zeros((scores.shape[0], self._n_features_out))
        out[:, : self._k_pos] = scores
        return out

    def fit_transform(self, X, y=None, **params):
        """Fits and returns the training rows' scores (a dask array for a
        dask ``X``)."""
        self.fit(X)
        if _dask.is_dask(X):
            return self.transform(X)
        return self._train_scores.copy()

    def transform(self, X):
        """The scores of the rows of ``X`` (rows x n_components; zero columns
        for components whose eigenvalue is zero, as scikit-learn)."""
        check_is_fitted(self, "_fitted")
        if _dask.is_dask(X):
            return self._dask_rows(X, "transform")
        X = _validate_data(self, X, dtype=[np.float64, np.float32], reset=False, accept_sparse=True)
        if getattr(self, "_pre", None) is not None:
            return self._padded(np.asarray(self._pre.transform(self._kernel_rows(_dense64(X)))))
        if self._fitted is None:
            return np.zeros((X.shape[0], self._n_features_out))
        return self._padded(np.asarray(self._fitted.transform(_dense64(X))))

    def inverse_transform(self, X):
        """The learned pre-image of score rows ``X`` (scikit-learn's map)."""
        if not self.fit_inverse_transform:
            raise NotFittedError(
                "The fit_inverse_transform parameter was not set to True when "
                "instantiating and hence the inverse transform is not available."
            )
        check_is_fitted(self, "_fitted")
        Y = check_array(X, dtype=np.float64)
        if Y.shape[1] != self._n_features_out:
            raise ValueError(f"X must be 2-D with {self._n_features_out} columns, got shape {Y.shape}")
        if self._fitted is None:
            raise ValueError("no component has a positive eigenvalue: there is no pre-image map")
        # Zero-eigenvalue columns are zero for every training row: the map ignores them.
        Y = np.ascontiguousarray(Y[:, : self._k_pos])
        return np.asarray(self._fitted.inverse_transform(Y))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        # Cross-validation slices a precomputed kernel matrix on both axes.
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags


class KernelPCAAnomalyDetector(_FitMixin, OutlierMixin, BaseEstimator):
    """Anomaly detection by the feature-space reconstruction error of kernel
    PCA (the firmware's anomaly score), with scikit-learn's outlier-detector
    API: ``score_samples`` (higher is more normal), ``decision_function``
    (negative for outliers), ``predict`` (+1 inlier, -1 outlier) and
    ``offset_``; and PyOD's ``decision_scores_`` (the training rows' anomaly
    scores), ``threshold_`` and ``labels_`` (1 outlier, 0 inlier).
    ``contamination``: the share of training rows above the threshold, in
    (0, 0.5] as PyOD's ('auto': 0.01, the command's default false-alarm
    rate). Fitted: ``eigenvalues_`` (scikit-learn's KernelPCA's) and
    ``explained_variance_ratio_`` (each eigenvalue over the sum of the
    positive ones). ``fit`` refuses what the device model cannot hold
    (``n_components`` over ``kpca.MAX_COMPONENTS``, more than ``kpca.MAX_DIM``
    features, ``nystrom`` over ``kpca.MAX_POINTS``)."""

    _device_limits = True

    def __init__(
        self,
        n_components=4,
        *,
        kernel="rbf",
        gamma=None,
        degree=3,
        coef0=1,
        kernel_params=None,
        contamination="auto",
        nystrom=None,
        landmarks=None,
        standardize=False,
        random_state=None,
        landmark_method="uniform",
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.contamination = contamination
        self.nystrom = nystrom
        self.landmarks = landmarks
        self.standardize = standardize
        self.random_state = random_state
        self.landmark_method = landmark_method

    def fit(self, X, y=None):
        """Fits on the (normal) rows of ``X`` and sets the threshold."""
        rate = 0.01 if self.contamination == "auto" else self.contamination
        if not (isinstance(rate, Real) and 0 < rate <= 0.5):
            raise ValueError(f"contamination must be 'auto' or in (0, 0.5] (as PyOD's), got {self.contamination!r}")
        self._dask_parts = None
        if _dask.is_dask(X):
            X = self._fit_dask(X, self.n_components, false_alarm_rate=float(rate))
        else:
            self._fit_rust(X, self.n_components, false_alarm_rate=float(rate))
        f = self._fitted
        if f is None:
            raise ValueError("no component has a positive eigenvalue: the data has no variance to model")
        if f.n_components > _kpca.MAX_COMPONENTS:
            raise ValueError(
                f"n_components=None kept {f.n_components} components (every positive eigenvalue): the "
                f"device model holds at most {_kpca.MAX_COMPONENTS} (kpca.MAX_COMPONENTS); use "
                f"n_components <= {_kpca.MAX_COMPONENTS}"
            )
        self.eigenvalues_ = np.asarray(f.eigenvalues)
        self.explained_variance_ratio_ = np.asarray(f.explained_variance_ratio)
        self.threshold_ = f.threshold
        self.offset_ = -self.threshold_
        if self._dask_parts is not None:
            # Lazy over the training partitions: the fit does not keep them.
            self.decision_scores_ = self._dask_rows(X, "anomaly")
        else:
            self.decision_scores_ = np.asarray(f.train_anomaly_scores)
        self.labels_ = (self.decision_scores_ > self.threshold_).astype(int)
        return self

    def score_samples(self, X):
        """Minus the anomaly score of each row (higher is more normal; a
        dask array for a dask ``X``)."""
        check_is_fitted(self, "_fitted")
        if _dask.is_dask(X):
            return -self._dask_rows(X, "anomaly")
        X = _validate_data(self, X, dtype=[np.float64, np.float32], reset=False, accept_sparse=True)
        return -np.asarray(self._fitted.anomaly_score(_dense64(X)))

    def decision_function(self, X):
        """``score_samples(X) - offset_``: negative for outliers."""
        return self.score_samples(X) - self.offset_

    def predict(self, X):
        """+1 for inliers, -1 for outliers (score above the threshold)."""
        return np.where(self.decision_function(X) < 0, -1, 1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
