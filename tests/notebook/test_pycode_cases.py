"""The Python analysis case table: every snippet decided by RunCode's permission check against a
notebook-like namespace, and a mode ladder; the read-only ones also run and leave no trace."""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from pathlib import Path

import nb_namespace
import pytest
from nb_namespace import make_namespace
from pycode_cases import CASES, ESCAPE, OUTSIDE, READ, WRITE

from jupyter_agenttools.builtin.notebook import NotebookHost, RunCode
from jupyter_agenttools.builtin.notebook.execute import execute
from jupyter_agenttools.permission.check import check
from jupyter_agenttools.pycode import analyze


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    (root / "data").mkdir()
    (root / "data" / "train.csv").write_text("city,temp\nParis,18\n")
    return root


@pytest.fixture(scope="module")
def namespace() -> dict:
    return make_namespace()


@pytest.fixture
def decide(project: Path, namespace: dict):
    tool = RunCode(NotebookHost(namespace))
    cwd = os.getcwd()
    os.chdir(project)  # the analysis resolves relative paths, the engine too, against the cwd
    try:
        def run(code: str, mode: str = "default", rules=None):
            return check(tool, {"code": code}, mode=mode, rules=rules, cwd=str(project))
        yield run
    finally:
        os.chdir(cwd)


def test_the_table_is_big_enough_and_has_no_duplicates():
    codes = [c for c, _ in CASES]
    assert len(codes) >= 150
    assert len(set(codes)) == len(codes), [c for c, n in Counter(codes).items() if n > 1]
    assert len(READ) >= 50 and len(WRITE) >= 50 and len(ESCAPE) >= 50 and OUTSIDE


@pytest.mark.parametrize("code,category", CASES, ids=[f"{k}:{c[:40]}" for c, k in CASES])
def test_default_mode_allows_exactly_the_read_only_snippets(decide, code, category):
    decision = decide(code)
    if category == "read":
        assert decision.behavior.value == "allow", decision.reason
        assert decision.step == "read_only"
    else:
        assert decision.behavior.value in ("ask", "deny"), (category, decision.reason)
        assert decision.reason  # the question says why


def test_no_snippet_that_is_not_read_only_is_allowed(decide):
    """The headline figure: of every write and escape, none is ALLOWed in default mode."""
    counts = Counter()
    for code, category in CASES:
        counts[(category, decide(code).behavior.value)] += 1
    allowed_bad = counts[("write", "allow")] + counts[("escape", "allow")]
    print(f"\n{len(CASES)} snippets: {len(READ)} read ({counts[('read', 'allow')]} allowed), "
          f"{len(OUTSIDE)} outside-reads, {len(WRITE)} writes, {len(ESCAPE)} escapes; "
          f"not-read-only allowed: {allowed_bad}")
    assert allowed_bad == 0
    assert counts[("read", "allow")] == len(READ)


def test_deciding_runs_no_user_code(decide):
    """The analysis looks at live objects by their exact type and type's own getters: deciding
    on any snippet of the table, in every mode, runs no user code, whatever the verdict (an
    ``isinstance`` would read ``liar.__class__``, a property; a dict lookup of ``Hashy``'s
    class would call its metaclass's ``__hash__``)."""
    nb_namespace.TRACE.clear()
    for code, _category in CASES:
        for mode in ("default", "bypass"):
            decide(code, mode)
    assert nb_namespace.TRACE == []


# one representative per category, down the five modes (SPEC §5.2's table for a tool whose
# check is a plain ASK when not read-only, a safety ASK for a secret read)
LADDER = {
    "df.head()": {"default": "allow", "accept_edits": "allow", "explore": "allow",
                  "bypass": "allow", "dont_ask": "allow"},
    "open('/etc/hostname').read()": {"default": "ask", "accept_edits": "ask",
                                     "explore": "deny", "bypass": "allow", "dont_ask": "deny"},
    "open('~/.ssh/id_rsa').read()": {"default": "ask", "accept_edits": "ask",
                                     "explore": "deny", "bypass": "allow", "dont_ask": "deny"},
    "df.to_csv('out.csv')": {"default": "ask", "accept_edits": "ask", "explore": "deny",
                             "bypass": "allow", "dont_ask": "deny"},
    "getattr(__builtins__, 'exec')('1')": {"default": "ask", "accept_edits": "ask",
                                           "explore": "deny", "bypass": "allow",
                                           "dont_ask": "deny"},
    "model.predict([1])": {"default": "ask", "accept_edits": "ask", "explore": "deny",
                           "bypass": "allow", "dont_ask": "deny"},
}


