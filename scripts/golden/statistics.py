"""Golden vectors for hisrag's statistics (src/statistics/), from the reference implementations the
field uses, run on Debian's packages (apt-get install python3-scipy python3-statsmodels
python3-sklearn):

  /usr/bin/python3 scripts/golden/statistics.py

writes test/golden/statsmodels-multipletests.json, scipy-pearson.json, sklearn-cohen-kappa.json,
statsmodels-cluster-se.json and scipy-sign-flip.json, each naming the library and version.
"""
import json
import platform
import sys

import numpy as np
import scipy
import scipy.stats
import sklearn
import statsmodels
import statsmodels.api as sm
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.multitest import multipletests

OUT = "test/golden"


def write(name, payload):
    payload = {**payload, "script": "scripts/golden/statistics.py", "python": platform.python_version()}
    with open(f"{OUT}/{name}", "w") as f:
        json.dump(payload, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {OUT}/{name}", file=sys.stderr)


def rng_values(seed, n, kind):
    rng = np.random.default_rng(seed)
    if kind == "uniform":
        return rng.uniform(0, 0.2, n)
    raise ValueError(kind)


def multiple_tests():
    families = [
        [0.01, 0.04, 0.03, 0.005],
        [0.02, 0.02, 0.02, 0.5, 0.9],
        [0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216],
        [0.3, 0.6, 0.9],
        [0.049],
        [0.04, 0.01, 0.04, 0.01, 0.6, 0.6],
        rng_values(1, 20, "uniform").round(6).tolist(),
    ]
    cases = []
    for p in families:
        holm = multipletests(p, alpha=0.05, method="holm")[1]
        bh = multipletests(p, alpha=0.05, method="fdr_bh")[1]
        cases.append({"p": p, "holm": holm.tolist(), "bh": bh.tolist()})
    write("statsmodels-multipletests.json", {
        "metric": "holmAdjust and benjaminiHochbergAdjust (src/statistics/multipleComparisons.ts)",
        "reference": "statsmodels.stats.multitest.multipletests(p, method='holm' | 'fdr_bh')[1]",
        "version": f"statsmodels {statsmodels.__version__}",
        "cases": cases,
    })


def pearson():
    rng = np.random.default_rng(7)
    datasets = [
        ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [2, 1, 4, 3, 7, 5, 6, 9, 8, 12, 10, 11]),
        ([1, 2, 3, 4], [1, 3, 2, 4]),
        ([0, 0, 1, 1, 1, 0, 1, 0, 1, 1], [0, 1, 1, 1, 0, 0, 1, 0, 1, 1]),
        ([10, 20, 30, 40, 50, 60], [60, 45, 50, 20, 30, 10]),
    ]
    x = rng.normal(size=40)
    datasets.append((x.round(6).tolist(), (0.6 * x + rng.normal(size=40)).round(6).tolist()))
    x = rng.integers(0, 101, 200)
    datasets.append((x.tolist(), np.clip(x + rng.integers(-30, 31, 200), 0, 100).tolist()))
    cases = []
    for xs, ys in datasets:
        res = scipy.stats.pearsonr(xs, ys)
        case = {"x": xs, "y": ys, "r": float(res.statistic)}
        for level in (0.95, 0.9):
            ci = res.confidence_interval(confidence_level=level)
            case[f"ci{int(level * 100)}"] = [float(ci.low), float(ci.high)]
        cases.append(case)
    write("scipy-pearson.json", {
        "metric": "pearson and pearsonWithInterval without clusters (Fisher z) in src/statistics/agreement.ts",
        "reference": "scipy.stats.pearsonr(x, y).statistic and .confidence_interval(confidence_level) (Fisher transformation, SE 1/√(n − 3))",
        "version": f"scipy {scipy.__version__}",
        "cases": cases,
    })


