"""``RunCode(...)`` rules: allow rules vouch for the calls they name (the rest must still be
proven read-only); deny and ask rules match any dotted name the code mentions, as written or
resolved; suggestions are the narrowest rule that would allow the call."""

from __future__ import annotations

import pytest
from nb_namespace import make_namespace

from jupyter_agenttools.builtin.notebook import NotebookHost, RunCode
from jupyter_agenttools.permission.check import check
from jupyter_agenttools.permission.types import PermissionRule
from jupyter_agenttools.pycode import NamespaceNames, allow_rule_matches, analyze, deny_rule_matches


@pytest.fixture(scope="module")
def names() -> NamespaceNames:
    return NamespaceNames(make_namespace())


@pytest.mark.parametrize("spec,code,matches", [
    ("model.predict", "model.predict([1, 2])", True),
    ("model.predict", "print(model.predict([1, 2]))", True),  # its result counts as library
    ("model.*", "model.predict([1]); model.head()", True),
    ("model.predict", "model.predict([1]); model.head()", False),  # head is not covered
    ("model.predict", "model.predict(os.system('id'))", False),  # arguments are still checked
    ("model.predict", "x = model.predict([1])", False),  # an assignment is never covered
    ("model.predict", "import os; model.predict([1])", False),
    ("df.to_csv", "df.to_csv('out.csv')", True),
    ("pandas.to_csv", "s.to_csv('out.csv')", True),  # family.method: any pandas object
    ("df.head*", "df.head(os.system('id'))", False),  # never a text prefix
    ("numpy.save", "np.save('a.npy', arr)", True),
    ("np.save", "np.save('a.npy', arr)", True),
])
def test_allow_rules_vouch_only_for_the_calls_they_name(names, spec, code, matches):
    assert allow_rule_matches(spec, code, names) is matches


@pytest.mark.parametrize("spec,code,matches", [
    ("os.system", "os.system('id')", True),
    ("os.system", "x = 1\nprint(os.system('id'))", True),
    ("os.system", "from os import system as s; s('id')", True),  # resolved through the import
    ("os.system", "f = getattr(os, 'system')", True),
    ("os.*", "os.remove('x')", True),
    ("numpy.save", "np.save('a', arr)", True),  # resolved through the namespace
    ("numpy.save", "numpy_save = 1", False),
    ("subprocess.*", "import subprocess as sp; sp.run(['ls'])", True),
    ("df.to_csv", "df.head()", False),
])
def test_deny_rules_match_any_mentioned_name(names, spec, code, matches):
    assert deny_rule_matches(spec, analyze(code, names)) is matches


@pytest.fixture
def tool() -> RunCode:
    return RunCode(NotebookHost(make_namespace()))


@pytest.mark.parametrize("code,suggested", [
    ("model.predict([1, 2])", ["RunCode(model.predict)"]),
    ("model.predict([1]); model.head()", ["RunCode(model.*)"]),
    ("df.to_csv('out.csv')", ["RunCode(df.to_csv)"]),
    ("x = model.predict([1])", []),  # a rule could not allow an assignment
    ("import os", []),
    ("exec('1')", []),
])
def test_suggestions_are_rules_that_would_allow_the_call(tool, code, suggested):
    decision = check(tool, {"code": code})
    assert decision.behavior.value == "ask"
    assert [r.text for r in decision.suggestions] == suggested
    for text in suggested:  # taking the suggestion allows exactly this call
        again = check(tool, {"code": code}, rules={"allow": [text]})
        assert again.behavior.value == "allow"


def test_a_suggested_rule_does_not_allow_more(tool):
    rule = PermissionRule.parse("RunCode(model.predict)")
    assert check(tool, {"code": "model.predict([1]); os.remove('x')"},
                 rules=[rule]).behavior.value == "ask"


def test_a_rule_without_specifier_covers_every_call(tool):
    assert check(tool, {"code": "import os"}, rules={"allow": ["RunCode"]}).behavior.value \
        == "allow"
    assert check(tool, {"code": "df.head()"}, rules={"deny": ["RunCode"]}).behavior.value \
        == "deny"
