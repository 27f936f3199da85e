"""A notebook-like namespace for the Python analysis tests: library objects of every family the
tables know, and user objects whose every special method leaves a trace when it runs."""

from __future__ import annotations

import abc
import datetime
import glob
import itertools
import json
import math
import os
import pickle
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

TRACE: list[str] = []  # what user code ran


def traced(what: str) -> None:
    TRACE.append(what)


class Model:
    """A user class: every method, property and special method records that it ran."""

    def __init__(self) -> None:
        self.__dict__["coef_"] = [1.0, 2.0]

    def predict(self, rows: Any) -> list[int]:
        traced("predict")
        return [0 for _ in rows]

    def head(self, n: int = 5) -> str:  # named like a pandas method
        traced("head")
        return "model head"

    def describe(self) -> str:
        traced("describe")
        return "model"

    @property
    def score(self) -> float:
        traced("score property")
        return 0.5

    def __repr__(self) -> str:
        traced("__repr__")
        return "Model()"

    def __str__(self) -> str:
        traced("__str__")
        return "Model"

    def __format__(self, spec: str) -> str:
        traced("__format__")
        return "Model"

    def __eq__(self, other: object) -> bool:
        traced("__eq__")
        return False

    def __hash__(self) -> int:
        traced("__hash__")
        return 1

    def __len__(self) -> int:
        traced("__len__")
        return 1

    def __getitem__(self, key: Any) -> Any:
        traced("__getitem__")
        return 1

    def __add__(self, other: Any) -> Any:
        traced("__add__")
        return 1

    def __bool__(self) -> bool:
        traced("__bool__")
        return True

    def __iter__(self) -> Any:
        traced("__iter__")
        return iter([1])


class Sneaky:
    def __getattr__(self, name: str) -> Any:
        traced(f"__getattr__ {name}")
        return 1


class FakeFrame(pd.DataFrame):
    """A DataFrame subclass from user code: not the library's type."""

    def head(self, n: int = 5) -> Any:  # type: ignore[override]
        traced("FakeFrame.head")
        return super().head(n)


class UserABC(abc.ABC):  # noqa: B024  (abstract only to get ABCMeta)
    """isinstance(x, UserABC) asks abc, which calls this hook (user code)."""

    @classmethod
    def __subclasshook__(cls, other: type) -> Any:
        traced("__subclasshook__")
        return NotImplemented


class Tracing:
    """A descriptor of user code: reading it on a class runs __get__."""

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        traced("Tracing.__get__")
        return 1


class Holder:
    """A user class whose attributes hold user objects (read on the class, not called)."""

    sneaky = Sneaky()
    model = Model()
    tracing = Tracing()
    plain = 3


class WithHook:
    def __init_subclass__(cls, **kwargs: Any) -> None:
        traced("__init_subclass__")


class ClassLies:
    """``isinstance(x, T)`` reads ``x.__class__`` when ``type(x)`` is not ``T``: a property."""

    @property  # type: ignore[misc]
    def __class__(self) -> Any:  # noqa: PLE0101
        traced("__class__ property")
        return int


class LoudAccess:
    """Every attribute read, ``__class__`` and ``__dict__`` included, is user code."""

    def __getattribute__(self, name: str) -> Any:
        traced(f"__getattribute__ {name}")
        return object.__getattribute__(self, name)


class LoudCallable(LoudAccess):
    def __call__(self) -> None:
        traced("__call__")


class HashMeta(type):
    """A metaclass whose classes hash and compare with user code (dict lookups of the class,
    ``in`` tests) and answer attribute reads (``cls.__mro__``) with user code."""

    def __hash__(cls) -> int:
        traced("HashMeta.__hash__")
        return 1

    def __eq__(cls, other: object) -> bool:
        traced("HashMeta.__eq__")
        return False

    def __getattribute__(cls, name: str) -> Any:
        traced(f"HashMeta.__getattribute__ {name}")
        return type.__getattribute__(cls, name)


class Hashy(metaclass=HashMeta):
    pass


