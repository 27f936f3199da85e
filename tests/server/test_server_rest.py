"""The REST API of the server extension, against a real jupyter-server (pytest-jupyter)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_agenttools.permission.audit import AuditLog


def write_settings(path: Path, permissions: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"permissions": permissions}, indent=2), encoding="utf-8")

pytestmark = pytest.mark.timeout(120)


def read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


# --- GET settings ----------------------------------------------------------------------------


def test_settings_empty_project(api, files, jp_root_dir):
    status, data = api("GET", "settings")
    assert status == 200
    assert data["project_root"] == str(Path(jp_root_dir).resolve())
    assert data["mode"] == "default" and data["mode_source"] is None
    assert data["rules"] == []
    assert [layer["layer"] for layer in data["layers"]] == ["managed", "local", "project", "user"]
    assert {layer["layer"]: layer["writable"] for layer in data["layers"]} == {
        "managed": False, "local": True, "project": True, "user": True}
    assert {layer["layer"]: layer["file"] for layer in data["layers"]} == {
        k: str(v) for k, v in files.items()}
    assert "accept_edits" in data["modes"] and "bypass" in data["modes"]


def test_settings_lists_every_rule_with_its_layer_and_file(api, files, tmp_path):
    write_settings(files["managed"], {"deny": ["Bash(curl:*)"]})
    write_settings(files["local"], {"allow": ["Bash(git status)"], "mode": "accept_edits"})
    write_settings(files["project"], {"ask": ["Write(src/**)"], "mode": "explore",
                                      "additional_directories": ["../shared"]})
    write_settings(files["user"], {"allow": [{"rule": "Bash(ls:*)", "examples": ["ls -la"]}],
                                   "mode": "bypass"})
    # the project's own files are not trusted yet: their allow rule, modes and directory are
    # listed as ignored (never silently dropped); trusting the folder puts them in force
    status, data = api("GET", "settings")
    assert status == 200 and data["trust"]["trusted"] is False
    assert {(i["layer"], i["key"]) for i in data["ignored"]} == {
        ("local", "allow"), ("local", "mode"), ("project", "mode"),
        ("project", "additional_directories")}
    assert [r["active"] for r in data["rules"] if r["layer"] == "local"] == [False]
    assert data["mode"] == "bypass"  # the user's
    status, trust = api("POST", "trust", {"trusted": True, "sha256": data["trust"]["sha256"]})
    assert status == 200 and trust["trusted"] is True
    status, data = api("GET", "settings")
    assert status == 200 and data["ignored"] == [] and all(r["active"] for r in data["rules"])
    got = {(r["rule"], r["behavior"], r["layer"], r["file"]) for r in data["rules"]}
    assert got == {
        ("Bash(curl:*)", "deny", "managed", str(files["managed"])),
        ("Bash(git status)", "allow", "local", str(files["local"])),
        ("Write(src/**)", "ask", "project", str(files["project"])),
        ("Bash(ls:*)", "allow", "user", str(files["user"])),
    }
    user_rule = next(r for r in data["rules"] if r["layer"] == "user")
    assert user_rule["examples"] == ["ls -la"]
    modes = {layer["layer"]: layer["mode"] for layer in data["layers"]}
    assert modes == {"managed": None, "local": "accept_edits", "project": "explore",
                     "user": "bypass"}
    # the highest layer that sets a mode wins
    assert data["mode"] == "accept_edits" and data["mode_source"] == str(files["local"])
    assert len(data["additional_directories"]) == 1
    assert data["additional_directories"][0].endswith("shared")


def test_corrupt_settings_file_is_a_clear_409_and_never_rewritten(api, files):
    files["project"].parent.mkdir(parents=True)
    files["project"].write_text('{"permissions": {"allow": ["Bash(ls)",]}}\n')
    before = files["project"].read_text()
    status, data = api("GET", "settings")
    assert status == 409
    assert str(files["project"]) in data["error"] and "invalid JSON" in data["error"]
    status, data = api("POST", "rules",
                             {"layer": "project", "behavior": "allow", "rule": "Read"})
    assert status == 409 and str(files["project"]) in data["error"]
    assert files["project"].read_text() == before


# --- POST / DELETE rules ---------------------------------------------------------------------


@pytest.mark.parametrize("layer", ["local", "project", "user"])
@pytest.mark.parametrize("behavior", ["allow", "ask", "deny"])
def test_add_rule_writes_that_layers_file(api, files, layer, behavior):
    status, data = api("POST", "rules",
                             {"layer": layer, "behavior": behavior, "rule": "Bash(npm test)"})
    assert status == 201, data
    assert data["file"] == str(files[layer])
    assert read(files[layer])["permissions"][behavior] == ["Bash(npm test)"]
    assert {(r["rule"], r["behavior"], r["layer"]) for r in data["settings"]["rules"]} == {
        ("Bash(npm test)", behavior, layer)}
    for other in ("local", "project", "user"):
        if other != layer:
            # our own allow rule in a project layer keeps the project trusted (user file)
            assert not files[other].exists() or (
                other == "user" and "permissions" not in read(files[other]))


def test_add_rule_keeps_other_keys_and_does_not_duplicate(api, files):
    write_settings(files["local"], {"allow": ["Read"], "mode": "explore"})
    raw = read(files["local"])
    raw["$schema"] = "settings.schema.json"  # keys the API does not change are kept
    raw["sandbox"] = {"enabled": False}
    files["local"].write_text(json.dumps(raw))
    for _ in range(2):
        status, _ = api("POST", "rules",
                              {"layer": "local", "behavior": "allow", "rule": " Bash(ls) "})
        assert status == 201
    data = read(files["local"])
    assert data["permissions"]["allow"] == ["Read", "Bash(ls)"]
    assert data["permissions"]["mode"] == "explore"
    assert data["$schema"] == "settings.schema.json"
    assert data["sandbox"] == {"enabled": False}


def test_remove_rule(api, files):
    write_settings(files["project"], {"deny": ["Bash(rm:*)", "Read(.env)"]})
    body = {"layer": "project", "behavior": "deny", "rule": "Bash(rm:*)"}
    status, data = api("DELETE", "rules", body)
    assert status == 200, data
    assert read(files["project"])["permissions"]["deny"] == ["Read(.env)"]
    # removing it again: 404 naming the file, nothing changed
    status, data = api("DELETE", "rules", body)
    assert status == 404 and str(files["project"]) in data["error"]
    assert read(files["project"])["permissions"]["deny"] == ["Read(.env)"]


def test_remove_rule_by_query_arguments(api, files):
    write_settings(files["user"], {"ask": ["WebFetch"]})
    status, _ = api("DELETE", "rules",
                          params={"layer": "user", "behavior": "ask", "rule": "WebFetch"})
    assert status == 200
    assert read(files["user"])["permissions"]["ask"] == []


BAD_RULE_BODIES = [
    ("not json", "{layer: local", "not valid JSON"),
    ("a list", "[1, 2]", "expected a JSON object"),
    ("empty", "", "expected a JSON object"),
    ("no layer", {"behavior": "allow", "rule": "Read"}, "'layer'"),
    ("unknown layer", {"layer": "team", "behavior": "allow", "rule": "Read"},
     "exactly one of managed, local, project, user"),
    ("no behavior", {"layer": "local", "rule": "Read"}, "'behavior'"),
    ("passthrough", {"layer": "local", "behavior": "passthrough", "rule": "Read"},
     "exactly one of allow, ask, deny"),
    ("no rule", {"layer": "local", "behavior": "allow"}, "'rule'"),
    ("rule not a string", {"layer": "local", "behavior": "allow", "rule": 42}, "'rule'"),
    ("unclosed", {"layer": "local", "behavior": "allow", "rule": "Bash(ls"}, "closing ')'"),
    ("empty spec", {"layer": "local", "behavior": "allow", "rule": "Bash()"}, "empty specifier"),
    ("junk after name", {"layer": "local", "behavior": "allow", "rule": "Bash ls"},
     "unexpected"),
    ("examples of unknown tool",
     {"layer": "local", "behavior": "allow", "rule": "my_tool(x)", "examples": ["x"]},
     "not a built-in tool"),
]


@pytest.mark.parametrize("method,name,body,needle", [
    (method, *case) for method in ("POST", "DELETE") for case in BAD_RULE_BODIES
    if not (method == "DELETE" and case[0] == "examples of unknown tool")  # DELETE ignores them
], ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None)
def test_bad_rule_bodies_are_400_and_write_nothing(api, files, method, name, body, needle):
    status, data = api(method, "rules", body)
    assert status == 400, data
    assert needle in data["error"]
    assert data["status"] == 400
    assert not any(p.exists() for p in files.values())


# --- managed layer ---------------------------------------------------------------------------


@pytest.mark.parametrize("method,route,body", [
    ("POST", "rules", {"layer": "managed", "behavior": "allow", "rule": "Bash"}),
    ("DELETE", "rules", {"layer": "managed", "behavior": "deny", "rule": "Bash(curl:*)"}),
    ("PUT", "mode", {"layer": "managed", "mode": "bypass"}),
])
def test_managed_layer_is_read_only(api, files, method, route, body):
    write_settings(files["managed"], {"deny": ["Bash(curl:*)"], "mode": "default"})
    before = files["managed"].read_bytes()
    status, data = api(method, route, body)
    assert status == 403
    assert "read-only" in data["error"] and str(files["managed"]) in data["error"]
    assert files["managed"].read_bytes() == before


# --- PUT mode --------------------------------------------------------------------------------


def test_set_and_clear_mode(api, files):
    status, data = api("PUT", "mode", {"layer": "project", "mode": "accept_edits"})
    assert status == 200, data
    assert data["mode"] == "accept_edits" and data["effective"] == "accept_edits"
    assert read(files["project"])["permissions"]["mode"] == "accept_edits"
    status, data = api("PUT", "mode", {"layer": "local", "mode": "explore"})
    assert data["effective"] == "explore"  # local is above project
    status, data = api("PUT", "mode", {"layer": "local", "mode": None})
    assert status == 200 and data["effective"] == "accept_edits"
    assert "mode" not in read(files["local"])["permissions"]


@pytest.mark.parametrize("body,needle", [
    ({"layer": "local", "mode": "yolo"}, "exactly one of default, accept_edits"),
    ({"layer": "local"}, "'mode'"),
    ({"layer": "local", "mode": 3}, "'mode'"),
    ({"mode": "default"}, "'layer'"),
    ("null", "expected a JSON object"),
])
def test_bad_mode_bodies_are_400(api, files, body, needle):
    status, data = api("PUT", "mode", body)
    assert status == 400 and needle in data["error"]
    assert not files["local"].exists()


# --- GET audit -------------------------------------------------------------------------------


@pytest.fixture
def audit_entries(jp_root_dir):
    log = AuditLog(Path(jp_root_dir) / ".agenttools" / "audit.jsonl")
    rows = [("Bash", "allow", "ls"), ("Read", "ask", ".env"), ("Bash", "deny", "rm -rf /"),
            ("Bash", "ask", "npm publish"), ("Write", "allow", "a.txt")]
    for i, (tool, behavior, summary) in enumerate(rows):
        log.record(kind="decision", tool=tool, behavior=behavior, input=summary, n=i)
    with open(log.path, "a") as f:
        f.write("{not json\n")
    return rows


def test_audit_newest_first_with_filters(api, audit_entries):
    status, data = api("GET", "audit")
    assert status == 200
    assert [e["n"] for e in data["entries"]] == [4, 3, 2, 1, 0]
    assert data["skipped"] == 1
    _, data = api("GET", "audit", params={"limit": "2"})
    assert [e["n"] for e in data["entries"]] == [4, 3]
    _, data = api("GET", "audit", params={"tool": "Bash"})
    assert [e["n"] for e in data["entries"]] == [3, 2, 0]
    _, data = api("GET", "audit", params={"tool": "Bash", "behavior": "ask"})
    assert [e["input"] for e in data["entries"]] == ["npm publish"]
    _, data = api("GET", "audit", params={"behavior": "DENY"})
    assert [e["n"] for e in data["entries"]] == [2]


def test_audit_without_a_log_is_empty(api):
    status, data = api("GET", "audit")
    assert status == 200 and data["entries"] == []


@pytest.mark.parametrize("params,needle", [
    ({"limit": "ten"}, "'limit'"), ({"limit": "0"}, "'limit'"), ({"limit": "-3"}, "'limit'"),
    ({"limit": "100001"}, "'limit'"), ({"behavior": "maybe"}, "'behavior'"),
])
def test_bad_audit_queries_are_400(api, params, needle):
    status, data = api("GET", "audit", params=params)
    assert status == 400 and needle in data["error"]


# --- POST validate ---------------------------------------------------------------------------


@pytest.mark.parametrize("body,ok,needle", [
    ({"rule": "Bash(git status)"}, True, None),
    ({"rule": "mcp__github"}, True, None),
    ({"rule": "Bash(git", "behavior": "deny"}, False, "closing ')'"),
    ({"rule": "(x)"}, False, "tool name"),
    ({"rule": "my_tool(x)", "examples": ["x"]}, False, "not a built-in tool"),
])
def test_validate(api, files, body, ok, needle):
    status, data = api("POST", "validate", body)
    assert status == 200
    assert data["ok"] is ok
    if ok:
        assert data["rule"] == body["rule"]
    else:
        assert needle in data["error"]
    assert not any(p.exists() for p in files.values())


@pytest.mark.parametrize("body", ["[]", {"behavior": "allow"}, {"rule": "Read", "behavior": "x"}])
def test_validate_bad_body_is_400(api, body):
    status, data = api("POST", "validate", body)
    assert status == 400 and "error" in data


# --- concurrency -----------------------------------------------------------------------------


def test_concurrent_posts_lose_no_rule(api, files):
    rules = [f"Bash(tool{i} --flag)" for i in range(30)]
    results = api.many([("POST", "rules", {"layer": "project", "behavior": "allow", "rule": r})
                        for r in rules])
    assert [status for status, _ in results] == [201] * len(rules)
    assert sorted(read(files["project"])["permissions"]["allow"]) == sorted(rules)
    # and concurrent removals of half of them remove exactly that half
    results = api.many([("DELETE", "rules", {"layer": "project", "behavior": "allow", "rule": r})
                        for r in rules[::2]])
    assert [status for status, _ in results] == [200] * len(rules[::2])
    assert sorted(read(files["project"])["permissions"]["allow"]) == sorted(rules[1::2])


# --- POST check ------------------------------------------------------------------------------


def test_check_returns_the_decision_with_its_six_step_trace(api, jp_root_dir):
    from jupyter_agenttools.permission.types import STEPS

    status, data = api("POST", "check", {"tool": "Bash", "input": {"command": "ls -la"}})
    assert status == 200, data
    assert data["behavior"] == "allow" and data["step"] == "read_only"
    assert data["mode"] == "default" and data["tool"] == "Bash"
    assert [t["step"] for t in data["trace"]] == list(STEPS)
    # a what-if: nothing is written, not even the audit log
    assert not (Path(jp_root_dir) / ".agenttools").exists()


@pytest.mark.parametrize("layer", ["managed", "local", "project", "user"])
def test_check_uses_the_rules_of_every_layer(api, files, layer):
    status, data = api("POST", "check", {"tool": "Bash", "input": "git push origin main"})
    assert data["behavior"] == "ask" and data["rule"] is None
    write_settings(files[layer], {"deny": ["Bash(git push:*)"]})
    status, data = api("POST", "check", {"tool": "Bash", "input": "git push origin main"})
    assert status == 200
    assert data["behavior"] == "deny" and data["step"] == "deny_rules"
    assert data["rule"] == "Bash(git push:*)" and data["rule_source"] == str(files[layer])


def test_check_sees_a_rule_added_through_the_api(api, files):
    body = {"tool": "Bash", "input": {"command": "npm test"}}
    assert api("POST", "check", body)[1]["behavior"] == "ask"
    api("POST", "rules", {"layer": "local", "behavior": "allow", "rule": "Bash(npm test)"})
    _, data = api("POST", "check", body)
    assert data["behavior"] == "allow" and data["rule_source"] == str(files["local"])


@pytest.mark.parametrize("settings_mode,body_mode,expected", [
    (None, None, "ask"),            # default
    ("bypass", None, "allow"),      # the project's mode
    ("bypass", "dont_ask", "deny"),  # the request's mode wins
    (None, "explore", "deny"),      # explore refuses what is not read-only
])
def test_check_mode_ladder(api, files, settings_mode, body_mode, expected):
    if settings_mode:
        write_settings(files["project"], {"mode": settings_mode})
        assert api("POST", "trust", {"trusted": True})[0] == 200  # a project mode needs trust
    body = {"tool": "Bash", "input": "npm publish"}
    if body_mode:
        body["mode"] = body_mode
    status, data = api("POST", "check", body)
    assert status == 200, data
    assert data["mode"] == (body_mode or settings_mode or "default")
    assert data["behavior"] == expected


@pytest.mark.parametrize("body,needle", [
    ({"input": {"command": "ls"}}, "'tool'"),
    ({"tool": "NoSuchTool", "input": {}}, "NoSuchTool"),
    ({"tool": "Bash", "input": ["ls"]}, "'input'"),
    ({"tool": "Bash", "input": "ls", "mode": "yolo"}, "exactly one of default"),
    ("not json", "not valid JSON"),
])
def test_bad_check_bodies_are_400(api, body, needle):
    status, data = api("POST", "check", body)
    assert status == 400, data
    assert needle in data["error"]


# --- examples ----------------------------------------------------------------------------------


def test_rule_with_examples_is_checked_then_stored_with_them(api, files):
    good = {"layer": "project", "behavior": "allow", "rule": "Bash(git push:*)",
            "examples": ["git push origin main"], "counter_examples": ["git pull"]}
    status, data = api("POST", "validate", good)
    assert status == 200 and data["ok"] is True and data["known_tool"] is True
    status, data = api("POST", "rules", good)
    assert status == 201, data
    assert read(files["project"])["permissions"]["allow"] == [
        {"rule": "Bash(git push:*)", "examples": ["git push origin main"],
         "counter_examples": ["git pull"]}]


@pytest.mark.parametrize("examples,counter,needle", [
    (["git pull"], [], "should match"),
    ([], ["git push --force"], "should not match"),
])
def test_rule_failing_its_examples_is_refused(api, files, examples, counter, needle):
    body = {"layer": "project", "behavior": "allow", "rule": "Bash(git push:*)",
            "examples": examples, "counter_examples": counter}
    status, data = api("POST", "validate", body)
    assert status == 200 and data["ok"] is False and needle in data["error"]
    status, data = api("POST", "rules", body)
    assert status == 400 and needle in data["error"]
    assert not files["project"].exists()
