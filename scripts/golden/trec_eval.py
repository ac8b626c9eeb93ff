"""Golden vectors for recall, precision, AP, MRR and nDCG at k (src/scoring/retrievalMetrics.ts),
from trec_eval itself on a hand-made qrels/run pair (test/golden/trec/qrels.txt, run.txt).

trec_eval is not packaged by Debian: build it from github.com/usnistgov/trec_eval (tag v10.0,
`make`, no dependencies) and pass the binary:

  python3 scripts/golden/trec_eval.py /path/to/trec_eval > test/golden/trec-eval.json

For each k it runs `trec_eval -q -M k -m recip_rank -m P.k -m recall.k -m map_cut.k -m ndcg_cut.k`:
`-M k` keeps the first k documents of each ranked list, so recip_rank is the reciprocal rank within
k; map_cut.k divides by every relevant document of the query (not min(k, R)); ndcg_cut.k is binary
gain over log2(rank + 1) against the ideal list cut at k (m_ndcg_cut.c: gain / log2(i + 2), i from 0).
"""
import json
import subprocess
import sys
from collections import OrderedDict

TREC = "test/golden/trec"
MEASURES = {"recip_rank": "mrr", "P": "precision", "recall": "recall", "map_cut": "ap", "ndcg_cut": "ndcg"}


def read_qrels(path):
    gold = OrderedDict()
    for line in open(path):
        q, _, doc, rel = line.split()
        gold.setdefault(q, [])
        if int(rel) > 0:
            gold[q].append(doc)
    return gold


def read_run(path):
    ranked = OrderedDict()
    for line in open(path):
        q, _, doc, rank, score, _tag = line.split()
        ranked.setdefault(q, []).append((float(score), doc))
    return {q: [d for _, d in sorted(docs, key=lambda sd: -sd[0])] for q, docs in ranked.items()}


def run_trec_eval(binary, k):
    args = [binary, "-q", "-M", str(k), "-m", "recip_rank", "-m", f"P.{k}", "-m", f"recall.{k}", "-m", f"map_cut.{k}", "-m", f"ndcg_cut.{k}", f"{TREC}/qrels.txt", f"{TREC}/run.txt"]
    out = {}
    for line in subprocess.run(args, check=True, capture_output=True, text=True).stdout.splitlines():
        measure, query, value = line.split()
        if query == "all":
            continue
        name = MEASURES[measure.rsplit("_", 1)[0] if measure != "recip_rank" else measure]
        out.setdefault(query, {})[name] = float(value)
    return out


def main():
    binary = sys.argv[1]
    version = subprocess.run([binary, "-v"], capture_output=True, text=True).stdout.strip() or subprocess.run([binary, "-v"], capture_output=True, text=True).stderr.strip()
    gold = read_qrels(f"{TREC}/qrels.txt")
    ranked = read_run(f"{TREC}/run.txt")
    cases = []
    for k in (1, 3, 5, 10):
        values = run_trec_eval(binary, k)
        for q in ranked:
            cases.append({"query": q, "k": k, "ranked": ranked[q], "gold": gold[q], **values[q]})
    json.dump({
        "metric": "retrievalMetrics(ranked, gold, k): recall, precision, ap, mrr, ndcg",
        "reference": "trec_eval (github.com/usnistgov/trec_eval, tag v10.0, built from source)",
        "version": version,
        "printedDigits": 4,
        "qrels": f"{TREC}/qrels.txt",
        "run": f"{TREC}/run.txt",
        "script": "scripts/golden/trec_eval.py",
        "note": "precision: trec_eval's P.k divides by k even when the list is shorter; hisrag divides by the list's length then (retrievalMetrics.ts), so the test compares precision only where the list holds at least k documents",
        "cases": cases,
    }, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