def kappa():
    rng = np.random.default_rng(11)
    a = rng.integers(0, 3, 60)
    b = np.where(rng.uniform(size=60) < 0.7, a, rng.integers(0, 3, 60))
    datasets = [
        ([1] * 20 + [1] * 5 + [0] * 10 + [0] * 15, [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15, "50-item 2×2 table"),
        ([0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0], "Krippendorff (2011) section A data"),
        (["a", "a", "b", "b", "d", "c", "c", "c", "e", "d", "d", "a"], ["b", "a", "b", "b", "b", "c", "c", "c", "e", "d", "d", "d"], "Krippendorff (2011) section B data, string labels"),
        (a.tolist(), b.tolist(), "three categories, 60 units"),
        ([0, 0, 1, 1], [1, 1, 0, 0], "complete disagreement"),
    ]
    cases = [{"a": x, "b": y, "note": note, "kappa": float(cohen_kappa_score(x, y))} for x, y, note in datasets]
    write("sklearn-cohen-kappa.json", {
        "metric": "cohensKappa(a, b).value (src/statistics/agreement.ts)",
        "reference": "sklearn.metrics.cohen_kappa_score(a, b) (unweighted)",
        "version": f"scikit-learn {sklearn.__version__}",
        "cases": cases,
    })


def cluster_se():
    rng = np.random.default_rng(3)
    datasets = []
    # Unequal clusters with a cluster effect (questions of a volume alike).
    sizes = [1, 1, 2, 3, 5, 8, 13, 20, 4, 6, 1, 9]
    effects = rng.normal(0, 10, len(sizes))
    values, groups = [], []
    for c, (m, e) in enumerate(zip(sizes, effects)):
        for _ in range(m):
            values.append(round(float(50 + e + rng.normal(0, 5)), 4))
            groups.append(f"vol{c}")
    datasets.append((values, groups, "12 volumes of 1–20 questions, volume effect"))
    # Paired differences in {-100, 0, 100} (0/1 accuracy), 3 clusters (the demo-samples design).
    d = rng.choice([-100, 0, 0, 100, 100], 30).tolist()
    datasets.append((d, [f"c{i % 3}" for i in range(30)], "0/1 differences ×100, 3 clusters"))
    # Every question its own cluster: the HC1-like per-question sandwich.
    v = rng.integers(0, 101, 25).tolist()
    datasets.append((v, [f"q{i}" for i in range(25)], "each question its own cluster"))
    # 60 clusters of 6 alike questions.
    v, g = [], []
    for c in range(60):
        base = rng.uniform(0, 100)
        for q in range(6):
            v.append(round(float(base + rng.normal(0, 3)), 4))
            g.append(f"v{c}")
    datasets.append((v, g, "60 volumes × 6 alike questions"))
    cases = []
    for y, groups, note in datasets:
        codes = np.unique(np.array(groups), return_inverse=True)[1]
        X = np.ones((len(y), 1))
        clustered = sm.OLS(np.array(y, dtype=float), X).fit(cov_type="cluster", cov_kwds={"groups": codes})
        plain = sm.OLS(np.array(y, dtype=float), X).fit()
        cases.append({"values": y, "clusters": groups, "note": note, "mean": float(clustered.params[0]), "clusterSe": float(clustered.bse[0]), "plainSe": float(plain.bse[0])})
    write("statsmodels-cluster-se.json", {
        "metric": "designEffect(values, clusters) in src/statistics/clusters.ts: clusteredVariance and iidVariance of the mean",
        "reference": "statsmodels OLS(y, ones).fit(cov_type='cluster', cov_kwds={'groups': g}).bse[0] (clusterSe) and OLS(y, ones).fit().bse[0] (plainSe)",
        "version": f"statsmodels {statsmodels.__version__}",
        "correction": "statsmodels' default for cov_type='cluster' (use_correction=True) multiplies the sandwich by G/(G − 1) · (N − 1)/(N − K); with the mean alone K = 1, so the factor is G/(G − 1), the C/(C − 1) of hisrag's clusteredVariance (Miller 2024, Appendix A). clusterSe² = clusteredVariance; plainSe² = s²/n = iidVariance",
        "cases": cases,
    })


def sign_flip():
    datasets = [
        ([1, 2, 3, 1, 2, 3], ["a", "a", "b", "b", "c", "c"], "3 clusters all positive"),
        ([5, -2, 3, 8, 1, -4, 6, 2, 7], None, "9 questions, each its own cluster"),
        ([20, 0, 40, 0, 0, 60, 20, 0, 0, 40, 20, 0], None, "12 questions, differences ≥ 0 with zeros"),
        ([3, -1, 2, 4, -2, 5, 1, 0, 2, 6, -3, 2, 1, 4, 3, 2], [f"v{i // 2}" for i in range(16)], "8 clusters of 2"),
        ([1, -1, 2, -2, 3, -3], None, "differences that cancel"),
    ]
    cases = []
    for diffs, clusters, note in datasets:
        if clusters is None:
            sums = np.array(diffs, dtype=float)
        else:
            keys = list(dict.fromkeys(clusters))
            sums = np.array([sum(d for d, c in zip(diffs, clusters) if c == k) for k in keys], dtype=float)
        res = scipy.stats.permutation_test((sums, np.zeros_like(sums)), lambda x, y: np.sum(x - y), permutation_type="samples", n_resamples=np.inf, alternative="two-sided")
        cases.append({"diffs": diffs, "clusters": clusters, "note": note, "p": float(res.pvalue), "patterns": int(2 ** len(sums))})
    write("scipy-sign-flip.json", {
        "metric": "signFlipTest(diffs, clusters) (src/statistics/pairedTest.ts), exact (≤ 13 clusters)",
        "reference": "scipy.stats.permutation_test((S, 0), sum of differences, permutation_type='samples', n_resamples=inf, two-sided) on the cluster sums S: every sign pattern of the clusters",
        "version": f"scipy {scipy.__version__}",
        "cases": cases,
    })


if __name__ == "__main__":
    multiple_tests()
    pearson()
    kappa()
    cluster_se()
    sign_flip()
