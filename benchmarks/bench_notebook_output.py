"""notebook-output: what hiding secrets costs on RunCode's largest output.

What: ``tools.redact.redact`` — run on everything RunCode, Inspect and NotebookRead show the
model — over 1 MB of text (RunCode keeps at most 1,000,000 characters of output), for three
texts: a DataFrame's repr (the usual case), random printable text, and a worst case for the
key-name patterns (``password: `` repeated). Also ``pycode.analyze`` of the notebook case
table with the size checks (``pycode/sizes.py``), per snippet.

Repetitions: 3, median; quick: 100 KB, 1 repetition.
"""

from __future__ import annotations

import random
import string
import sys

from _common import REPO, median_s

ABOUT = "secret hiding over 1 MB of RunCode output (frame repr, random, worst case); analysis"


def _texts(size: int) -> dict[str, str]:
    rng = random.Random(1)
    rows = "\n".join(f"{i:>7}  {rng.random():.6f}  Paris  {rng.randint(0, 10**6):>8}"
                     for i in range(size // 30))
    alphabet = string.ascii_letters + string.digits + " \n:=-_'{},"
    return {"frame_repr": rows[:size],
            "random": "".join(rng.choice(alphabet) for _ in range(size)),
            "worst_case": ("password: " * (size // 10 + 1))[:size]}


def run(quick: bool) -> dict:
    from jupyter_agenttools.tools.redact import redact

    size, reps = (100_000, 1) if quick else (1_000_000, 3)
    out: dict = {"reps": f"{reps}, median; {size:,} characters each"}
    for name, text in _texts(size).items():
        seconds = median_s(lambda text=text: redact(text), reps)
        out[f"{name}_s"] = round(seconds, 4)
        out[f"{name}_mb_per_s"] = round(size / 1e6 / seconds, 2)
    sys.path.insert(0, f"{REPO}/tests/notebook")
    from nb_namespace import make_namespace
    from pycode_cases import CASES

    from jupyter_agenttools.pycode import analyze
    from jupyter_agenttools.pycode.values import NamespaceNames

    namespace = make_namespace()
    codes = [code for code, _category in CASES]
    total = median_s(lambda: [analyze(c, NamespaceNames(namespace)) for c in codes], reps)
    out["analysis_snippets"] = len(codes)
    out["analysis_ms_per_snippet"] = round(total / len(codes) * 1000, 3)
    return out


def summary(f: dict) -> str:
    return (f"redact 1 MB-class output: frame repr {f['frame_repr_s']:.3f} s, random "
            f"{f['random_s']:.3f} s, worst case {f['worst_case_s']:.3f} s; analysis "
            f"{f['analysis_ms_per_snippet']:.2f} ms per snippet ({f['analysis_snippets']})")
