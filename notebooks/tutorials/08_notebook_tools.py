"""Tutorial 08 · The agent and your notebook"""

from _tutorial import setup

CELLS = [
    ("md", """\
# 08 · The agent and your notebook

The agent lives in a notebook, so it gets four tools for it, behind the same permission engine
as the file and shell tools (same rules, modes, questions and audit log):

| tool | what it does | needs a question? |
|---|---|---|
| `NotebookRead` | the cells of a notebook: ids, sources, outputs (images as images) | no, inside the project |
| `NotebookEdit` | replace, insert or delete a cell | yes: it is a write (`accept_edits` allows it) |
| `RunCode` | runs Python in *this* kernel, on your variables | only when it is not proven read-only |
| `Inspect` | one variable's type, shape and value, without running your code | no |

Without `notebook_path`, `NotebookRead` and `NotebookEdit` work on the notebook the agent runs
in; when it is open in JupyterLab, edits go into the open document and you see them at once.
This tutorial runs headless, so it names a notebook file of its project instead."""),
    ("code", setup("08")),
    ("md", """\
The four tools are in the tool group `notebook`. A group is off until the model turns it on
with `reset_tools` (the model sees the group's description and can do so when it needs it), or
you turn it on for it:"""),
    ("code", '''\
print("notebook tools:", [t.name for t in session.toolkit.tools
                          if session.toolkit.group_of(t.name) == "notebook"])
print("active groups:", [g.name for g in session.toolkit.groups if g.active])'''),
    ("md", """\
Some data, and a small notebook to work on (written with nbformat, as JupyterLab would save
it):"""),
    ("code", '''\
import nbformat
import pandas as pd

df = pd.DataFrame({"city": ["Paris", "Lima", "Oslo"], "temp": [18.0, 22.0, 9.0]})
nb = nbformat.v4.new_notebook()
nb.cells = [nbformat.v4.new_markdown_cell("# Temperatures"),
            nbformat.v4.new_code_cell("df = load_data()"),
            nbformat.v4.new_code_cell("df.plot(x='city', y='temp')")]
for cell, cell_id in zip(nb.cells, ["title", "load", "plot"]):
    cell.id = cell_id
nbformat.write(nb, "analysis.ipynb")'''),
    ("md", """\
## What RunCode may run without asking

`RunCode`'s permission check is a Python analysis (with `ast`, like the shell analysis of
tutorial 04): code is read-only only when every statement is an expression, every function
and method it calls is in a table of known read-only ones (`len`, `df.head`, `df.describe`,
`np.mean`, `print`…), and every object it touches is a library object — a method, an operator
or a `repr` of one of *your* classes could run any code. The analysis asks your variables
what they are: `df` below is a real pandas DataFrame. Anything it cannot prove is a
question, with the reason:"""),
    ("code", '''\
engine = session.dry_engine()  # decides, writes no audit line
run_code = session.toolkit.find_tool("RunCode")
for code in ["df.head()", "df.temp.mean()", "df[df.temp > 10].city.tolist()",
             "df.to_csv('out.csv')", "df['temp_f'] = df.temp * 1.8 + 32",
             "getattr(__builtins__, 'exec')('import os')", "open('~/.ssh/id_rsa').read()"]:
    d = engine.decide(run_code, {"code": code})
    why = "" if d.behavior.value == "allow" else d.reason.split(": ", 2)[-1].split("; ")[0]
    print(f"{d.behavior.value:5} {code:45} {why}")'''),
    ("md", """\
## A run

The script plays the model: it turns the `notebook` group on, reads the notebook, looks at
`df`, computes something read-only, then adds a column to `df` and a cell to the notebook."""),
    ("code", '''\
model = ScriptedModel([
    [{"name": "reset_tools", "input": {"notebook": True}}],
    [{"name": "NotebookRead", "input": {"notebook_path": "analysis.ipynb"}}],
    [{"name": "Inspect", "input": {"name": "df"}}],
    [{"name": "RunCode", "input": {"code": "df.temp.describe()[['mean', 'max']]"}}],
    [{"name": "RunCode", "input": {"code": "df['temp_f'] = df.temp * 1.8 + 32"}}],
    [{"name": "NotebookEdit", "input": {"notebook_path": "analysis.ipynb", "cell_id": "plot",
                                        "edit_mode": "insert",
                                        "new_source": "df.plot(x='city', y='temp_f')"}}],
    "I added temp_f to df and a cell that plots it.",
])
%agent model model'''),
    ("code", "%%agent\nAdd the temperature in Fahrenheit and plot it."),
    ("md", """\
Reading the notebook, inspecting `df` and the read-only computation ran at once. Assigning a
column changes your data, so the engine asks; the new cell is an edit of the notebook file, so
it asks too. In JupyterLab each question is a card in the panel above (the notebook edit shows
the cell as a diff). Here later cells answer, the same code path as a click:"""),
    ("code", '''\
ask = await agent_run.question(1, timeout=30)
print(ask.tool, "|", ask.input["code"])
print("why:", ask.decision.reason.split(": ", 2)[-1])
ask.answer("allow_once")'''),
    ("code", '''\
ask = await agent_run.question(2, timeout=30)
print(ask.tool, "|", ask.input["edit_mode"], "after", ask.input["cell_id"])
print("offers:", [rule.text for rule in ask.suggestions])
ask.answer("allow_once")'''),
    ("code", '''\
await agent_run.wait_done(timeout=30)
show(agent_run)'''),
    ("md", "The run changed your data and your notebook:"),
    ("code", '''\
print(df)
print([c.source for c in nbformat.read("analysis.ipynb", 4).cells])'''),
    ("md", """\
`NotebookEdit` only edits what `NotebookRead` showed it: if the file (or, in JupyterLab, the
cell) changed since, it refuses and tells the model to read again, so your change is not lost.
A file edit is atomic: the notebook is never half-written.

## Inspect never runs your code

`Inspect` shows a variable without calling its methods. A library object (a DataFrame, an
array, a list of numbers) is shown with its own repr; an object of your classes is not, since
its `__repr__` could do anything:"""),
    ("code", '''\
class Experiment:
    def __repr__(self):
        print("user code ran!")
        return "Experiment()"

experiment = Experiment()
inspect_tool = session.toolkit.find_tool("Inspect")
print(inspect_tool.call("experiment").content[0]["text"])'''),
    ("md", """\
## Rules for RunCode

A `RunCode(...)` rule names **calls**, as dotted names (a glob), never a text prefix: an allow
rule vouches for the calls it names, and everything else in the code must still be proven
read-only. So `RunCode(model.predict)` allows `model.predict(X)` but not
`model.predict(X); os.remove("x")`, nor `result = model.predict(X)` (an assignment). Deny
and ask rules match any name the code mentions, as written or resolved (`np.save` is
`numpy.save`). File rules apply to the files RunCode's code reads or writes with a literal
path: `Edit(...)` denies `df.to_csv("…")` there, `Read(...)` denies `pd.read_csv("…")`."""),
    ("code", '''\
from jupyter_agenttools.permission.check import check

class Model:
    def predict(self, rows):
        return [0 for _ in rows]

clf = Model()
checks = [("allow", "RunCode(clf.predict)", "clf.predict([1, 2])"),
          ("allow", "RunCode(clf.predict)", "clf.predict([1]); df.to_csv('x.csv')"),
          ("deny", "Edit(exports/**)", "df.to_csv('exports/x.csv')"),
          ("deny", "RunCode(numpy.*)", "import numpy as np; np.save('a.npy', [1])")]
for behavior, rule, code in checks:
    d = check(run_code, {"code": code}, rules={behavior: [rule]}, cwd=str(project))
    print(f"{behavior} {rule:22} {code:42} -> {d.behavior.value}")'''),
    ("md", """\
## Modes

`RunCode` that is not proven read-only, and `NotebookEdit`, follow the mode table of tutorial
02: `explore` and `dont_ask` refuse them, `bypass` runs them, `accept_edits` allows notebook
edits inside the project (code still asks)."""),
    ("code", '''\
edit = session.toolkit.find_tool("NotebookEdit")
calls = [(run_code, {"code": "df.head()"}), (run_code, {"code": "x = 1"}),
         (edit, {"notebook_path": "analysis.ipynb", "new_source": "x"})]
print(f"{'':32}" + "".join(f"{m:>13}" for m in
      ["default", "accept_edits", "explore", "bypass", "dont_ask"]))
for tool, tool_input in calls:
    row = [session.dry_engine(m).decide(tool, tool_input).behavior.value
           for m in ["default", "accept_edits", "explore", "bypass", "dont_ask"]]
    label = f"{tool.name} {next(iter(tool_input.values()))}"[:32]
    print(f"{label:32}" + "".join(f"{v:>13}" for v in row))'''),
    ("md", """\
## A timeout that stops the code

`RunCode` runs the code in this kernel's main thread, like a cell, and stops it at `timeout`
(default 30 s) the way JupyterLab's *Interrupt kernel* does. The Interrupt button stops it
too. Here a run in `bypass` mode asks for a sleep of a minute with a one-second timeout:"""),
    ("code", '''\
sleeper = ScriptedModel([[{"name": "RunCode", "input": {"code": "import time\\ntime.sleep(60)",
                                                       "timeout": 1}}], "Stopped."])'''),
    ("code", "%%agent --model sleeper --mode bypass --as sleepy\nSleep a minute."),
    ("code", '''\
await sleepy.wait_done(timeout=30)
result = sleepy.tool_results[0]
print(result.state.value, "|", result.text.strip().splitlines()[-1])
print("timed out:", result.metadata["timed_out"])'''),
    ("md", """\
## In JupyterLab

With `%load_ext jupyter_agenttools` in a notebook opened in JupyterLab, the tools need no
`notebook_path`: the kernel knows its notebook (`JPY_SESSION_NAME`, set by Jupyter Server).
With real-time collaboration (`jupyter-collaboration`, installed with this package)
`NotebookRead` sees your unsaved changes and `NotebookEdit` writes into the open document:
the new cell appears while you watch, and a cell you are typing in is never overwritten (the
edit is refused if the cell changed since the agent read it). `NotebookRead` also tells the
agent which cell started it."""),
]
