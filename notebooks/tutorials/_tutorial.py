"""What every tutorial shares: the set-up cell and the ``show`` helper.

A tutorial is a file ``NN_name.py`` in this folder that defines ``CELLS``, a list of
``("md", text)`` and ``("code", source)`` pairs; ``notebooks/make_tutorials.py`` finds it by its
name, writes ``notebooks/NN_name.ipynb`` and executes it. Start a tutorial with
``("code", setup("NN"))``; the ``show(run)`` helper cell is inserted right after it.

Answer cells must work whether the reader clicked the card first or not: fetch a question with
``ask = await agent_run.question(N)`` (the run's N-th question, answered or not) rather than
``next_ask()``, and remember that ``ask.answer(...)`` does nothing (returns False) when a button
already answered it.
"""

from __future__ import annotations

__all__ = ["setup", "SHOW"]


def setup(number: str) -> str:
    """The first code cell: a fresh project folder of its own, then ``%load_ext``."""
    return f'''\
# Every run starts in a new empty project folder of its own (two runs never share one), so this
# notebook's outputs are the same each time. Your real user settings stay out of it too.
import atexit, os, pathlib, shutil, sys, tempfile
here = pathlib.Path.cwd()  # this notebook's folder
project = pathlib.Path(tempfile.mkdtemp(prefix="agenttools-tutorial-{number}-"))
atexit.register(shutil.rmtree, project, True)  # removed when the kernel shuts down
os.environ["AGENTTOOLS_USER_DIR"] = str(project / "user-settings")
os.environ["AGENTTOOLS_MANAGED_SETTINGS"] = str(project / "managed-settings.json")
os.chdir(project)

%load_ext jupyter_agenttools
from jupyter_agenttools import ScriptedModel
from jupyter_agenttools.jupyter import current_session
session = current_session()'''


SHOW = '''\
def show(run):
    """The run's tool results and its final answer, as plain text."""
    for r in run.tool_results:
        text = r.text.strip().replace(str(project), "<project>")
        first = text.splitlines()[0] if text else ""
        print(f"{r.name:8} {r.state.value:8} {first[:90]}")
    print("answer:", run.result)'''
