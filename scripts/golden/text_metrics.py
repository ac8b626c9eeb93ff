"""Golden vectors for character BLEU-4 and ROUGE-L on Chinese (test/golden/text-metrics.json).

References, run from their own source (neither is packaged by Debian, and PyPI is not reachable here):
  - sacrebleu (github.com/mjpost/sacrebleu, the commit named in the output): `BLEU(tokenize=...,
    effective_order=True).sentence_score(hyp, [ref])`, i.e. `sacrebleu.sentence_bleu`'s defaults
    (exp smoothing, effective order), with the `char` tokenizer (every non-space character a token:
    hisrag's definition) and, for comparison, the `zh` tokenizer.
  - rouge-score (github.com/google-research/google-research, rouge/): `RougeScorer(['rougeL'],
    tokenizer=...)` with a character tokenizer (its default tokenizer keeps only [a-z0-9] and so
    scores every Chinese text 0), scored from rouge_scorer.py's `_score_lcs` and scoring.py's
    `fmeasure` (transcribed verbatim into $GOLDEN_REF/rouge for the run; not committed).

Run:  GOLDEN_REF=/tmp/golden-ref python3 scripts/golden/text_metrics.py > test/golden/text-metrics.json
where $GOLDEN_REF/sacrebleu is a checkout of sacrebleu (`git archive` of the repository root, with
a version.py holding its tag) and $GOLDEN_REF/rouge holds rouge_scorer.py and scoring.py.
"""
import json
import os
import platform
import sys
import types

REF = os.environ.get("GOLDEN_REF", "/tmp/golden-ref")
sys.path.insert(0, REF)

# sacrebleu imports these for downloading and parsing test sets and printing tables only; stand-ins when absent.
for name in ("portalocker", "colorama", "lxml", "lxml.etree"):
    try:
        __import__(name)
    except ImportError:
        sys.modules[name] = types.ModuleType(name)
try:
    import tabulate  # noqa: F401
except ImportError:
    stub = types.ModuleType("tabulate")
    stub.tabulate = lambda *a, **k: ""
    sys.modules["tabulate"] = stub

import sacrebleu  # noqa: E402
from sacrebleu.metrics import BLEU  # noqa: E402
from rouge import rouge_scorer  # noqa: E402


class CharTokenizer:
    """Every non-whitespace character a token (as sacrebleu's `char` tokenizer, then split())."""

    def tokenize(self, text):
        return list("".join(text.split()))


# (hypothesis, reference, note): Chinese answers of the kind ProHist-Bench's T1–T3 references hold.
CASES = [
    ("王安石变法始于熙宁二年。", "王安石变法始于宋神宗熙宁二年。", "hypothesis a subsequence of the reference"),
    ("熙宁变法由王安石主持，意在富国强兵。", "王安石主持熙宁变法，其目的在于富国强兵。", "reordered clauses"),
    ("科举制度始于隋朝，完善于唐朝。", "科举制度创立于隋，至唐代逐渐完备。", "paraphrase"),
    ("秦始皇", "秦始皇统一六国，建立中央集权制度。", "short hypothesis: brevity penalty"),
    ("统一", "秦始皇统一六国。", "two characters: effective order 2"),
    ("汉", "秦始皇统一六国。", "one character, no match"),
    ("唐太宗贞观之治", "唐太宗贞观之治", "identical"),
    ("安史之乱 爆发于 天宝十四载", "安史之乱爆发于天宝十四载", "ASCII spaces are not tokens"),
    ("安史之乱\u3000爆发于天宝十四载", "安史之乱爆发于天宝十四载。", "ideographic space U+3000 is whitespace"),
    ("明朝明朝明朝明朝", "明朝灭亡于一六四四年", "repeated n-grams: clipped counts"),
    ("崇祯十七年（1644年）明亡。", "明朝亡于1644年，即崇祯十七年。", "digits and full-width brackets"),
    ("𡊮世凯任临时大总统。", "𡊮世凯就任中华民国临时大总统。", "CJK Extension B character (one code point, two UTF-16 units)"),
    ("𣈆𣈆𡊮", "𣈆𡊮𡊮", "Extension B characters only"),
    ("AI 与史学研究", "史学研究与AI方法", "Latin letters beside Chinese"),
    ("", "秦始皇统一六国。", "empty hypothesis"),
    ("这是一个与参考答案毫不相干的回答", "秦始皇统一六国。", "no overlap"),
]


def cjk_only(text):
    """True when every non-space character is a BMP CJK ideograph or CJK/full-width punctuation,
    the text on which sacrebleu's `zh` tokenizer and `char` tokenizer agree."""
    for ch in text:
        if ch.isspace():
            continue
        o = ord(ch)
        if not (0x4E00 <= o <= 0x9FA5 or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF):
            return False
    return True


def main():
    char_bleu = BLEU(tokenize="char", effective_order=True)
    zh_bleu = BLEU(tokenize="zh", effective_order=True)
    scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=CharTokenizer())
    cases = []
    for hyp, ref, note in CASES:
        rl = scorer.score(ref, hyp)["rougeL"]
        cases.append({
            "hypothesis": hyp,
            "reference": ref,
            "note": note,
            "bleuChar": char_bleu.sentence_score(hyp, [ref]).score,
            "bleuZh": zh_bleu.sentence_score(hyp, [ref]).score,
            "zhAgreesWithChar": cjk_only(hyp + ref),
            "rougeL": {"precision": rl.precision * 100, "recall": rl.recall * 100, "f1": rl.fmeasure * 100},
        })
    out = {
        "metric": "character BLEU-4 (src/scoring/textMetrics/bleu.ts) and character ROUGE-L (rougeL.ts), 0–100",
        "references": {
            "bleu": {
                "implementation": "sacrebleu BLEU(tokenize='char', effective_order=True).sentence_score — sentence_bleu's defaults (smooth_method='exp')",
                "version": sacrebleu.__version__,
                "source": "github.com/mjpost/sacrebleu at f615c72 (v2.6.0 + 1 commit), run from source",
                "alsoRecorded": "bleuZh: the same with tokenize='zh' — equal to bleuChar where zhAgreesWithChar (BMP ideographs and CJK punctuation only); zh keeps runs of Latin letters and digits as one token and, through its '\\u20000' range literal (read by Python as U+2000 then '0'), does not treat Extension B ideographs as Chinese",
            },
            "rougeL": {
                "implementation": "rouge-score RougeScorer(['rougeL'], tokenizer=<one token per non-space character>) → _score_lcs; ×100",
                "source": "github.com/google-research/google-research rouge/rouge_scorer.py at 61ce9f0ca76025dac5b671c0631e443a9975a8a3 (the rouge-score package's code), scoring.py's fmeasure",
            },
        },
        "script": "scripts/golden/text_metrics.py",
        "python": platform.python_version(),
        "cases": cases,
    }
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    print()


if __name__ == "__main__":
    main()
