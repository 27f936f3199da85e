"""The extension's configuration: traits settable with ``%config`` and ``ipython_config.py``.

    %config AgentTools.mode = "accept_edits"
    %config AgentTools.model = "openai:llama3.1"
    %config AgentTools.base_url = "http://localhost:11434/v1"
    c.AgentTools.max_turns = 10            # in ipython_config.py

A change of ``mode`` reaches the running engine at once (see ``extension.AgentSession``);
the other traits are read when the next run starts.
"""

from __future__ import annotations

import os

from traitlets import Bool, Dict, Enum, Float, Int, TraitError, Unicode, default, validate
from traitlets.config import Configurable

from ..backends.sandbox_settings import SandboxSettingsError, parse_sandbox_settings
from ..permission.types import PermissionMode

__all__ = ["AgentTools", "MODES", "BACKENDS"]

MODES = tuple(m.value for m in PermissionMode)
BACKENDS = ("kernel", "local")


class AgentTools(Configurable):
    """Settings of ``%load_ext jupyter_agenttools`` (one instance per IPython shell)."""

    mode = Unicode(
        "",
        help="Permission mode of the kernel's engine: default, accept_edits, explore, bypass, "
        "dont_ask. Empty: the mode of the settings files (else default).",
    ).tag(config=True)

    model = Unicode(
        help="Model spec for load_model (e.g. 'openai:gpt-4.1-mini'), or the name of a variable "
        "in the user namespace holding a model object. Env AGENTTOOLS_MODEL sets the default.",
    ).tag(config=True)

    base_url = Unicode(
        "",
        help="For openai:NAME models: the OpenAI-compatible server's URL, e.g. "
        "'http://localhost:11434/v1' (Ollama). Empty: OPENAI_BASE_URL, else api.openai.com.",
    ).tag(config=True)

    api_key_env = Unicode(
        "",
        help="For openai:NAME models: the environment variable holding the API key, e.g. "
        "'AZURE_OPENAI_API_KEY'. Empty: OPENAI_API_KEY (a local server needs none).",
    ).tag(config=True)

    max_turns = Int(20, help="Most model turns one run may take.").tag(config=True)

    tool_time_limit = Float(
        300.0,
        help="Seconds one tool call may run before it is stopped, for tools without a limit of "
        "their own (Bash: its timeout + 30 s). 0: no limit.",
    ).tag(config=True)

    output_budget = Int(
        0, help="Characters of one tool result shown to the model before it is cut and "
        "offloaded to a file; 0 keeps the agent's default.",
    ).tag(config=True)

    backend = Enum(
        BACKENDS, default_value="kernel",
        help="Where the built-in tools run: 'kernel' (this kernel's cwd and environment) or "
        "'local' (subprocesses of the kernel's process, fixed cwd).",
    ).tag(config=True)

    project_dir = Unicode(
        "",
        help="Project directory whose .agenttools/ settings layers the engine uses. "
        "Empty: the kernel's current directory when the extension loads.",
    ).tag(config=True)

    run_name = Unicode(
        "agent_run", help="Variable that %%agent binds the run to unless --as is given."
    ).tag(config=True)

    system_prompt = Unicode("", help="Extra system prompt for every run.").tag(config=True)

    wait = Bool(
        False, help="Make every %%agent cell wait for its run (needs ipykernel >= 7.4)."
    ).tag(config=True)

    sandbox = Dict(
        help='This session\'s "sandbox" setting, above the settings files (only the managed '
        'layer is higher): {"enabled": true, "network": false, "writable": [...], "hidden": '
        '[...], "env_allow": [...], "required": false}. `%agent sandbox on|off` sets '
        '"enabled". Bash then runs in bubblewrap (backends/sandbox.py).',
    ).tag(config=True)

    @default("model")
    def _model_from_env(self) -> str:
        return os.environ.get("AGENTTOOLS_MODEL", "")

    @validate("mode")
    def _check_mode(self, proposal):
        value = proposal["value"]
        if value == "":
            return value
        try:
            mode = PermissionMode.parse(value).value
        except ValueError as exc:
            raise TraitError(str(exc)) from None
        from ..permission.lockdown import managed_lockdown

        why = managed_lockdown().why_not(mode)  # a session never overrides the managed layer
        if why is not None:
            raise TraitError(f"cannot use the {mode} mode: {why}")
        return mode

    @validate("sandbox")
    def _check_sandbox(self, proposal):
        try:
            parse_sandbox_settings(proposal["value"], "AgentTools.sandbox")
        except SandboxSettingsError as exc:
            raise TraitError(str(exc)) from None
        return proposal["value"]

    @validate("tool_time_limit")
    def _check_tool_time_limit(self, proposal):
        value = proposal["value"]
        if not 0 <= value < float("inf"):  # NaN fails both comparisons
            raise TraitError(f"tool_time_limit must be a number of seconds >= 0 (0: no "
                             f"limit), got {value!r}")
        return value

    @validate("max_turns")
    def _check_turns(self, proposal):
        if proposal["value"] < 1:
            raise TraitError(f"max_turns must be >= 1, got {proposal['value']}")
        return proposal["value"]
