#!/usr/bin/env python3
"""Golden vectors for hisrag's span metrics (src/scoring/spanMetrics.ts) from Chroma's definition.

Reference: brandonstarxel/chunking_evaluation, chunking_evaluation/evaluation_framework/base_evaluation.py,
BaseEvaluation._scores_from_dataset_and_retrievals and its helpers (sum_of_ranges, union_ranges,
intersect_two_ranges, difference), read at commit d451fc4cf56e417b755994b4ca5212fd5057c0d2
(2025-03-14). The package cannot be pip-installed here (no PyPI), so this file carries out the
same arithmetic, step for step, written from a reading of that source:

  for each retrieved chunk (start, end, corpus) of the question's corpus, for each reference:
      inter = (max(starts), min(ends)) when max <= min
      unused = difference(unused, inter); numerator = union_ranges([inter] + numerator)
  numerator_value = sum_of_ranges(numerator)
  recall    = numerator_value / sum of reference lengths
  precision = numerator_value / sum of the lengths of ALL retrieved chunks (not merged)
  iou       = numerator_value / (precision denominator + sum_of_ranges(unused))

Inputs are shaped as hisrag has them: a passage has spans {doc, start, end}; each span is one
chunk metadata {start_index, end_index, corpus_id=doc}. Chroma's question has one corpus; where a
case's gold lies in several documents (`generalised: true` in the vectors) a chunk is intersected
with the references of its own document only (what Chroma's `corpus_id` test does when every
reference is in one corpus). Gold references within a document never overlap here (hisrag merges
gold first; on disjoint references the two agree). Offsets are Python str offsets: code points.

Run: python3 scripts/golden/chroma_span_metrics.py > test/golden/chroma-span-metrics.json
"""

import json
import random
import sys

REFERENCE = {
    "repository": "https://github.com/brandonstarxel/chunking_evaluation",
    "file": "chunking_evaluation/evaluation_framework/base_evaluation.py",
    "function": "BaseEvaluation._scores_from_dataset_and_retrievals",
    "commit": "d451fc4cf56e417b755994b4ca5212fd5057c0d2",
}


# --- the reference's helpers, same arithmetic ------------------------------------------------

def sum_of_ranges(ranges):
    return sum(end - start for start, end in ranges)


def union_ranges(ranges):
    ordered = sorted(ranges, key=lambda r: r[0])
    merged = [ordered[0]]
    for start, end in ordered[1:]:
        last_start, last_end = merged[-1]
        if start <= last_end:
            merged[-1] = (last_start, max(last_end, end))
        else:
            merged.append((start, end))
    return merged


def intersect_two_ranges(a, b):
    start, end = max(a[0], b[0]), min(a[1], b[1])
    return (start, end) if start <= end else None


def difference(ranges, target):
    out = []
    t_start, t_end = target
    for start, end in ranges:
        if end < t_start or start > t_end:
            out.append((start, end))
        elif start < t_start and end > t_end:
            out.append((start, t_start))
            out.append((t_end, end))
        elif start < t_start:
            out.append((start, t_start))
        elif end > t_end:
            out.append((t_end, end))
    return out


def numerator_and_unused(references, metadatas, corpus_id):
    """The loop of _scores_from_dataset_and_retrievals for a question of `corpus_id`."""
    numerator_sets = []
    unused_highlights = [(r["start"], r["end"]) for r in references]
    for chunk in metadatas:
        if chunk["doc"] != corpus_id:
            continue
        for ref in references:
            intersection = intersect_two_ranges((chunk["start"], chunk["end"]), (ref["start"], ref["end"]))
            if intersection is not None:
                unused_highlights = difference(unused_highlights, intersection)
                numerator_sets = union_ranges([intersection] + numerator_sets)
    numerator_value = sum_of_ranges(numerator_sets) if numerator_sets else 0
    return numerator_value, unused_highlights


def chroma_scores(references, metadatas):
    """references: [{doc, start, end}]; metadatas: [{doc, start, end}] (every retrieved chunk, in rank order).

    Gold in one document: exactly the reference. Gold in several (`generalised`): the loop per
    document, its numerators and unused gold summed (they are disjoint across documents).
    """
    numerator_value, unused = 0, []
    for corpus_id in sorted({r["doc"] for r in references}):
        mine = [r for r in references if r["doc"] == corpus_id]
        value, left = numerator_and_unused(mine, metadatas, corpus_id)
        numerator_value += value
        unused += left
    recall_denominator = sum_of_ranges([(r["start"], r["end"]) for r in references])
    precision_denominator = sum_of_ranges([(m["start"], m["end"]) for m in metadatas])
    iou_denominator = precision_denominator + sum_of_ranges(unused)
    return {
        "charRecall": numerator_value / recall_denominator,
        "charPrecision": numerator_value / precision_denominator,
        "charIoU": numerator_value / iou_denominator,
    }


