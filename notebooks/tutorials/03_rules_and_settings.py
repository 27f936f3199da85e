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
`%agent pending` and `%agent answer`, the magic form of the buttons."""),
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

