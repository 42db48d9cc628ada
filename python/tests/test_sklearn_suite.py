"""scikit-learn's own KernelPCA tests (sklearn/decomposition/tests/
test_kernel_pca.py of the installed scikit-learn) with ``KernelPCA`` taken
from kpca: the file is read from the installed package at test time (not
copied into this repository), its one import of KernelPCA replaced, and run
by pytest in a subprocess. Every item passes except those that need a
feature docs/PYTHON.md states as out of scope (none today)."""

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import sklearn

# Items that need a feature stated out of scope in docs/PYTHON.md: none today
# (precomputed and callable kernels are fitted on the host, without a device
# model). An entry here is "item name": "reason".
OUT_OF_SCOPE = {}

ORIGINAL_IMPORT = "from sklearn.decomposition import PCA, KernelPCA\n"
OUR_IMPORT = "from sklearn.decomposition import PCA\nfrom kpca import KernelPCA\n"
# scikit-learn's conftest provides this fixture (its default seed is 42).
CONFTEST = "import pytest\n\n\n@pytest.fixture\ndef global_random_seed():\n    return 42\n"


def run_suite(tmp_path):
    source = Path(sklearn.__file__).parent / "decomposition" / "tests" / "test_kernel_pca.py"
    text = source.read_text()
    assert text.count(ORIGINAL_IMPORT) == 1, "scikit-learn's test file imports KernelPCA differently"
    (tmp_path / "test_kernel_pca_with_kpca.py").write_text(text.replace(ORIGINAL_IMPORT, OUR_IMPORT))
    (tmp_path / "conftest.py").write_text(CONFTEST)
    report = tmp_path / "report.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        kinds = {child.tag for child in case}
        outcome = next((k for k in ("failure", "error", "skipped") if k in kinds), "passed")
        outcomes[case.get("name")] = outcome
    return outcomes


def test_scikit_learns_kernel_pca_tests_pass_with_kpca(tmp_path):
    outcomes = run_suite(tmp_path)
    assert len(outcomes) >= 30, outcomes
    for name, outcome in sorted(outcomes.items()):
        print(f"{outcome:8} {name}" + (f"  (out of scope: {OUT_OF_SCOPE[name]})" if name in OUT_OF_SCOPE else ""))
    broken = {n: o for n, o in outcomes.items() if o in ("failure", "error") and n not in OUT_OF_SCOPE}
    assert not broken, f"scikit-learn tests failing with kpca: {broken}"
    skipped = {n for n, o in outcomes.items() if o == "skipped"}
    assert not skipped, f"skipped (a test requirement missing?): {skipped}"
