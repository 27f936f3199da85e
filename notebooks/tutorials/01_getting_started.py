"""Tutorial 01 · Getting started"""

from _tutorial import setup

CELLS = [
    ("md", """\
# 01 · Getting started

Load the extension, give the agent a task, answer its one question.

This notebook runs offline: the model is a `ScriptedModel`, which plays back a fixed list of
turns, so every run looks the same. With a real model you would write
`%agent model openai:gpt-4.1-mini` (any OpenAI-compatible server; the key comes from
`OPENAI_API_KEY`) and everything below works the same way."""),
    ("code", setup("01")),
    ("md", """\
`%load_ext` created a *session* inside this kernel: a toolkit with the built-in tools (they run
in this kernel's working directory and environment), a permission engine that reads the
settings files of the project folder (the kernel's working directory when the extension
loaded), and an audit log."""),
    ("code", '''\
print("tools:", ", ".join(sorted(t.name for t in session.toolkit.tools)))
print("backend:", type(session.backend).__name__)
%agent mode'''),
    ("md", "Some data to work on:"),
    ("code", '''\
pathlib.Path("data").mkdir()
size = pathlib.Path("data/train.csv").write_text("city,temp\\nParis,18\\nLima,22\\nOslo,9\\n")'''),
    ("md", """\
The script plays the model's part: read the file, count its lines in the shell, write a
summary, then answer."""),
    ("code", '''\
model = ScriptedModel([
    [{"name": "Read", "input": {"file_path": "data/train.csv"}}],
    [{"name": "Bash", "input": {"command": "wc -l data/train.csv"}}],
    [{"name": "Write", "input": {"file_path": "notes/summary.md",
                                 "content": "# Summary\\n3 cities; the warmest is Lima (22).\\n"}}],
    "I wrote the summary to notes/summary.md.",
])
%agent model model'''),
    ("md", """\
`%%agent` starts the run in the background and shows its panel in the cell; the cell returns
at once. The run is bound to `agent_run` (choose another name with `--as NAME`)."""),
    ("code", "%%agent\nSummarise data/train.csv and write the summary to notes/summary.md"),
    ("md", """\
Reading a file of the project and `wc -l` are read-only: the engine allows them at once.
Writing a file is an edit, and in `default` mode the engine asks. In JupyterLab the question
is a card with buttons in the panel above. Here a later cell waits for it and answers: the
same code path as a click. (If you clicked a button on the card already, the cells below find
that answer and change nothing.)"""),
    ("code", '''\
ask = await agent_run.question(1, timeout=10)
print("tool:   ", ask.tool)
print("input:  ", ask.input["file_path"])
print("why:    ", ask.decision.reason)
print("offers: ", [rule.text for rule in ask.suggestions])'''),
    ("code", 'ask.answer("allow_once")  # False if a button on the card answered it first'),
    ("code", '''\
await agent_run.wait_done(timeout=10)
show(agent_run)
print(pathlib.Path("notes/summary.md").read_text())'''),
    ("md", "Every decision and every answer is in the project's audit log:"),
    ("code", '''\
for rec in session.audit.read(newest_first=False):
    # a decision, a person's answer, or what came of the call (its outcome)
    verdict = rec.get("behavior") or rec.get("state") or ""
    print(f'{rec["kind"]:8} {rec["tool"]:6} {verdict:8} {rec.get("answer") or ""}')'''),
    ("md", "`%agent audit N` shows the last N records as a table, with times:"),
    ("code", "%agent audit 4"),
    ("md", """\
A run you no longer want stops with the **Cancel** button of its panel, `agent_run.cancel()`,
or `%agent cancel` (every run still going). Its open questions close with it."""),
    ("code", '''\
spare_model = ScriptedModel([[{"name": "Bash", "input": {"command": "touch later.txt"}}],
                             "never said"])'''),
    ("code", "%%agent --model spare_model --as spare\nCreate later.txt"),
    ("code", '''\
await spare.question(1, timeout=10)
%agent cancel
await spare.wait_done(timeout=10)
print(spare.state, pathlib.Path("later.txt").exists())'''),
    ("md", "Next: **02** compares the five permission modes on the same tool calls."),
]

