"""The ``sandbox`` settings key: checked values, merged layers, the settings files, and what
the sensitive table turns into (mask and protect candidates)."""

from __future__ import annotations

import json

import pytest

from jupyter_agenttools.backends.sandbox import SandboxController, build_spec
from jupyter_agenttools.backends.sandbox_settings import (
    SandboxPolicy,
    SandboxSettingsError,
    merge_sandbox_layers,
    parse_sandbox_settings,
    policy_from_settings,
)
from jupyter_agenttools.errors import SettingsError
from jupyter_agenttools.permission.settings import SettingsStore


@pytest.mark.parametrize("value,error", [
    ({"enabeld": True}, "did you mean 'enabled'"),
    ({"network": "no"}, "network: must be true or false"),
    ({"required": 1}, "required: must be true or false"),
    ({"writable": "/data"}, "writable: must be a list"),
    ({"hidden": [""]}, "hidden: must be a list of non-empty strings"),
    ({"env_allow": ["OPENAI API KEY"]}, "is not a variable name"),
    ({"env_allow": ["*"]}, "is not a variable name"),
    ([True], "must be an object"),
])
def test_bad_values_are_clear_errors(value, error):
    with pytest.raises(SandboxSettingsError, match=error):
        parse_sandbox_settings(value)


def test_good_values_parse():
    assert parse_sandbox_settings({"enabled": True, "env_allow": ["LC_*", "HF_TOKEN"],
                                   "writable": ["~/.cache", "data"]}) == {
        "enabled": True, "env_allow": ("LC_*", "HF_TOKEN"), "writable": ("~/.cache", "data")}
    assert parse_sandbox_settings(None) == {}


# Layers, highest first: managed, session, local, project, user.
@pytest.mark.parametrize("layers,trusted,expected", [
    ({"user": {"enabled": True}}, True, dict(enabled=True)),
    ({"user": {"enabled": True}, "project": {"enabled": False}}, True, dict(enabled=False)),
    # an untrusted project may tighten at once, never loosen
    ({"user": {"enabled": True}, "project": {"enabled": False}}, False, dict(enabled=True)),
    ({"project": {"enabled": True, "required": True}}, False,
     dict(enabled=True, required=True)),
    ({"user": {"enabled": True}, "local": {"network": True}}, False, dict(network=False)),
    ({"user": {"enabled": True}, "local": {"network": True}}, True, dict(network=True)),
    # the managed layer wins over the session (%agent sandbox off)
    ({"managed": {"enabled": True}, "session": {"enabled": False}}, True, dict(enabled=True)),
    ({"session": {"enabled": True}, "user": {"enabled": False}}, True, dict(enabled=True)),
], ids=lambda v: json.dumps(v) if isinstance(v, dict) else str(v))
def test_scalars_highest_layer_wins_untrusted_project_only_tightens(layers, trusted, expected):
    parsed = {k: parse_sandbox_settings(v) for k, v in layers.items()}
    policy = merge_sandbox_layers(parsed, trusted=trusted)
    for key, value in expected.items():
        assert getattr(policy, key) == value, (key, policy)


def test_lists_merge_and_untrusted_projects_add_only_hidden(tmp_path):
    layers = {
        "user": parse_sandbox_settings({"writable": ["~/.cache"], "env_allow": ["HF_HOME"]}),
        "project": parse_sandbox_settings({"writable": ["/"], "hidden": ["secrets"],
                                           "env_allow": ["OPENAI_API_KEY"]}),
    }
    bases = {"project": str(tmp_path)}
    trusted = merge_sandbox_layers(layers, trusted=True, base_dirs=bases)
    assert trusted.writable == ("/", "~/.cache")
    assert trusted.env_allow == ("OPENAI_API_KEY", "HF_HOME")
    assert trusted.hidden == (str(tmp_path / "secrets"),)  # relative: from the layer's folder
    untrusted = merge_sandbox_layers(layers, trusted=False, base_dirs=bases)
    assert untrusted.writable == ("~/.cache",)
    assert untrusted.env_allow == ("HF_HOME",)
    assert untrusted.hidden == (str(tmp_path / "secrets"),)


def test_required_turns_the_sandbox_on():
    controller = SandboxController(SandboxPolicy(required=True))
    assert controller.policy().enabled


def _store(tmp_path, **layers):
    project = tmp_path / "project"
    (project / ".agenttools").mkdir(parents=True, exist_ok=True)
    paths = {"project": project / ".agenttools" / "settings.json",
             "local": project / ".agenttools" / "settings.local.json",
             "user": tmp_path / "user" / "settings.json",
             "managed": tmp_path / "managed.json"}
    for layer, data in layers.items():
        paths[layer].parent.mkdir(parents=True, exist_ok=True)
        paths[layer].write_text(data if isinstance(data, str) else json.dumps(data))
    return SettingsStore(project, user_dir=tmp_path / "user",
                         managed_path=tmp_path / "managed.json")


def test_settings_files_carry_the_key(tmp_path):
    store = _store(tmp_path, user={"sandbox": {"enabled": True, "writable": ["data"]}},
                   managed={"sandbox": {"required": True}},
                   project={"permissions": {"allow": []}, "sandbox": {"network": True}})
    merged = store.load()
    policy = policy_from_settings(merged, project_root=str(store.project_root),
                                  user_dir=str(store.user_dir))
    assert (policy.enabled, policy.required, policy.network) == (True, True, True)
    assert policy.writable == (str(tmp_path / "user" / "data"),)
    assert policy.sources == {"enabled": "user", "required": "managed", "network": "project"}
    # the session's override sits under the managed layer only
    policy = policy_from_settings(merged, session={"enabled": False, "network": False})
    assert (policy.enabled, policy.network) == (True, False)


def test_a_bad_sandbox_value_in_a_file_names_file_and_line(tmp_path):
    store = _store(tmp_path, project='{\n  "sandbox": {"enabled": "yes"}\n}\n')
    with pytest.raises(SettingsError) as info:
        store.load()
    text = str(info.value)
    assert "settings.json:2" in text and "enabled" in text


def test_table_becomes_mask_and_protect_candidates():
    spec = build_spec(SandboxPolicy(enabled=True, hidden=("~/private",)), ["/work/p"])
    assert {"~/.ssh", "~/.aws", "~/.config/gh", "~/private"} <= set(spec.mask)
    assert {".env", ".env.*", "*.pem", ".ssh"} <= set(spec.mask_name)
    assert ".env.example" in spec.keep_name  # templates are neither masked nor locked
    assert {".git/hooks/", ".git/config", ".agenttools", "sitecustomize.py",
            ".vscode/tasks.json", "share/jupyter/kernels", ".husky"} <= set(spec.protect_name)
    assert not [n for n in spec.protect_name + spec.mask_name if n in (".git", "jupyter")]
    assert "~/.bashrc" in spec.protect  # matters when home itself is a working folder
    assert not [m for m in spec.mask + spec.mask_glob if m.startswith("/proc")]
    assert "OPENAI_API_KEY" not in spec.env_allow and "PATH" in spec.env_allow
    options = spec.options(extra_env=["AGT_PASSED"])
    assert options[options.index("--write") + 1] == "/work/p"
    assert "AGT_PASSED" in options and "--network" not in options
