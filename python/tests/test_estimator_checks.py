"""scikit-learn's estimator checks (``parametrize_with_checks``) for both
estimators, with their defaults and with the device-sized configurations
the README and docs/PYTHON.md use. No check is expected to fail."""

from sklearn.utils.estimator_checks import parametrize_with_checks

import kpca


@parametrize_with_checks(
    [
        kpca.KernelPCA(),
        kpca.KernelPCA(2, kernel="rbf", fit_inverse_transform=True),
        kpca.KernelPCAAnomalyDetector(),
        kpca.KernelPCAAnomalyDetector(2, kernel="poly", standardize=True),
    ]
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)
