"""Tutorial 09 · The Bash sandbox"""

from _tutorial import setup

CELLS = [
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
# (2>&1: one stream, so the lines come in the same order every time)
probe = (f"exec 2>&1; cat .env; echo \\"key: $DEMO_API_KEY\\"; "
         f"exec 3<>/dev/tcp/127.0.0.1/{port} && head -1 <&3")'''),
    ("md", """\
Without the sandbox, a command sees the secret, the key and the network — and the engine asks
before running anything that is not read-only:"""),
    ("code", "%agent check python make_report.py > report.txt"),
    ("code", "%agent sandbox status"),
    ("code", "await bash(probe)"),
    ("md", "Now the same command in the sandbox:"),
    ("code", "%agent sandbox on"),
    ("code", "await bash(probe)"),
    ("md", """\
The `.env` file cannot be read, the key is gone and the connection is refused: the command has
a network of its own with nothing in it. Writing works in the project, not outside it, and not
to the agent's own settings:"""),
    ("code", '''\
await bash("exec 2>&1; echo note > notes.txt && cat notes.txt; "
           "echo x > ~/agenttools-tutorial-09.txt; "
           "mkdir -p .agenttools && echo '{}' > .agenttools/settings.local.json")'''),
    ("md", """\
The permission engine knows this too. In the default mode, a command that is not read-only is
asked about — unless the sandbox confines it: its writes land in the project, what it runs
stays inside, it has no network. Then it runs without a question,
and the trace says why (step 4, the Bash tool's own check):"""),
    ("code", "%agent check python make_report.py > report.txt"),
    ("md", """\
Still asked, sandbox or not: secrets, files that run code later, writes outside the project,
shell text the analysis cannot read — and deny and ask rules always apply:"""),
    ("code", "%agent check echo x > ~/notes.txt"),
    ("code", '''\
%agent rule deny "Bash(python:*)"
%agent check python make_report.py > report.txt'''),
    ("code", '%agent rule deny "Bash(python:*)" --remove'),
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
