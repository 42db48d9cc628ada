"""kpca: kernel PCA for microcontroller firmware, from Python.

- :class:`KernelPCA`: scikit-learn's ``KernelPCA`` on the Rust fit (full or
  Nyström), with ``fit_inverse_transform`` and export to the device.
- :class:`KernelPCAAnomalyDetector`: scikit-learn's outlier-detector API
  (``score_samples``, ``decision_function``, ``predict`` as +1 / -1) and
  PyOD's names (``decision_scores_``, ``threshold_``, ``labels_``).
- :class:`DeviceModel`: a model blob run by the ``no_std`` core's f32 code,
  bit for bit what the firmware computes.
- :class:`KpcaHint`: the warning category of the fit's hints about a likely
  useless model (those ``kpca fit`` prints).

``__version__`` is the Rust crates' version (the extension's).
"""

from ._kpca import (
    FORMAT_VERSION,
    MAX_COMPONENTS,
    MAX_DIM,
    MAX_FULL_POINTS,
    MAX_POINTS,
    MAX_TARGETS,
    DeviceModel,
    __version__,
)
from ._estimators import KernelPCA, KernelPCAAnomalyDetector, KpcaHint

__all__ = [
    "KernelPCA",
    "KernelPCAAnomalyDetector",
    "DeviceModel",
    "KpcaHint",
    "MAX_COMPONENTS",
    "MAX_DIM",
    "MAX_POINTS",
    "MAX_FULL_POINTS",
    "MAX_TARGETS",
    "FORMAT_VERSION",
    "__version__",
]
