"""Fault injection, REST (issue 18): every malformed body against every route of a real
jupyter-server gets a 4xx JSON answer with a message — never a 500, never a silent
normalisation, never a write — and the settings files stay as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fault_figures import record

from jupyter_agenttools.jupyter.handlers import (
    MAX_BODY_BYTES,
    MAX_RULE_CHARS,
    ROUTES,
    AgentToolsHandler,
)

pytestmark = pytest.mark.timeout(300)

RULE = {"layer": "local", "behavior": "allow", "rule": "Read"}
DEEP = "[" * 100_000 + "]" * 100_000

# name → (body, expected status, words of the message). The body is sent as it is (str/bytes)
# or as JSON (dict). These are refused before any key is looked at: on every route.
MALFORMED: dict[str, tuple[object, int, str]] = {
    "not JSON": ('{"layer": "local", ', 400, "not valid JSON"),
    "a list": ("[]", 400, "expected a JSON object"),
    "empty": ("", 400, "got nothing"),
    "nested 100,000 levels": (DEEP, 400, "nested deeper than 64"),
    "nested 100 levels in a value": (
        '{"layer": "local", "behavior": "allow", "rule": "Read", "examples": ['
        + '{"a": ' * 100 + "1" + "}" * 100 + "]}", 400, "nested deeper than 64"),
    "a key twice": ('{"layer": "local", "behavior": "deny", "behavior": "allow", '
                    '"rule": "Read", "tool": "Read", "tool": "Bash"}', 400, "appears twice"),
    "NaN": ('{"layer": "local", "behavior": "allow", "rule": "Read", "examples": [NaN]}', 400,
            "NaN is not a JSON number"),
    "lone surrogate": ('{"layer": "local", "behavior": "allow", "rule": "Read(\\ud800)"}', 400,
                       "lone surrogate"),
    "not UTF-8": (b'{"layer": "local", "behavior": "allow", "rule": "Read(\xff)"}', 400,
                  "not UTF-8"),
    "50 MB rule": (json.dumps({**RULE, "rule": "Bash(" + "x" * 50_000_000 + ")"}), 413,
                   "at most 1048576"),
}

# Bad values of the keys of a rule request (rules POST/DELETE; validate reads behavior/rule).
BAD_FIELDS: dict[str, tuple[object, int, str]] = {
    "rule over the character limit": ({**RULE, "rule": "Bash(" + "x" * MAX_RULE_CHARS + ")"},
                                      400, "at most 10000"),
    "behavior not exact": ({**RULE, "behavior": "ALLOW"}, 400, "did you mean 'allow'"),
    "rule a list": ({**RULE, "rule": ["Read"]}, 400, "non-empty string"),
    "layer not exact": ({**RULE, "layer": " local "}, 400, "did you mean 'local'"),
    "layer a number": ({**RULE, "layer": 3}, 400, "exactly one of"),
}

MODES: dict[str, tuple[object, int, str]] = {
    "BYPASS": ({"layer": "local", "mode": "BYPASS"}, 400, "did you mean 'bypass'"),
    "' bypass '": ({"layer": "local", "mode": " bypass "}, 400, "did you mean 'bypass'"),
    "accept-edits": ({"layer": "local", "mode": "accept-edits"}, 400,
                     "did you mean 'accept_edits'"),
    "true": ({"layer": "local", "mode": True}, 400, "exactly one of"),
}

# Every method of every route that reads a body, found in ROUTES: the routes other parts add
# (trust, notebook…) are covered as they land.
WRITES = [(method.upper(), path) for path, handler in ROUTES
          for method in ("post", "put", "patch", "delete") if method in vars(handler)]


def _body(body: object) -> str | bytes:
    return body if isinstance(body, (str, bytes)) else json.dumps(body)


def _snapshot(files: dict[str, Path]) -> dict[str, bytes | None]:
    return {k: (p.read_bytes() if p.exists() else None) for k, p in files.items()}


def test_every_route_has_the_body_limits():
    """Handlers other parts add must subclass AgentToolsHandler (limits, JSON errors)."""
    for name, handler in ROUTES:
        assert issubclass(handler, AgentToolsHandler), name
    assert {("POST", "rules"), ("DELETE", "rules"), ("PUT", "mode"), ("POST", "check"),
            ("POST", "validate"), ("POST", "notebook")} <= set(WRITES), WRITES


def test_malformed_bodies_get_a_clear_4xx_on_every_route(api, files):
    files["local"].parent.mkdir(parents=True, exist_ok=True)
    files["local"].write_text(json.dumps({"permissions": {"deny": ["Bash(rm:*)"]}}))
    before = _snapshot(files)
    answers: dict[str, dict[str, int]] = {}
    cases = [(name, case, WRITES) for name, case in MALFORMED.items()]
    cases += [(name, case, [("POST", "rules"), ("DELETE", "rules")]
               + ([] if name.startswith("layer") else [("POST", "validate")]))
              for name, case in BAD_FIELDS.items()]
    for name, (body, status, words), routes in cases:
        for method, route in routes:
            code, data = api(method, route, _body(body))
            answers.setdefault(name, {})[f"{method} {route}"] = code
            assert code == status, (name, method, route, code, data)
            assert data["status"] == status and words in data["error"], (name, route, data)
    for name, (body, status, words) in MODES.items():
        code, data = api("PUT", "mode", _body(body))
        answers[f"mode {name}"] = {"PUT mode": code}
        assert (code, words in data["error"]) == (status, True), (name, data)
    assert _snapshot(files) == before
    record("rest", "malformed_bodies", answers=answers)


def test_exact_values_still_work_and_null_clears_the_mode(api, files):
    assert api("PUT", "mode", {"layer": "local", "mode": "bypass"})[0] == 200
    assert json.loads(files["local"].read_text())["permissions"]["mode"] == "bypass"
    assert api("PUT", "mode", {"layer": "local", "mode": None})[0] == 200
    assert "mode" not in json.loads(files["local"].read_text()).get("permissions", {})
    code, data = api("POST", "check", {"tool": "Bash", "input": "ls", "mode": "explore"})
    assert (code, data["mode"]) == (200, "explore")
    code, data = api("POST", "check", {"tool": "Bash", "input": "ls", "mode": "Explore"})
    assert code == 400 and "did you mean 'explore'" in data["error"]


def test_a_body_just_under_the_limit_is_read_and_one_just_over_is_413(api, files):
    pad = MAX_BODY_BYTES - len(json.dumps({**RULE, "examples": [], "x": ""})) - 10
    code, data = api("POST", "rules", json.dumps({**RULE, "x": "y" * pad}))
    assert code == 201, data  # under the limit: read (unknown keys of a request are ignored)
    code, data = api("POST", "rules", json.dumps({**RULE, "x": "y" * (pad + 100)}))
    assert code == 413 and "at most" in data["error"]


def test_a_chunked_body_over_the_limit_is_413(api, files, jp_fetch, jp_asyncio_loop):
    """No Content-Length: the body is counted as it arrives and dropped past the limit."""
    async def produce(write):
        for _ in range(40):
            await write(b"x" * 65536)

    async def send():
        return await jp_fetch("agenttools", "rules", method="POST", body_producer=produce,
                              raise_error=False)

    response = jp_asyncio_loop.run_until_complete(send())
    assert response.code == 413, response.body
    assert "more than 1048576" in json.loads(response.body)["error"]
    assert not files["local"].exists()


def test_corrupt_and_deep_settings_files_are_409_not_500(api, files):
    files["project"].parent.mkdir(parents=True, exist_ok=True)
    for text, words in ((DEEP, "nested deeper"), ('{"permissions": {"Deny": []}}',
                                                 "did you mean 'deny'")):
        files["project"].write_text(text)
        for method, route, body in (("GET", "settings", None), ("POST", "rules", RULE),
                                    ("POST", "check", {"tool": "Bash", "input": "ls"})):
            code, data = api(method, route, body)
            assert code == 409 and words in data["error"], (route, data)
