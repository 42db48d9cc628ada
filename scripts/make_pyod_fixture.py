#!/usr/bin/env python3
"""Writes testdata/fixtures/pyod_kpca_circles.json: PyOD's KPCA detector
(pyod.models.kpca.KPCA, full kernel PCA, rbf) on make_circles, its training
decision scores, test decision function, threshold and labels, for the
Python package's parity test (python/tests). PyOD is needed only here:
pip install pyod==3.6.7 (its numba and matplotlib are not test requirements).
"""

import json
from pathlib import Path

import numpy as np
import pyod
from pyod.models.kpca import KPCA
from sklearn.datasets import make_circles

OUT = Path(__file__).resolve().parents[1] / "testdata" / "fixtures" / "pyod_kpca_circles.json"

X, _ = make_circles(240, factor=0.3, noise=0.05, random_state=3)
train, test = X[:180], X[180:]
test = np.vstack([test, [[1.5, 1.5], [0.0, 0.0], [-1.8, 0.2]]])
params = dict(n_components=5, kernel="rbf", gamma=4.0, contamination=0.05)
det = KPCA(**params).fit(train)
fixture = {
    "description": "make_circles(240, factor=0.3, noise=0.05, random_state=3): rows 0..179 train, "
    "180..239 test plus 3 off-pattern points; pyod.models.kpca.KPCA(n_components=5, kernel='rbf', "
    f"gamma=4.0, contamination=0.05), pyod {pyod.__version__}",
    "params": params,
    "x_train": train.tolist(),
    "x_test": test.tolist(),
    "decision_scores": det.decision_scores_.tolist(),
    "test_decision_function": det.decision_function(test).tolist(),
    "threshold": float(det.threshold_),
    "labels": det.labels_.tolist(),
}
OUT.write_text(json.dumps(fixture, indent=1) + "\n")
print(f"wrote {OUT}: threshold {det.threshold_:.6f}, {int(det.labels_.sum())} training outliers")
