"""`pip install .` is enough: the wheel carries the prebuilt labextension and the file that
enables the server extension, and both show up as enabled.

The wheel is built from a copy of the source tree without any build output (as on a clean
machine: the build hook runs npm install and the JupyterLab builder), then installed with
``--no-deps`` into a fresh virtualenv that sees this environment's packages (whether this one
is a virtualenv or not); the extension lists are read with the virtualenv's interpreter, whose
prefix holds only what the wheel installed. A first test checks the environment the suite runs
in (``pip install -e``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(600)

REPO = Path(__file__).resolve().parents[2]
LABEXT = "share/jupyter/labextensions/jupyter-agenttools"
SERVER_CONFIG = "etc/jupyter/jupyter_server_config.d/jupyter_agenttools.json"


def _plain(text: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=540)
    out = _plain(proc.stdout + proc.stderr)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{out[-4000:]}"
    return out


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("JUPYTER_", "PYTHONPATH", "HATCH_JUPYTER_BUILDER"))}
    return env


def test_current_environment_has_both_extensions_enabled(tmp_path):
    env = _clean_env()
    labs = _run([sys.executable, "-m", "jupyterlab.labextensions", "list"], tmp_path, env)
    line = next((ln for ln in labs.splitlines() if "jupyter-agenttools" in ln), "")
    assert "enabled" in line and "OK" in line, labs
    servers = _run([sys.executable, "-m", "jupyter_server.extension.serverextension", "list"],
                   tmp_path, env)
    assert "jupyter_agenttools enabled" in servers, servers
    assert "jupyter_agenttools 0.1.0 OK" in servers, servers


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built by pip from a pristine copy of the sources."""
    src = tmp_path_factory.mktemp("src") / "jupyter_agenttools"
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(
        ".git", "node_modules", "lib", "build", "dist", "__pycache__", "*.egg-info",
        ".pytest_cache", ".hypothesis", "test-artifacts", ".agenttools", "tsconfig.tsbuildinfo"))
    shutil.rmtree(src / "jupyter_agenttools" / "labextension", ignore_errors=True)
    out = tmp_path_factory.mktemp("wheel")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check",
          str(src), "-w", str(out)], src.parent, _clean_env())
    wheels = list(out.glob("jupyter_agenttools-*.whl"))
    assert len(wheels) == 1, list(out.iterdir())
    return wheels[0]


def test_wheel_contains_the_prebuilt_labextension_and_server_config(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        data = next(n.split("/data/")[0] for n in names if ".data/data/" in n) + "/data/"
        assert data + f"{LABEXT}/package.json" in names
        assert data + f"{LABEXT}/install.json" in names
        assert data + f"{LABEXT}/static/style.js" in names
        remote = [n for n in names if n.startswith(data + f"{LABEXT}/static/remoteEntry.")]
        assert len(remote) == 1, remote
        meta = json.loads(zf.read(data + f"{LABEXT}/package.json"))
        assert meta["name"] == "jupyter-agenttools"
        assert meta["jupyterlab"]["_build"]["load"] == \
            "static/" + remote[0].rsplit("/", 1)[1]
        config = json.loads(zf.read(data + SERVER_CONFIG))
        assert config == {"ServerApp": {"jpserver_extensions": {"jupyter_agenttools": True}}}
        assert "jupyter_agenttools/jupyter/server.py" in names
        assert "jupyter_agenttools/permission/settings.schema.json" in names
        # eco (#17): typing marker, license, the panel's settings schema, one version
        assert "jupyter_agenttools/py.typed" in names
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names
        assert data + f"{LABEXT}/schemas/jupyter-agenttools/plugin.json" in names
        from jupyter_agenttools import __version__

        assert meta["version"] == __version__
        assert f"-{__version__}-" in wheel.name
        assert not [n for n in names if "node_modules" in n or n.endswith(".ts")]


def _venv_seeing_this_environment(venv: Path) -> str:
    """A fresh virtualenv whose interpreter also imports what this one imports (jupyterlab,
    jupyter_server, …) — the site-packages folders on our ``sys.path`` go into a ``.pth``
    file — but whose own prefix (share/jupyter, etc/jupyter, site-packages) starts empty.

    ``--system-site-packages`` is not enough: run from inside a virtualenv it exposes the base
    interpreter's packages, not the virtualenv's, and jupyterlab is missing."""
    _run([sys.executable, "-m", "venv", str(venv)], venv.parent)
    python = str(venv / "bin" / "python")
    own = _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
               venv.parent).strip().splitlines()[-1]
    ours = [p for p in sys.path if p.rstrip("/").endswith(("site-packages", "dist-packages"))
            and Path(p).is_dir()]
    assert ours, sys.path
    (Path(own) / "_this_environment.pth").write_text("".join(f"{p}\n" for p in ours))
    return python


def test_pip_install_of_the_wheel_enables_both(wheel, tmp_path):
    venv = tmp_path / "venv"
    python = _venv_seeing_this_environment(venv)
    env = _clean_env()
    _run([python, "-m", "pip", "install", "--no-deps", "--no-index",
          "--disable-pip-version-check", str(wheel)], tmp_path, env)
    assert (venv / LABEXT / "package.json").is_file()
    assert (venv / SERVER_CONFIG).is_file()

    labs = _run([python, "-m", "jupyterlab.labextensions", "list"], tmp_path, env)
    section = labs.split(str(venv / "share" / "jupyter" / "labextensions"), 1)
    assert len(section) == 2, labs  # the venv's own labextensions folder is listed …
    line = next((ln for ln in section[1].splitlines() if "jupyter-agenttools" in ln), "")
    assert "enabled" in line and "OK" in line, labs  # … with the extension, enabled

    servers = _run([python, "-m", "jupyter_server.extension.serverextension", "list"],
                   tmp_path, env)
    section = servers.split(f"Config dir: {venv / 'etc' / 'jupyter'}", 1)
    assert len(section) == 2, servers
    assert "jupyter_agenttools enabled" in section[1].split("Config dir:")[0], servers
    # and the module it loads is the one the wheel installed into the venv
    where = _run([python, "-c", "import jupyter_agenttools.jupyter.server as m; print(m.__file__)"],
                 tmp_path, env)
    assert where.strip().startswith(str(venv)), where
