"""Fits on dask arrays and dataframes: the streamed Nyström fit of the Rust
crate (``kpca_fit::stream``) with every pass over the data run on the
partitions, on the cluster's workers.

1. survey: each partition's row count, column moments and checks;
2. the landmark rows, chosen from the merged survey and gathered by index;
3. the Nyström sums of each partition;
4. each partition's score summary (scikit-learn's sign rule, the threshold
   from the upper tail of the anomaly scores).

Each pass returns one small float64 array per partition; the arrays merge in
a tree, in partition order, on the workers, and the client takes the root
(its last merge and the m x m solve run on the client). The result is the
single-process fit of the same rows up to the rounding of the merged sums
(tests: 1e-10). The landmarks and the solution a worker needs are rebuilt
there from the merged parts once per fit and kept for its later tasks.
"""

import uuid

import numpy as np

from . import _kpca

# Per process: (kind, token) -> the landmarks or the solution of one fit.
_CACHE = {}
_CACHE_FITS = 4


def is_dask(X):
    """Whether ``X`` is a dask collection (array or dataframe)."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "to_delayed")


def as_array(X):
    """A dask array of float64 rows, one chunk across the columns."""
    import dask.array as da

    if not isinstance(X, da.Array):
        if hasattr(X, "to_dask_array"):
            X = X.to_dask_array(lengths=True)
        else:
            raise TypeError(f"expected a dask array or dataframe, got {type(X).__name__}")
    if X.ndim != 2:
        raise ValueError(f"expected a 2-D dask array (rows, features), got {X.ndim} dimensions")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    return X.astype(np.float64).rechunk({1: -1})


def _block(b):
    return np.ascontiguousarray(b, dtype=np.float64)


def _cached(kind, token, build):
    key = (kind, token)
    if key not in _CACHE:
        while len(_CACHE) >= 2 * _CACHE_FITS:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = build()
    return _CACHE[key]


def _landmarks(token, survey, rows, spec):
    return _cached("landmarks", token, lambda: _kpca.stream_landmarks(survey, rows, spec))


def _solution(token, survey, rows, spec, sums):
    return _cached("solution", token, lambda: _landmarks(token, survey, rows, spec).solve(sums))


def _survey(block):
    return _kpca.stream_survey(_block(block))


def _sums(block, token, survey, rows, spec):
    return _landmarks(token, survey, rows, spec).sums(_block(block))


def _merge_sums(a, b, token, survey, rows, spec):
    return _landmarks(token, survey, rows, spec).merge_sums(a, b)


def _merge_surveys(a, b):
    return _kpca.stream_survey_merge(a, b)


def _merge_scores(a, b):
    return _kpca.Solution.merge_scores(a, b)


def _scores(block, token, survey, rows, spec, sums):
    return _solution(token, survey, rows, spec, sums).score(_block(block))


def _tree(parts, merge, *args):
    """Merges the delayed ``parts`` pairwise, keeping their order."""
    from dask import delayed

    while len(parts) > 1:
        parts = [
            delayed(merge)(parts[i], parts[i + 1], *args) if i + 1 < len(parts) else parts[i]
            for i in range(0, len(parts), 2)
        ]
    return parts[0]


def fit(X, spec):
    """Fits on the dask array ``X`` with the arguments ``spec`` of
    ``_kpca.stream_landmarks``; returns the fitted model and the merged
    parts it was solved from (what :func:`refit` needs)."""
    import dask
    from dask import delayed

    X = as_array(X)
    blocks = list(X.to_delayed().ravel())
    survey = _tree([delayed(_survey)(b) for b in blocks], _merge_surveys).compute()
    needed = _kpca.stream_rows_needed(survey, spec)
    rows = np.ascontiguousarray(X[np.asarray(needed, dtype=np.int64)].compute(), dtype=np.float64)
    token = uuid.uuid4().hex
    survey_d, rows_d = delayed(survey), delayed(rows)
    sums = _tree(
        [delayed(_sums)(b, token, survey_d, rows_d, spec) for b in blocks],
        _merge_sums, token, survey_d, rows_d, spec,
    ).compute()
    sums_d = delayed(sums)
    summary = _tree(
        [delayed(_scores)(b, token, survey_d, rows_d, spec, sums_d) for b in blocks],
        _merge_scores,
    )
    (summary,) = dask.compute(summary)
    parts = (survey, rows, sums, summary)
    return refit(spec, parts), token, parts


def refit(spec, parts):
    """The model again from the merged parts of :func:`fit` (deterministic)."""
    survey, rows, sums, summary = parts
    return _kpca.stream_landmarks(survey, rows, spec).solve(sums).finish(summary)


def _apply(block, token, spec, parts, what):
    fitted = _cached("fitted", token, lambda: refit(spec, parts))
    b = _block(block)
    return np.asarray(fitted.transform(b) if what == "transform" else fitted.anomaly_score(b))


def map_rows(X, token, spec, parts, what, k):
    """The transform (``what='transform'``, rows x k) or the anomaly scores
    (rows) of the dask array ``X``, as a dask array computed on the workers."""
    import dask.array as da
    from dask import delayed

    X = as_array(X)
    parts_d = delayed(parts)
    out = []
    for b, rows in zip(X.to_delayed().ravel(), X.chunks[0]):
        shape = (rows, k) if what == "transform" else (rows,)
        task = delayed(_apply)(b, token, spec, parts_d, what)
        out.append(da.from_delayed(task, shape=shape, dtype=np.float64))
    return da.concatenate(out, axis=0)