@pytest.mark.parametrize("mode", ["default", "accept_edits", "explore", "bypass", "dont_ask"])
@pytest.mark.parametrize("code", list(LADDER))
def test_mode_ladder(decide, code, mode):
    assert decide(code, mode).behavior.value == LADDER[code][mode]


def test_a_secret_read_is_a_safety_question(decide):
    decision = decide("open('~/.ssh/id_rsa').read()")
    assert decision.behavior.value == "ask" and decision.bypass_immune
    assert not decision.suggestions


@pytest.mark.parametrize("rules,code,expected", [
    ({"deny": ["Read(data/**)"]}, "pd.read_csv('data/train.csv')", "deny"),
    ({"deny": ["Edit(out.csv)"]}, "df.to_csv('out.csv')", "deny"),
    ({"ask": ["Read(data/**)"]}, "open('data/train.csv').read()", "ask"),
    ({"deny": ["RunCode(os.system)"]}, "x = 1; os.system('id')", "deny"),
    ({"deny": ["RunCode(numpy.save)"]}, "np.save('a.npy', arr)", "deny"),
    ({"allow": ["RunCode(model.predict)"]}, "model.predict([1, 2])", "allow"),
    ({"allow": ["RunCode(model.predict)"]}, "model.predict([1]); os.remove('x')", "ask"),
    ({"allow": ["Edit(**)"]}, "df.to_csv('out.csv')", "ask"),  # files alone never allow code
    # a rule names calls: what the rest of the code reads is checked as without the rule
    ({"allow": ["RunCode(model.predict)"]}, "model.predict(df); open('/etc/hostname').read()",
     "ask"),
    ({"allow": ["RunCode(model.predict)"]}, "model.predict(df); pd.read_csv('/etc/passwd')",
     "ask"),
    ({"allow": ["RunCode(model.predict)"]}, "model.predict(df); open('data/train.csv').read()",
     "allow"),
    # a function handed to the allowed call is not what the rule names
    ({"allow": ["RunCode(sorted)"]}, "sorted(lst, key=os.remove)", "ask"),
    ({"allow": ["RunCode(sorted)"]}, "sorted(objlist, key=open)", "ask"),
    ({"allow": ["RunCode(sorted)"]}, "sorted(objlist, key=len)", "allow"),
    ({"allow": ["RunCode(df.apply)"]}, "df.apply(lst.append)", "ask"),
    ({"allow": ["RunCode(df.apply)"]}, "df.apply(os.remove)", "ask"),
    ({"allow": ["RunCode(df.apply)"]}, "df.apply(np.mean)", "allow"),
    # a module reached through another one's import is not the submodule the rule names
    ({"allow": ["RunCode(os.path.*)"]}, "os.path.os.system('id')", "ask"),
    ({"allow": ["RunCode(os.path.*)"]}, "os.path.os.remove('x')", "ask"),
    ({"allow": ["RunCode(os.path.*)"]}, "os.path.realpath('data')", "allow"),
    ({"allow": ["RunCode(np.linalg.*)"]}, "np.linalg.matrix_power(mat, 2)", "allow"),
    ({"allow": ["RunCode(plt.style.use)"]}, "plt.style.use('ggplot')", "allow"),
])
def test_rules_apply_to_runcode(decide, rules, code, expected):
    assert decide(code, rules=rules).behavior.value == expected


def test_read_only_snippets_leave_no_trace(project: Path):
    """Run every read-only snippet for real: no user code ran, no variable changed, no file
    appeared, the data is as it was."""
    namespace = make_namespace()
    before = dict(namespace)
    frame, items, mapping = namespace["df"].copy(), list(namespace["lst"]), dict(namespace["d"])
    files = sorted(p.name for p in project.rglob("*"))
    nb_namespace.TRACE.clear()
    cwd = os.getcwd()
    os.chdir(project)
    try:
        async def run_all() -> list[str]:
            failures = []
            for code in READ:
                result = await execute(code, namespace, timeout=30)
                if result.error and "FileNotFoundError" not in result.error:
                    failures.append(f"{code}: {result.error.splitlines()[-1]}")
            return failures
        failures = asyncio.run(run_all())
    finally:
        os.chdir(cwd)
    assert failures == []
    assert nb_namespace.TRACE == []
    changed = [k for k in set(namespace) | set(before)
               if not k.startswith("__") and namespace.get(k) is not before.get(k)]
    assert changed == []
    assert sorted(p.name for p in project.rglob("*")) == files
    assert namespace["df"].equals(frame) and namespace["lst"] == items
    assert namespace["d"] == mapping


