"""Read-only is not harmless: code that changes nothing may still hang the kernel in one C call
(where RunCode's interrupt never arrives) or exhaust its memory. The analysis computes the
sizes it can (literals, int variables, lengths of the notebook's own data) and asks when one
is over a budget (``pycode/sizes.py``); its everyday twins stay allowed."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from nb_namespace import make_namespace

from jupyter_agenttools.builtin.notebook import NotebookHost, RunCode
from jupyter_agenttools.permission.check import check
from jupyter_agenttools.pycode import sizes

# (code, a word the reason contains): each is read-only by every other measure
HEAVY = [
    # iterations over a huge range, in C (sum, max, sorted, list) or in a comprehension
    ("sum(range(10**18))", "items"), ("max(range(10**18))", "items"),
    ("list(range(10**12))", "items"), ("sorted(range(10**9))", "items"),
    ("[v for v in range(10**12)]", "items"), ("any(v < 0 for v in range(10**18))", "items"),
    ("sum(range(huge))", "items"), ("list(zip(range(10**9), lst))", "items"),
    ("sum(range(-10**12, 0))", "items"), ("set(range(0, 10**12, 2))", "items"),
    ("list(enumerate(range(10**10)))", "items"), ("sum(map(abs, range(10**10)))", "items"),
    # combinatorics materialised
    ("list(itertools.product(range(10**6), repeat=5))", "items"),
    ("list(itertools.product(lst, repeat=40))", "items"),
    ("list(itertools.permutations(range(20)))", "items"),
    ("sum(1 for c in itertools.combinations(range(10**4), 4))", "items"),
    ("list(itertools.repeat(0, 10**10))", "items"),
    ("list(itertools.chain(range(10**9), lst))", "items"),
    # allocations
    ("np.zeros((10**6, 10**6))", "items"), ("np.ones((10**5, 10**5))", "items"),
    ("np.full((10**5, 10**5), 1.0)", "items"),
    ("np.arange(10**12)", "items"), ("np.eye(10**6)", "items"),
    ("np.identity(10**5)", "items"), ("np.linspace(0, 1, 10**10)", "items"),
    ("np.tile(arr, 10**9)", "items"), ("np.repeat(arr, 10**9)", "items"),
    ("np.repeat(df.temp.values, 10**9)", "items"), ("np.tile(s.values, (10**5, 10**5))", "items"),
    ("sum(range(big.shape[0] ** 2))", "items"), ("sum(range(arr.size ** 9))", "items"),
    ("list(range(len(big) * len(big)))", "items"),
    ("bytes(10**12)", "items"), ("text.ljust(10**12)", "items"),
    ("text.center(10**10)", "items"), ("text.zfill(10**10)", "items"),
    ("text * huge", "items"), ("lst * huge", "items"),
    ("big.merge(big, how='cross')", "items"), ("pd.merge(big, big, how='cross')", "items"),
    ("big.join(big, how='cross', lsuffix='l')", "items"),
    # format widths
    ("f'{n:>{10**12}}'", "characters"), ("'{:>1000000000000}'.format(n)", "characters"),
    ("'%1000000000000d' % n", "characters"),
    # integers computed in one C call
    ("math.factorial(10**8)", "bits"), ("math.factorial(huge)", "bits"),
    ("math.comb(10**9, 10**8)", "bits"), ("math.perm(10**7)", "bits"),
    ("pow(10, 10**10)", "bits"), ("10 ** huge", "bits"), ("n ** huge", "bits"),
    # regular expressions that backtrack exponentially
    ("re.match('(a+)+$', 'a' * 40 + 'b')", "quantifier"),
    ("re.search(r'(\\w+\\s?)+$', text)", "quantifier"),
    ("re.findall('(x+x+)+y', text)", "quantifier"), ("re.match('(.*)*x', text)", "quantifier"),
    ("re.compile('(a|aa)*$')", "alternatives"), ("re.fullmatch(evil, text)", "quantifier"),
    ("re.sub('(a*)*b', '', text)", "quantifier"),
    ("df.city.str.contains('(a+)+$')", "quantifier"),
    ("df.city.str.match('(a|aa)+$')", "alternatives"),
    ("df.city.str.replace('(a+)+', '', regex=True)", "quantifier"),
    ("compiled.match(text)", "quantifier"), ("compiled.findall(text)", "quantifier"),
    ("re.search(compiled, text)", "quantifier"), ("df.city.str.contains(compiled)", "quantifier"),
]

# everyday twins: sizes under the budgets, or computed without going through the items
LIGHT = [
    "range(len(df))", "list(range(len(df)))", "sum(range(100))", "sum(range(10**7))",
    "df.head(10**3)", "2**10", "10**100", "len(range(10**18))", "5 in range(10**12)",
    "10**12 not in range(10**12)", "list(itertools.product(range(10), repeat=3))",
    "list(itertools.combinations(lst, 2))", "list(itertools.permutations(words))",
    "np.zeros((100, 100))", "np.ones(10**6)", "np.arange(10**7)", "np.eye(1000)",
    "np.linspace(0, 1, 50)", "np.tile(arr, 3)", "np.repeat(df.temp.values, 3)",
    "sum(range(big.shape[0]))", "list(range(arr.size))", "sum(range(big.shape[-1] * 10))",
    "text.ljust(80)", "f'{n:>8} {x:.2f}'",
    "'{:>10}'.format(text)", "'%5d' % n", "'%-20s|' % text", "math.factorial(20)",
    "math.comb(50, 10)", "pow(2, 64)", "pow(10, 10**10, 7)", "n ** 3", "text * 3",
    "big.merge(big, on='a')", "big.merge(small, how='cross')",
    "pd.merge(small, small, how='cross')",
    "re.findall(r'(\\d+,)*\\d+', text)", "re.match(r'(ab?)*$', text)",
    "re.match(r'(\\w|\\d)+$', text)", "re.sub(r'\\s+', ' ', text)",
    "re.findall(r'(\\d{1,3}\\.){3}\\d{1,3}', text)", "re.match(r'(a|ab)*c', text)",
    "df.city.str.replace('(a+)+', '')", "df.city.str.contains('P(a|r)is')",
    "plain.match(text)", "plain.sub('-', text)", "re.search(plain, text)",
    "list(zip(lst, words))",
]


@pytest.fixture(scope="module")
def namespace() -> dict:
    import pandas as pd

    ns = make_namespace()
    ns.update(compiled=re.compile("(a+)+$"), plain=re.compile(r"\s+"))
    ns.update(huge=10**18, evil="(a+)+$", big=pd.DataFrame({"a": range(20_000)}),
              small=pd.DataFrame({"b": range(100)}))
    return ns


@pytest.fixture
def decide(tmp_path: Path, namespace: dict):
    tool = RunCode(NotebookHost(namespace))
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        def run(code: str, mode: str = "default"):
            return check(tool, {"code": code}, mode=mode, cwd=str(tmp_path))
        yield run
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("code,word", HEAVY, ids=[c for c, _ in HEAVY])
def test_a_size_over_the_budget_is_asked(decide, code, word):
    decision = decide(code)
    assert decision.behavior.value == "ask", decision.reason
    assert word in decision.reason, decision.reason
    assert "hang" in decision.reason or "exponential" in decision.reason, decision.reason


@pytest.mark.parametrize("code", LIGHT)
def test_everyday_sizes_stay_allowed(decide, code):
    decision = decide(code)
    assert decision.behavior.value == "allow", decision.reason


@pytest.mark.parametrize("mode,expected", [
    ("default", "ask"), ("accept_edits", "ask"), ("explore", "deny"), ("bypass", "allow"),
    ("dont_ask", "deny")])
def test_a_heavy_call_goes_down_the_ladder_like_any_unproven_code(decide, mode, expected):
    assert decide("sum(range(10**18))", mode).behavior.value == expected


@pytest.mark.parametrize("pattern,bad", [
    ("(a+)+$", True), ("(a*)*b", True), ("((a+))+", True), ("(\\w+\\s?)*$", True),
    ("(a|aa)*$", True), ("(a|a)+$", True), ("(.|a)*x", True), ("(?:x+x+)+y", True),
    ("(\\d+,)*\\d+", False), ("(ab?)*", False), ("[a-z]+@[a-z]+", False), ("(\\w|\\s)*", False),
    ("(a|b)*", False), ("^\\d{4}-\\d{2}$", False), ("(?>a+)+", False), ("(", False),
    ("a{2,5}", False), ("(a+){3}", False),
])
def test_regex_shapes(pattern, bad):
    assert (sizes.regex_blowup(pattern) is not None) is bad
