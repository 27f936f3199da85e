"""Tutorial 03 · Rules, suggestions and settings files"""

from _tutorial import setup

CELLS = [
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
`%agent pending` and `%agent answer`, the magic form of the buttons. (Answering on the card
instead? Choose **Always allow** to follow along: the cells below show the rule it saved.)"""),
    ("code", '''\
first = ScriptedModel([[{"name": "Bash", "input": {"command": "date > report.txt"}}], "Dated."])
second = ScriptedModel([[{"name": "Bash", "input": {"command": "date > summary.txt"}}], "Again."])'''),
    ("code", "%%agent --model first\nCreate report.txt"),
    ("code", '''\
ask = await agent_run.question(1, timeout=10)
%agent pending'''),
    ("code", "%agent answer {ask.id} always"),
    ("code", '''\
await agent_run.wait_done(timeout=10)
show(agent_run)
local = pathlib.Path(".agenttools/settings.local.json")
print(local.read_text() if local.exists() else "no rule saved: the question was answered "
      "with another button than Always allow")'''),
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
    ("md", """\
## Rules apply by effect, across tools

A `Read(...)` rule is about *reading those files*, whichever tool does it: the Read tool, the
folders Grep and Glob search (and what they traverse), a Bash command's reads. `Edit(...)` and
`Write(...)` are one family for every write. Paths are resolved the way the kernel does,
symlinks first, so another name for the folder does not get around the rule."""),
    ("code", '''\
(project / "data" / "secret").mkdir(parents=True)
(project / "data" / "secret" / "a.txt").write_text("s")
(project / "data" / "x.txt").write_text("x")
os.symlink(project / "data" / "secret", project / "hidden")  # a second name for it
%agent rule deny "Read(data/secret/**)"
%agent rule deny "Write(*.env)"'''),
    ("code", '''\
CALLS = [
    ("Read", {"file_path": "data/secret/a.txt"}),
    ("Read", {"file_path": "hidden/a.txt"}),
    ("Grep", {"pattern": "s", "path": "data"}),          # traverses data/secret
    ("Glob", {"pattern": "data/secret/*"}),
    ("Read", {"file_path": "data/x.txt"}),
    ("Write", {"file_path": "config.env", "content": "K=1"}),
    ("Write", {"file_path": "/tmp/elsewhere.env", "content": "K=1"}),  # a name: anywhere
]
for name, tool_input in CALLS:
    d = session.dry_engine().decide(session.toolkit.find_tool(name), tool_input)
    rule = d.rule.text if d.rule else ""
    print(f"{name:5} {str(list(tool_input.values())[:2]):42} {d.behavior.value:5} {rule}")'''),
    ("md", """\
Pattern anchors follow Claude Code: `/data/**` is the project's `data/`, `//etc/hosts` an
absolute path, `~/notes/**` the home, and a pattern without `/` (`*.env`, `**/*.pem`) a file
name **anywhere**, inside the project or not. The README's *Rules* section has the table.

## Trust: a project's own settings

Settings files can come with a folder — a cloned repository might ship an
`.agenttools/settings.json` that says `"mode": "bypass"`. Such a file's **deny and ask rules
apply at once**; its **allow rules, mode and additional directories count only once you trust
the folder**. Here one arrives "from elsewhere" (written straight to disk, not through us):"""),
    ("code", '''\
import json
settings_file = project / ".agenttools" / "settings.json"
shipped = json.loads(settings_file.read_text())
shipped["permissions"].update(mode="bypass", allow=["Bash(curl:*)"])
settings_file.write_text(json.dumps(shipped, indent=2))
%agent rules'''),
    ("code", '''\
print("mode:", session.engine.mode)
%agent trust --show'''),
    ("md", """\
The held-back parts are listed, not dropped. `%agent trust` (or `agenttools trust DIR`, or the
panel's button) puts them in force; the trust is stored in *your* user settings with a hash of
those parts, so a later change to them — a `git pull`, an edit — asks again. Your own
"Always allow" answers keep a trusted folder trusted."""),
    ("code", '''\
%agent trust
print("mode:", session.engine.mode)'''),
    ("code", '''\
%agent trust --revoke
print("mode:", session.engine.mode)'''),
    ("md", "Next: **04** looks inside the shell analysis behind these decisions."),
]

