"""What a kernel tells the panel: ``%load_ext`` writes the session's state file and keeps it
current (mode, rules, open questions, conversation); unloading removes it. A real kernel,
with its runtime folder in the test's temp folder."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest
from kernel_harness import KernelDriver, isolated_env

from jupyter_agenttools.jupyter.state_fields import check_state

pytestmark = pytest.mark.kernel


@pytest.fixture
def runtime(tmp_path: Path) -> Path:
    return tmp_path / "runtime"


class ServerLikeKernel(KernelDriver):
    """A kernel whose connection file is named as jupyter-server names it
    (``kernel-<id>.json``), which is how the kernel knows its id."""

    def __init__(self, cwd: Path, env: dict[str, str], runtime: Path):
        from jupyter_client.manager import KernelManager

        runtime.mkdir(parents=True, exist_ok=True)
        self.kernel_id = str(uuid.uuid4())
        self.km = KernelManager(kernel_name="python3",
                                connection_file=str(runtime / f"kernel-{self.kernel_id}.json"))
        self.km.start_kernel(cwd=str(cwd), env=env)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)
        self.models, self.streams, self.idle = {}, {}, set()


@pytest.fixture
def kernel(project: Path, tmp_path: Path, runtime: Path):
    env = isolated_env(tmp_path)
    env["JUPYTER_RUNTIME_DIR"] = str(runtime)
    driver = ServerLikeKernel(project, env, runtime)
    try:
        yield driver
    finally:
        driver.stop()


def _state(runtime: Path, until=lambda s: True, timeout: float = 15) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        files = [f for f in (runtime / "agenttools").glob("kernel-*.json")]
        if files:
            state = json.loads(files[0].read_text())
            if until(state):
                return state
        if time.monotonic() > deadline:
            raise AssertionError(f"no state file matching the condition: {files}")
        time.sleep(0.1)


def test_state_file_follows_mode_rules_questions_and_unload(kernel, project, runtime):
    kernel.run("%load_ext jupyter_agenttools")
    state = _state(runtime)
    assert (runtime / "agenttools" / f"kernel-{kernel.kernel_id}.json").is_file()
    assert state["project_dir"] == str(project.resolve())
    assert (state["mode"], state["session_override"]) == ("default", False)
    assert state["pending"] == [] and state["conversation"] == {"prompts": 0}

    kernel.run('%agent mode accept_edits\n%agent rule allow "Bash(make test:*)"')
    state = _state(runtime, lambda s: s["session_rules"])
    assert (state["mode"], state["mode_source"], state["session_override"]) == (
        "accept_edits", "set in this kernel", True)
    assert state["session_rules"] == [{"behavior": "allow", "rule": "Bash(make test:*)"}]

    kernel.run("from jupyter_agenttools import ScriptedModel\n"
               "m = ScriptedModel([[{'name': 'Bash', 'input': {'command': 'python3 -c 1'}}],"
               " 'ok'])")
    kernel.run("%%agent --model m --as job\nWhich Python?")
    state = _state(runtime, lambda s: s["pending"])
    (question,) = state["pending"]
    assert question["title"] == "Bash: python3 -c 1" and question["run"] == "job"
    assert "accept_edits mode" in question["why"]
    assert check_state(kernel.kernel_id, state) == state  # the server keeps all a kernel writes

    kernel.run(f"%agent answer {question['id']} allow_once")
    state = _state(runtime, lambda s: not s["pending"] and not s["runs"]["active"])
    assert state["conversation"] == {"prompts": 1}

    kernel.run("%unload_ext jupyter_agenttools")
    assert not list((runtime / "agenttools").glob("kernel-*.json"))


def test_state_file_carries_the_tokens_a_real_server_reported(kernel, project, runtime):
    """A run against a real OpenAI-protocol server (tests/agent/openai_fake_server.py) that
    reports usage: the state file the panel reads holds the last run's and the total."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agent"))
    from openai_fake_server import FakeOpenAIServer, text_deltas

    with FakeOpenAIServer() as server:
        server.script = [{"chunks": text_deltas("Hello"),
                          "usage": {"prompt_tokens": 11, "completion_tokens": 7,
                                    "total_tokens": 18}},
                         {"chunks": text_deltas("Again"),
                          "usage": {"prompt_tokens": 30, "completion_tokens": 2,
                                    "total_tokens": 32}}]
        kernel.run("import os\nos.environ['FAKE_KEY'] = 'not-a-secret'\n"
                   "%load_ext jupyter_agenttools\n"
                   f"%agent model openai:fake --base-url {server.base_url} "
                   "--api-key-env FAKE_KEY")
        assert _state(runtime)["usage"]["total"]["model_calls"] == 0
        kernel.run("%%agent --wait\nSay hello.", timeout=60)
        kernel.run("%%agent --wait\nSay it again.", timeout=60)
        state = _state(runtime, lambda s: s["usage"]["total"]["model_calls"] == 2)
    assert state["usage"]["last_run"]["total_tokens"] == 32
    assert (state["usage"]["total"]["prompt_tokens"], state["usage"]["total"]["total_tokens"]
            ) == (41, 50)
    assert check_state("k", state) == state


@pytest.mark.parametrize("stop", ["%agent cancel", "job.cancel()"])
def test_a_cancelled_run_leaves_no_open_question_in_the_state(kernel, runtime, stop):
    """The status-bar badge and the notification follow the state file: a question closed by
    a cancel must leave it."""
    kernel.run("%load_ext jupyter_agenttools\n"
               "from jupyter_agenttools import ScriptedModel\n"
               "m = ScriptedModel([[{'name': 'Bash', 'input': {'command': 'touch x.txt'}}],"
               " 'never'])")
    kernel.run("%%agent --model m --as job\nTouch it.")
    assert _state(runtime, lambda s: s["pending"])["pending"]
    kernel.run(f"await job.question(1, timeout=10)\n{stop}\nawait job.wait_done(timeout=10)")
    state = _state(runtime, lambda s: not s["runs"]["active"])
    assert state["pending"] == []
