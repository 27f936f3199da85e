"""Tutorial 07 · Backends"""

from _tutorial import setup

CELLS = [
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
ask = await agent_run.question(1, timeout=20)
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

