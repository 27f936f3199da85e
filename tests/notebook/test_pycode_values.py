"""Trust of live values (``describe``) and Inspect's safe repr: by exact type, checked by identity
against the library's export; spoofs and subclasses are not trusted; nothing user-defined runs."""

from __future__ import annotations

import builtins
import collections
import datetime
import decimal
import fractions
import types
from pathlib import Path

import nb_namespace
import numpy as np
import pandas as pd
import pytest
from nb_namespace import FakeFrame, Model, Sneaky, fake_numpy, object_array, spoofed_function

from jupyter_agenttools.pycode import (
    BuiltinNames,
    NamespaceNames,
    analyze,
    canonical_name,
    describe,
    safe_repr,
)

DEEP = [
    1, 2.5, True, None, "text", b"bytes", (1, "a"), [1, [2, 3]], {"a": [1]}, {1, 2},
    frozenset({1}), range(3), np.arange(3), np.float64(1.5), np.eye(2),
    pd.DataFrame({"a": [1], "b": ["x"]}), pd.Series([1.0]), pd.Index([1, 2]),
    pd.Timestamp("2024-01-01"), datetime.date(2024, 1, 1), decimal.Decimal("1.5"),
    fractions.Fraction(1, 3), Path("data"), collections.Counter("aab"),
    pd.DataFrame({"o": ["x", None, 3]}, dtype=object), pd.Series(pd.Categorical(["a", "b"])),
]


@pytest.mark.parametrize("value", DEEP, ids=[type(v).__name__ for v in DEEP])
def test_library_values_are_deep(value):
    kind = describe(value)
    assert kind.deep and kind.shallow


NOT_TRUSTED = [
    Model(), Sneaky(), FakeFrame({"a": [1]}), object(), lambda: 1,
    pd.DataFrame({"o": [Model()]}), object_array(), [1, Model()], {"k": Model()},
    (Model(),), collections.defaultdict(list), types.SimpleNamespace(a=1),
]


@pytest.mark.parametrize("value", NOT_TRUSTED, ids=[type(v).__name__ for v in NOT_TRUSTED])
def test_user_objects_and_what_holds_them_are_not_deep(value):
    assert not describe(value).deep


def test_a_user_object_inside_a_container_makes_it_shallow_only():
    kind = describe([1, Model()])
    assert kind.shallow and not kind.deep  # len() is safe, print() is not


def test_containers_over_the_budget_are_shallow_only():
    assert describe(list(range(50)), budget=10).shallow
    assert not describe(list(range(50)), budget=10).deep
    assert describe(list(range(50)), budget=100).deep


def test_a_self_containing_list_does_not_loop():
    loop: list = [1]
    loop.append(loop)
    assert describe(loop).shallow


@pytest.mark.parametrize("obj,name", [
    (np.mean, "numpy.mean"), (np.sqrt, "numpy.sqrt"), (pd.read_csv, "pandas.read_csv"),
    (pd.DataFrame, "pandas.DataFrame"), (len, "builtins.len"), (Path, "pathlib.Path"),
    (np.linalg, "numpy.linalg"), (datetime.datetime, "datetime.datetime"),
])
def test_canonical_names_are_public_paths(obj, name):
    assert canonical_name(obj) == name


def test_spoofed_names_are_not_canonical():
    assert canonical_name(spoofed_function()) is None  # __module__ = "numpy" set by hand
    assert canonical_name(fake_numpy()) is None  # a module not in sys.modules under its name
    assert canonical_name(nb_namespace.user_function) is None or \
        not canonical_name(nb_namespace.user_function).startswith("numpy")


def test_a_fake_numpy_module_does_not_bring_numpy_functions():
    names = NamespaceNames({"np": fake_numpy(), "arr": np.arange(3)})
    assert not analyze("np.mean(arr)", names).read_only


def test_a_patched_builtin_is_not_trusted(monkeypatch):
    assert analyze("ascii('x')", BuiltinNames()).read_only
    monkeypatch.setattr(builtins, "ascii", lambda x: nb_namespace.traced("fake ascii") or "")
    assert not analyze("ascii('x')", BuiltinNames()).read_only


def test_a_shadowing_user_function_is_not_the_builtin():
    names = NamespaceNames({"len": nb_namespace.user_function})
    assert not analyze("len([1])", names).read_only


def test_a_user_metaclass_makes_a_class_untrusted():
    class Meta(type):
        def __repr__(cls):
            nb_namespace.traced("meta repr")
            return "X"

    cls = Meta("X", (), {})
    nb_namespace.TRACE.clear()
    assert canonical_name(cls) is None
    assert not describe(cls).repr_safe
    assert safe_repr(cls)[0] is None
    assert nb_namespace.TRACE == []


def test_a_bound_method_shows_its_object_so_it_is_not_repr_safe():
    assert not describe(Model().predict).repr_safe
    assert describe([].append).repr_safe  # a built-in method names only its type


@pytest.mark.parametrize("value,expected", [
    ([1, 2, 3], "[1, 2, 3]"), ("abc", "'abc'"), ({"a": 1}, "{'a': 1}"),
])
def test_safe_repr_of_plain_values(value, expected):
    assert safe_repr(value) == (expected, "built-in repr")


def test_safe_repr_of_a_dataframe_is_pandas_own():
    text, how = safe_repr(pd.DataFrame({"a": [1, 2]}))
    assert how == "library repr" and "a" in text and "2" in text


@pytest.mark.parametrize("value,why", [
    (Model(), "defined in module nb_namespace"),
    (FakeFrame({"a": [1]}), "nb_namespace.FakeFrame is not a known library type"),
    (pd.DataFrame({"o": [Model()]}), "holding values"), ([Model()], "holding values"),
])
def test_safe_repr_refuses_user_code_and_says_why(value, why):
    nb_namespace.TRACE.clear()
    text, how = safe_repr(value)
    assert text is None and why in how
    assert nb_namespace.TRACE == []


def test_safe_repr_is_bounded():
    text, _ = safe_repr(list(range(100_000)))
    assert len(text) < 1000 and text.endswith("...]")
    text, _ = safe_repr("x" * 100_000, limit=500)
    assert len(text) <= 2100
    text, _ = safe_repr(10 ** 20_000)
    assert text.startswith("<int of ")
