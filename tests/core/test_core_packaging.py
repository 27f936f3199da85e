"""Packaging conventions: one version everywhere, LICENSE, changelog, py.typed, the CLI's
version, ``python -m``, the labextension's settings schema, no unused dependency."""

from __future__ import annotations

import json
import re
import subprocess
import sys

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib
from pathlib import Path

import jsonschema
import pytest

import jupyter_agenttools
from jupyter_agenttools._version import __version__

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
PACKAGE_JSON = json.loads((REPO / "labextension" / "package.json").read_text())


def test_one_version_for_python_and_the_labextension():
    assert jupyter_agenttools.__version__ == __version__
    assert PACKAGE_JSON["version"] == __version__
    assert "version" not in PYPROJECT["project"]
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "jupyter_agenttools/_version.py"


def test_license_changelog_and_typing_marker():
    assert PYPROJECT["project"]["license"] == "BSD-3-Clause" == PACKAGE_JSON["license"]
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License") and "Neither the name" in text
    changelog = (REPO / "CHANGELOG.md").read_text()
    assert f"## [{__version__}]" in changelog and "## [Unreleased]" in changelog
    assert (REPO / "jupyter_agenttools" / "py.typed").is_file()
    assert {"Homepage", "Source", "Issues", "Changelog"} <= set(PYPROJECT["project"]["urls"])


@pytest.mark.parametrize("argv", [["-m", "jupyter_agenttools"], ["-m", "jupyter_agenttools.cli"]])
def test_version_from_the_command_line(argv):
    proc = subprocess.run([sys.executable, *argv, "--version"], capture_output=True, text=True,
                          timeout=60, cwd=REPO)
    assert proc.returncode == 0 and proc.stdout.strip() == f"agenttools {__version__}"


def test_python_m_runs_the_cli():
    proc = subprocess.run([sys.executable, "-m", "jupyter_agenttools", "check", "--json", "--",
                           "git status"], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["behavior"] == "allow"


def test_litellm_is_an_optional_extra_and_websocket_client_is_gone():
    deps = " ".join(PYPROJECT["project"]["dependencies"])
    assert "litellm" not in deps and "websocket" not in deps
    assert any(d.startswith("litellm") for d in PYPROJECT["project"]["optional-dependencies"]
               ["litellm"])
    imports = re.compile(r"^\s*(import websocket\b|from websocket\b)", re.MULTILINE)
    for path in (REPO / "jupyter_agenttools").rglob("*.py"):
        assert not imports.search(path.read_text()), path


def test_the_panel_settings_schema():
    assert PACKAGE_JSON["jupyterlab"]["schemaDir"] == "schema"
    assert "schema/*.json" in PACKAGE_JSON["files"]
    schema = json.loads((REPO / "labextension" / "schema" / "plugin.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    props = schema["properties"]
    assert props["refreshInterval"]["default"] == 10 and props["refreshInterval"]["minimum"] == 0
    assert props["sidebarWidth"]["type"] == "integer" and props["sidebarWidth"]["default"] >= 200
    validator = jsonschema.Draft7Validator(schema)
    assert not list(validator.iter_errors({"refreshInterval": 0, "sidebarWidth": 400}))
    assert list(validator.iter_errors({"refreshInterval": -1}))
    assert list(validator.iter_errors({"refresh": 5}))  # a typo is an error, not ignored
