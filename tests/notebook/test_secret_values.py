"""Secrets under harmless names: ``cfg = dict(os.environ)`` run by the user, then the agent's
``print(cfg)`` (read-only, allowed) or ``Inspect(cfg)``, or a notebook whose outputs show a
key. What the notebook tools show the model goes through ``tools/redact.py``: values shaped
like keys are replaced by a marker that says what was hidden; writing the marker back into a
cell or code is refused. The pattern table has a positive and a twin for each entry.

The fake keys are assembled at run time, so this file holds no key-shaped string."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import nbformat
import pytest

from jupyter_agenttools.builtin.notebook import NotebookHost, notebook_tools
from jupyter_agenttools.permission.check import check
from jupyter_agenttools.tools.base import ToolResponse
from jupyter_agenttools.tools.redact import MARKER, PATTERNS, redact
from jupyter_agenttools.tools.toolkit import Toolkit

R = "Ab3dEf6hIjKlMn0pQrStUvWxYz1234567890"  # a random-looking body
OPENAI = "sk-" + "proj-" + R + "abcdEFGH"
ANTHROPIC = "sk-" + "ant-api03-" + R
AWS_ID = "AK" + "IA" + "IOSFODNN7EXAMPL3"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
GITHUB = "gh" + "p_" + R
GITHUB_PAT = "github" + "_pat_" + R + "_" + R
GITLAB = "gl" + "pat-" + R[:20]
SLACK = "xo" + "xb-" + "123456789012-" + R[:16]
SLACK_HOOK = "https://hooks.slack.com/services/" + "T0123/B0456/" + R[:24]
GOOGLE = "AI" + "za" + (R + R)[:35]
STRIPE = "sk" + "_live_" + R[:24]
HUGGING = "h" + "f_" + R[:34]
JWT = "ey" + "JhbGciOiJIUzI1NiJ9." + "ey" + "JzdWIiOiIxMjM0NTY3ODkwIn0." + R
PEM = ("-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + R + "\n-----END RSA "
       "PRIVATE KEY-----")
OPENSSH_CUT = "-----BEGIN " + "OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAA" + R

# (text, the secret in it, what the marker names)
SECRETS = [
    (f"{{'OPENAI_API_KEY': '{OPENAI}', 'HOME': '/home/u'}}", OPENAI, "API key (sk-"),
    (f"key={ANTHROPIC}", ANTHROPIC, "Anthropic API key"),
    (f"id {AWS_ID}", AWS_ID, "AWS access key id"),
    (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET, "AWS secret access key"),
    (f"token {GITHUB}", GITHUB, "GitHub token"), (GITHUB_PAT, GITHUB_PAT, "GitHub token"),
    (f"{GITLAB} ok", GITLAB, "GitLab token"), (SLACK, SLACK, "Slack token"),
    (SLACK_HOOK, SLACK_HOOK, "Slack webhook"), (f"'{GOOGLE}'", GOOGLE, "Google API key"),
    (f"stripe {STRIPE}", STRIPE, "Stripe key"), (HUGGING, HUGGING, "Hugging Face token"),
    (f"Cookie: session={JWT}", JWT, "JSON web token"),
    (f"{PEM}\nnext line", PEM, "private key"), (repr(OPENSSH_CUT), OPENSSH_CUT[:40], "private key"),
    ("Authorization: Bearer " + R, R, "bearer token"),
    ("postgres://admin:" + "s3cretPa55" + "@db:5432/x", "s3cretPa55", "password in a URL"),
    ("{'DB_PASSWORD': '" + "hunter22hunter" + "'}", "hunter22hunter", "password"),
    ("'password': '" + "correcthorsebatterystaple" + "'", "correcthorsebatterystaple",
     "password"),
    ("--password=" + "opensesame", "opensesame", "password"),
    ("{'GITHUB_TOKEN': '" + R[:12] + "'}", R[:12], "value of a secret-named key"),
    ("ya29." + R, R, "Google OAuth token"),
    ("Authorization: Basic " + "dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==",
     "Authorization header"),
    ("SECRET_KEY = '" + "django-insecure-8x#k2@" + "'", "django-insecure-8x#k2@",
     "value of a secret-named key"),
    ("CLIENT_SECRET=" + R[:20], R[:20], "value of a secret-named key"),
]

# twins: the same words and shapes, no secret (nothing is hidden)
HARMLESS = [
    "{'bos_token': '<|endoftext|>', 'max_tokens': 4096, 'token_count': 123456789}",
    "sk-learn-pipeline-step-number-three", "password: ********", "{'api_key': None}",
    "commit 4e86c4b0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6", "https://example.com/a/b?c=d",
    "id,token_id\n1,abc123def456", "sk_live_ is Stripe's prefix",
    "columns: secret_santa, password_hash", "{'tokenizer': 'bert-base-uncased'}",
    "uuid 123e4567-e89b-12d3-a456-426614174000", "{'password': '********'}",
    "[{'token': 'The', 'pos': 'DT'}, {'token': 'cat', 'pos': 'NN'}]", "max_tokens=100",
    "password = getpass()", "password = os.environ['DB_PASSWORD']",
    "{'password': None, 'user': 'ana'}", "DB_PASSWORD=$DB_PASSWORD",
    "AKIA is the prefix of AWS key ids", "ghp_ tokens are GitHub's", "eyJ is base64 for {\"",
    "-----BEGIN CERTIFICATE-----\nMIIB" + R + "\n-----END CERTIFICATE-----",
    "-----BEGIN PUBLIC KEY-----\nMIIB" + R, "https://user@example.com/repo.git",
    "Bearer tokens go in the Authorization header", "df.describe()\n       temp\ncount  2.0",
    "hf_hub_download(repo_id='gpt2')", "x = 'AIza'", "{'pwd': '/home/user/project'}",
]


@pytest.mark.parametrize("text,secret,kind", SECRETS, ids=[k for _t, _s, k in SECRETS])
def test_a_secret_shaped_value_is_hidden(text, secret, kind):
    shown, hidden = redact(text)
    assert secret not in shown
    assert MARKER + kind in shown, shown
    assert hidden


@pytest.mark.parametrize("text", HARMLESS)
def test_its_twins_are_shown_as_they_are(text):
    assert redact(text) == (text, [])


def test_every_pattern_says_why_and_has_a_case():
    named = {kind for _t, _s, kind in SECRETS}
    for pattern in PATTERNS:
        assert pattern.why
        assert any(pattern.name.startswith(kind) or kind in pattern.name for kind in named), \
            pattern.name


def test_hiding_is_idempotent_and_never_hides_the_marker():
    once, _ = redact(SECRETS[0][0])
    assert redact(once) == (once, [])


# --- the tools -----------------------------------------------------------------------------------
@pytest.fixture
def tools(tmp_path: Path):
    nb = nbformat.v4.new_notebook()
    shown = nbformat.v4.new_code_cell("cfg = dict(os.environ)\nprint(cfg)", execution_count=1)
    shown.outputs = [nbformat.v4.new_output(
        "stream", name="stdout", text=f"{{'OPENAI_API_KEY': '{OPENAI}'}}\n")]
    typed = nbformat.v4.new_code_cell(f"client = Client(key='{GITHUB}')")
    long = nbformat.v4.new_code_cell("print(log)")
    long.outputs = [nbformat.v4.new_output("stream", name="stdout",
                                           text="x" * 20000 + f" {AWS_ID} " + "y" * 100)]
    nb.cells = [shown, typed, long]
    path = tmp_path / "work.ipynb"
    path.write_text(nbformat.writes(nb, version=4))
    namespace: dict[str, Any] = {"cfg": {"OPENAI_API_KEY": OPENAI, "HOME": "/home/u",
                                         "GITHUB_TOKEN": GITHUB},
                                 "settings": {"db": "postgres://app:" + "s3cretPa55" + "@db/x"}}
    host = NotebookHost(namespace, notebook_path=str(path), offload_dir=str(tmp_path / "off"))
    by_name = {t.name: t for t in notebook_tools(host)}
    toolkit = Toolkit(list(by_name.values()))

    def call(name: str, tool_input: dict[str, Any]) -> ToolResponse:
        async def go() -> ToolResponse:
            last = None
            async for item in toolkit.call_tool(by_name[name], tool_input):
                last = item
            return last

        return asyncio.run(go())

    return by_name, call, tmp_path, nb


@pytest.mark.parametrize("code", ["print(cfg)", "cfg", "str(cfg)", "cfg['OPENAI_API_KEY']",
                                  "list(cfg.values())", "print(settings)", "repr(cfg)"])
def test_runcode_allows_the_read_and_hides_the_value(tools, code):
    by_name, call, tmp_path, _nb = tools
    decision = check(by_name["RunCode"], {"code": code}, mode="default", cwd=str(tmp_path))
    assert decision.behavior.value == "allow"  # read-only: it runs without a question…
    result = call("RunCode", {"code": code})
    assert not result.is_error, result.text
    for secret in (OPENAI, GITHUB, "s3cretPa55"):
        assert secret not in result.text  # …and the model never sees the key
    assert MARKER in result.text and result.metadata["secrets_hidden"] >= 1
    assert "/home/u" in result.text or "settings" in code or "OPENAI" in code


@pytest.mark.parametrize("name", ["cfg", "settings"])
def test_inspect_hides_the_value(tools, name):
    _by_name, call, _tmp, _nb = tools
    result = call("Inspect", {"name": name})
    assert not result.is_error
    assert OPENAI not in result.text and "s3cretPa55" not in result.text
    assert MARKER in result.text and "type: dict" in result.text


def test_notebook_read_hides_outputs_sources_and_offloaded_text(tools):
    _by_name, call, _tmp, _nb = tools
    result = call("NotebookRead", {})
    assert not result.is_error
    for secret in (OPENAI, GITHUB, AWS_ID):
        assert secret not in result.text
    assert result.metadata["secrets_hidden"] == 3
    for offloaded in result.metadata["offloaded"]:  # the cut output's full text, for the model
        text = Path(offloaded).read_text()
        assert AWS_ID not in text and MARKER in text


def test_writing_the_marker_back_is_refused(tools):
    _by_name, call, _tmp, nb = tools
    read = call("NotebookRead", {})
    cell = nb.cells[1]
    shown = read.text.split(f'id="{cell.id}"', 1)[1].split("</cell>", 1)[0]
    source = shown.split("\n", 1)[1].rstrip("\n")
    assert MARKER in source
    edit = call("NotebookEdit", {"cell_id": cell.id, "new_source": source + "\nprint(1)"})
    assert edit.is_error and "marker" in edit.text
    run = call("RunCode", {"code": f"key = '{MARKER}GitHub token]'"})
    assert run.is_error and "marker" in run.text
    # the same edit without the marker goes through
    assert not call("NotebookEdit", {"cell_id": cell.id, "new_source": "print(1)"}).is_error


# --- in a real kernel: the user's cell copies the environment, the agent prints it -------------
@pytest.mark.kernel
def test_in_a_kernel_a_copied_environment_reaches_the_model_without_its_keys(tmp_path: Path):
    import json

    from test_notebook_kernel import SETUP, KernelDriver, isolated_env, run_report

    project = tmp_path / "project"
    project.mkdir()
    env = isolated_env(tmp_path)
    env["SERVICE_API_KEY"], env["DEPLOY_TOKEN"] = OPENAI, GITHUB
    kernel = KernelDriver(project, env)
    try:
        kernel.run(SETUP)
        kernel.run("import os\ncfg = dict(os.environ)")  # the user's cell
        calls = [[{"name": "RunCode", "input": {"code": "print(cfg)"}}],
                 [{"name": "RunCode", "input": {"code": "cfg"}}],
                 [{"name": "Inspect", "input": {"name": "cfg"}}], "done"]
        kernel.run(f"model = ScriptedModel(json.loads({json.dumps(json.dumps(calls))}))\n"
                   "session.toolkit.set_active_groups({'notebook': True})")
        kernel.run("%%agent --model model --mode default\nshow the config")
        report = run_report(kernel, "print(json.dumps(await drive(agent_run)))")
    finally:
        kernel.stop()
    assert report["asked"] == []  # read-only: no question…
    assert [state for _name, state, _text in report["results"]] == ["success"] * 3
    for name, _state, text in report["results"]:
        assert OPENAI not in text and GITHUB not in text  # …and no key reaches the model
        if name == "RunCode":  # the whole dict is shown (Inspect's repr is cut at 4000)
            assert MARKER in text and "SERVICE_API_KEY" in text