@pytest.mark.parametrize("code", ["df.head()", "print(df)", "model.predict([1])"])
def test_without_a_namespace_only_builtins_are_known(code):
    """Outside a kernel (``agenttools check``) names are unknown: their methods ask."""
    assert not analyze(code).read_only


@pytest.mark.parametrize("code", ["len([1, 2])", "sorted({3, 1})", "print('hi')",
                                  "'a,b'.split(',')", "[i * i for i in range(5)]"])
def test_without_a_namespace_plain_values_are_read_only(code):
    assert analyze(code).read_only


@pytest.mark.parametrize("code,why", [
    ("x = 1", "assigns"), ("import os", "import"), ("exec('1')", "arbitrary code"),
    ("__import__('os')", "dunder"), ("df.__dict__", "dunder"), ("(y := 1)", ":="),
    ("open('x', 'w')", "write"), ("pd.read_pickle('x')", "unpickling"),
    ("api_key", "credential"), ("os.environ", "environment"),
])
def test_reasons_name_the_construct(namespace, code, why):
    from jupyter_agenttools.pycode import NamespaceNames

    result = analyze(code, NamespaceNames(namespace))
    assert not result.read_only
    assert why in result.explain(5)


@pytest.mark.parametrize("code", ["(", "x = ", "\x00", "def", "'\ud800'", "a" * 300_000,
                                  "(" * 1000 + ")" * 1000, 5, None])
def test_bad_input_is_a_clear_refusal_never_a_crash(code):
    result = analyze(code)
    assert not result.read_only
    assert result.reasons and result.reasons[0].text


@pytest.mark.parametrize("code", ["-" * 20_000 + "1", "[" * 150 + "]" * 150,
                                  "+".join(["1"] * 20_000)])
def test_deep_or_long_code_gets_a_verdict_without_crashing(code):
    result = analyze(code)
    assert result.read_only or result.reasons


@pytest.mark.parametrize("code", [
    "open('.agenttools/settings.json', 'w')", "open('.agenttools/audit.jsonl', 'a').write('x')",
    "import shutil; shutil.rmtree('/')", "shutil.rmtree('/etc')",
    # a literal path in code that is not read-only is a possible write, whatever the door
    "Path('.agenttools/settings.json').write_text('{}')",
    "Path('x').rename('.agenttools/settings.json')", "Path('.agenttools/audit.jsonl').unlink()",
    "os.symlink('/tmp/x', '.agenttools/settings.json')",
    "os.truncate('.agenttools/settings.json', 0)",
    "__import__('os').remove('.agenttools/audit.jsonl')",
    "getattr(os, 'remove')('.agenttools/audit.jsonl')",
    "p = '.agenttools/settings.json'\nopen(p, 'w').write('{}')",
])
@pytest.mark.parametrize("mode", ["default", "accept_edits", "bypass", "dont_ask"])
def test_the_protected_tier_holds_for_literal_paths_in_every_mode(decide, code, mode):
    """RunCode reports the files its code writes with a literal path: the engine's protected
    tier (the agent's own settings and audit, wholesale destruction) denies them, bypass too."""
    decision = decide(code, mode)
    assert decision.behavior.value == "deny" and "protected" in decision.reason


@pytest.mark.parametrize("mode", ["default", "bypass"])
def test_code_naming_more_paths_than_are_checked_is_asked(decide, mode):
    """Past the paths checked as possible writes, the code cannot be described: asked, in
    bypass mode too (padding must not hide a protected path)."""
    padding = ", ".join(f"'./d{i}/f.csv'" for i in range(1100))
    decision = decide(f"x = [{padding}, '.agenttools/settings.json']", mode)
    assert decision.behavior.value == "ask" and "more paths" in decision.reason


@pytest.mark.parametrize("mode", ["default", "bypass"])
def test_a_read_only_snippet_naming_a_protected_path_is_not_a_write(decide, mode):
    assert decide("print('.agenttools/settings.json')", mode).behavior.value == "allow"