# --- cases -----------------------------------------------------------------------------------

def disjoint_ranges(rng, length, count, min_len=1, max_len=30):
    """Up to `count` non-overlapping, non-touching ranges in [0, length)."""
    out = []
    for _ in range(count * 4):
        if len(out) == count:
            break
        size = rng.randint(min_len, max_len)
        start = rng.randint(0, max(0, length - size))
        end = min(length, start + size)
        if all(end < s or start > e for s, e in out):
            out.append((start, end))
    return sorted(out)


def random_case(rng, index):
    docs = {f"d{i}": rng.randint(40, 200) for i in range(rng.randint(1, 3))}
    names = sorted(docs)
    gold_docs = names[: rng.randint(1, len(names))] if rng.random() < 0.3 else [names[0]]
    gold = [{"doc": d, "start": s, "end": e} for d in gold_docs for s, e in disjoint_ranges(rng, docs[d], rng.randint(1, 3))]
    passages = []
    for _ in range(rng.randint(1, 8)):
        spans = []
        for _ in range(1 if rng.random() < 0.85 else 2):
            doc = rng.choice(names)
            if gold and rng.random() < 0.6:
                # near some gold, so that intersections are common, overlapping chunks too
                g = rng.choice(gold)
                doc = g["doc"]
                start = min(docs[doc] - 1, max(0, g["start"] + rng.randint(-20, 15)))
            else:
                start = rng.randint(0, docs[doc] - 1)
            end = min(docs[doc], start + rng.randint(1, 40))
            spans.append({"doc": doc, "start": start, "end": end})
        passages.append({"spans": spans})
    if rng.random() < 0.15:
        passages.append(json.loads(json.dumps(rng.choice(passages))))  # the same range retrieved twice
    metadatas = [span for p in passages for span in p["spans"]]
    return {
        "name": f"random-{index}",
        "generalised": len(gold_docs) > 1,
        "passages": passages,
        "gold": gold,
        "expected": chroma_scores(gold, metadatas),
    }


def fixed_windows_case():
    """The issue's example: fixed 16-character windows overlapping by 8 over text without whitespace."""
    length, size, step = 96, 16, 8
    windows = [(s, min(length, s + size)) for s in range(0, length - size + step, step) if s < length]
    retrieved = [windows[i] for i in (1, 2, 3, 6)]
    gold = [{"doc": "w", "start": 12, "end": 30}, {"doc": "w", "start": 50, "end": 58}]
    metadatas = [{"doc": "w", "start": s, "end": e} for s, e in retrieved]
    return {
        "name": "fixed-16-overlap-8",
        "generalised": False,
        "document": {"doc": "w", "length": length, "maxSize": size, "overlap": size - step},
        "windows": [{"doc": "w", "start": s, "end": e} for s, e in windows],
        "passages": [{"spans": [m]} for m in metadatas],
        "gold": gold,
        "expected": chroma_scores(gold, metadatas),
    }


def extension_b_case():
    """Gold written by Python after CJK Extension B characters: offsets are code points."""
    text = "𠀀𠀁甲乙。\n𠀂丙丁戊己。\n𠀃庚辛。\n壬癸子丑寅卯。\n辰巳午未。"
    sentence = "壬癸子丑寅卯。"
    start = text.find(sentence)
    return {
        "name": "extension-b-gold",
        "text": text,
        "sentence": sentence,
        "gold": [{"doc": "b", "start": start, "end": start + len(sentence)}],
        "utf16Start": len(text[:start].encode("utf-16-le")) // 2,
    }


def main():
    rng = random.Random(20261207)
    cases = [random_case(rng, i) for i in range(60)]
    out = {
        "reference": REFERENCE,
        "produced": (
            "python3 scripts/golden/chroma_span_metrics.py (Python %d.%d): the reference function's arithmetic, "
            "carried out step for step from its source (the package is not installable here); offsets in code points; "
            "every retrieved range is one chunk metadata; gold references within a document never overlap; a case with "
            "generalised=true has gold in several documents: the reference's loop run per document (its corpus_id), "
            "numerators and unused gold summed, precision's denominator over every retrieved range"
            % sys.version_info[:2]
        ),
        "cases": cases,
        "fixedWindows": fixed_windows_case(),
        "extensionB": extension_b_case(),
    }
    # One case a line: the file stays readable and its diffs small.
    lines = ["{"]
    for key in ("reference", "produced", "fixedWindows", "extensionB"):
        lines.append(f" {json.dumps(key)}: {json.dumps(out[key], ensure_ascii=False)},")
    lines.append(' "cases": [')
    lines.append(",\n".join("  " + json.dumps(case, ensure_ascii=False) for case in out["cases"]))
    lines.append(" ]")
    lines.append("}")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
