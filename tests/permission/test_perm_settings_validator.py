"""The settings validator compiled ahead of time (permission/_settings_validator.py, generated
from settings.schema.json so that ``agenttools hook`` does not compile the schema on every call):
it is made from the schema as it is now, it is the one used, it judges as the schema does, and a
stale one is never used."""

from __future__ import annotations

import json

import fastjsonschema
import jsonschema
import pytest

from jupyter_agenttools.permission import _settings_validator as compiled
from jupyter_agenttools.permission import settings_file

REGENERATE = ("permission/_settings_validator.py is stale: run "
              "`python -m jupyter_agenttools.permission.settings_file` and commit the result")


def test_made_from_the_schema_as_it_is_now():
    assert compiled.SCHEMA_TEXT == settings_file.SCHEMA_PATH.read_text(encoding="utf-8"), \
        REGENERATE


def test_the_file_is_what_the_generator_writes_now():
    if compiled.VERSION != fastjsonschema.VERSION:
        # another fastjsonschema writes other code for the same schema: the schema text above
        # and the verdicts below still hold the file to the schema
        pytest.skip(f"made by fastjsonschema {compiled.VERSION}, {fastjsonschema.VERSION} here")
    text = settings_file.COMPILED_VALIDATOR.read_text(encoding="utf-8")
    assert text == settings_file.compiled_validator_source(), REGENERATE


def test_the_compiled_validator_is_the_one_used():
    settings_file._fast_validator.cache_clear()
    try:
        assert settings_file._fast_validator() is compiled.validate
    finally:
        settings_file._fast_validator.cache_clear()


def test_a_stale_file_is_not_used(monkeypatch):
    monkeypatch.setattr(compiled, "SCHEMA_TEXT", compiled.SCHEMA_TEXT + " ")
    settings_file._fast_validator.cache_clear()
    try:
        assert settings_file._compiled_validator() is None
        fast = settings_file._fast_validator()
        assert fast is not None and fast is not compiled.validate  # compiled from the schema
        with pytest.raises(fastjsonschema.JsonSchemaException):
            fast({"permissions": {"Deny": []}})
    finally:
        settings_file._fast_validator.cache_clear()


# Documents on both sides of each kind of check the schema makes (types, unknown keys, enums,
# patterns, uniqueness, $refs, property names).
DOCUMENTS = [
    {},
    {"$schema": "x"},
    {"$schema": 1},
    {"permissions": {"mode": "default", "allow": ["Bash(ls)"], "deny": [], "ask": ["Read"]}},
    {"permissions": {"mode": "bypassPermissions"}},
    {"permissions": {"mode": "nope"}},
    {"permissions": {"Deny": ["Bash(rm)"]}},
    {"permissions": {"allow": "Bash(ls)"}},
    {"permissions": {"allow": [1]}},
    {"permissions": {"allow": [""]}},
    {"permissions": {"additional_directories": ["../x", "/abs"]}},
    {"permissions": {"additional_directories": [None]}},
    {"permissions": {"disable_bypass_mode": True, "managed_rules_only": False}},
    {"permissions": {"disable_bypass_mode": "yes"}},
    {"permissions": {"allowed_modes": ["default", "plan"]}},
    {"permissions": {"allowed_modes": ["default", "default"]}},
    {"permissions": {"allowed_modes": ["sometimes"]}},
    {"sandbox": {"enabled": True, "network": False, "writable": ["/tmp"], "hidden": ["~/.ssh"],
                 "env_allow": ["PATH"], "required": True}},
    {"sandbox": {"enabled": "true"}},
    {"sandbox": {"env_allow": [""]}},
    {"sandbox": {"writeable": []}},
    {"trusted_projects": {"/home/u/p": {"sha256": "0" * 64, "trusted_at": "2026-12-03"}}},
    {"trusted_projects": {"/home/u/p": {"sha256": "xyz", "trusted_at": "2026-12-03"}}},
    {"trusted_projects": {"/home/u/p": {"sha256": "0" * 64, "extra": 1}}},
    {"trusted_projects": {"": {"sha256": "0" * 64, "trusted_at": "t"}}},
    {"unknown": 1},
    [],
    "text",
]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda d: json.dumps(d)[:60])
def test_verdicts_match_the_schema(document):
    schema = settings_file.schema()
    expected = jsonschema.Draft7Validator(schema).is_valid(document)
    verdicts = {}
    for name, validate in (("precompiled", compiled.validate),
                           ("compiled now", fastjsonschema.compile(schema))):
        try:
            validate(document)
            verdicts[name] = True
        except fastjsonschema.JsonSchemaException:
            verdicts[name] = False
    assert verdicts == {"precompiled": expected, "compiled now": expected}


def test_the_table_has_both_verdicts():
    validator = jsonschema.Draft7Validator(settings_file.schema())
    verdicts = {validator.is_valid(document) for document in DOCUMENTS}
    assert verdicts == {True, False}
