"""Golden vectors for Krippendorff's nominal α (src/statistics/agreement.ts) on data with missing
labels and several raters, from the `krippendorff` package (github.com/pln-fing-udelar/fast-krippendorff,
PyPI `krippendorff`), run from its source (not packaged by Debian):

  GOLDEN_REF=/tmp/golden-ref /usr/bin/python3 scripts/golden/krippendorff_package.py > test/golden/krippendorff-package.json

where $GOLDEN_REF/fastkripp is a `git archive` of that repository. The paper's own worked examples
are in test/golden/krippendorff-2011.json; this script also scores them with the package as a check.
"""
import json
import os
import platform
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.environ.get("GOLDEN_REF", "/tmp/golden-ref"), "fastkripp"))
import krippendorff  # noqa: E402

COMMIT = "b1eb616 (v0.8.2 + 6 commits)"


def as_matrix(rows):
    return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)


def main():
    rng = np.random.default_rng(5)
    cases = []
    for raters, units, categories, missing, agree, note in [
        (2, 30, 2, 0.0, 0.8, "two raters, binary, no missing labels"),
        (3, 40, 4, 0.2, 0.6, "three raters, four categories, 20% missing"),
        (5, 25, 3, 0.4, 0.7, "five raters, three categories, 40% missing (some units unpairable)"),
        (4, 60, 2, 0.1, 0.9, "four raters, binary verdicts, 10% missing"),
    ]:
        truth = rng.integers(0, categories, units)
        data = np.where(rng.uniform(size=(raters, units)) < agree, truth, rng.integers(0, categories, (raters, units))).astype(float)
        data[rng.uniform(size=data.shape) < missing] = np.nan
        alpha = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        rows = [[None if np.isnan(v) else int(v) for v in row] for row in data]
        cases.append({"raters": rows, "note": note, "alpha": float(alpha)})
    paper = json.load(open("test/golden/krippendorff-2011.json"))
    check = {}
    for example in paper["examples"]:
        rows = list(example["observers"].values())
        labels = sorted({v for row in rows for v in row if v is not None}, key=str)
        coded = [[None if v is None else labels.index(v) for v in row] for row in rows]
        check[example["section"]] = round(float(krippendorff.alpha(reliability_data=as_matrix(coded), level_of_measurement="nominal")), 3)
    json.dump({
        "metric": "krippendorffAlpha(units).value, nominal (src/statistics/agreement.ts); raters[r][u] is rater r's label of unit u, null when missing",
        "reference": "krippendorff.alpha(reliability_data, level_of_measurement='nominal')",
        "version": f"krippendorff (fast-krippendorff) at {COMMIT}, run from source with numpy {np.__version__}",
        "paperExamplesByThePackage": check,
        "script": "scripts/golden/krippendorff_package.py",
        "python": platform.python_version(),
        "cases": cases,
    }, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