class Box:
    """A plain user object whose stored attributes are the objects above."""

    def __init__(self) -> None:
        self.liar = ClassLies()
        self.loud = LoudAccess()
        self.hashy = Hashy()


def user_function(x: Any) -> Any:
    traced("user_function")
    return x


def fake_numpy() -> types.ModuleType:
    module = types.ModuleType("numpy")  # pretends to be numpy, is not sys.modules["numpy"]
    module.mean = user_function  # type: ignore[attr-defined]
    return module


def spoofed_function() -> Any:
    def mean(x: Any) -> Any:
        traced("spoofed mean")
        return x

    mean.__module__ = "numpy"
    mean.__qualname__ = "mean"
    return mean


def object_array() -> Any:
    array = np.empty(2, dtype=object)  # np.array([Model()]) would iterate the model
    array[0], array[1] = 1, Model()
    return array


def tagged_function() -> Any:
    def tagged(x: Any) -> Any:
        return x

    tagged.payload = Model()  # type: ignore[attr-defined]  # a user object stored on a function
    return tagged


def frames_holding_user_objects() -> dict[str, Any]:
    """pandas objects whose data is plain but whose metadata is a user object: a Series name,
    an index name, ``attrs``, an attribute stored on the frame."""
    import warnings

    named = pd.Series([1.0, 2.0], name=Model())
    indexed = pd.DataFrame({"a": [1, 2]})
    indexed.index.name = Model()
    with_attrs = pd.DataFrame({"a": [1, 2]})
    with_attrs.attrs["model"] = Model()
    stored = pd.DataFrame({"a": [1, 2]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stored.extra = Model()  # pandas warns: not a column, an attribute of the object
    tagged_fig, tagged_ax = plt.subplots()
    tagged_fig.model = Model()  # type: ignore[attr-defined]  # user code stores an object
    return {"named": named, "indexed": indexed, "with_attrs": with_attrs, "stored": stored,
            "tagged_fig": tagged_fig}


def make_namespace() -> dict[str, Any]:
    df = pd.DataFrame({"city": ["Paris", "Lima", "Oslo"], "temp": [18.0, 22.0, 9.0],
                       "n": [1, 2, 3],
                       "when": pd.date_range("2024-01-01", periods=3)})
    fig, ax = plt.subplots()
    ns: dict[str, Any] = {
        "__name__": "__main__",
        "df": df, "s": df["temp"], "arr": np.arange(10.0), "mat": np.eye(3),
        "lst": [3, 1, 2], "words": ["pear", "fig"], "d": {"a": 1, "b": 2},
        "text": "hello world", "n": 42, "x": 3.5, "t": (1, 2), "st": {1, 2},
        "path": "data/train.csv", "folder": Path("data"), "when": datetime.date(2024, 1, 1),
        "np": np, "pd": pd, "plt": plt, "math": math, "os": os, "sys": sys, "json": json,
        "re": re, "subprocess": subprocess, "shutil": shutil, "pickle": pickle, "Path": Path,
        "datetime": datetime, "mean": np.mean, "read_csv": pd.read_csv,
        "model": Model(), "sneaky": Sneaky(), "fake": FakeFrame({"a": [1, 2]}),
        "objdf": pd.DataFrame({"o": [Model()]}), "objlist": [1, Model()],
        "objarr": object_array(), "user_function": user_function,
        "fakenp": fake_numpy(), "spoofed": spoofed_function(), "api_key": "sk-secret",
        "gb": df.groupby("city"), "fig": fig, "ax": ax,
        "nested": {"rows": [[1, 2], [3, 4]], "name": "x"},
        "glob": glob, "itertools": itertools, "UserABC": UserABC, "Holder": Holder,
        "WithHook": WithHook, "tagged": tagged_function(),
        "liar": ClassLies(), "loud": LoudAccess(), "loud_callable": LoudCallable(),
        "hashy": Hashy(), "Hashy": Hashy, "box": Box(), "liars": [1, ClassLies()],
        **frames_holding_user_objects(),
    }
    return ns
