"""Nothing under /agenttools/ answers without authentication, authorization and XSRF."""

from __future__ import annotations

import json
from http.cookies import SimpleCookie
from typing import Any

import pytest
from jupyter_server.auth import Authorizer
from jupyter_server.base.handlers import APIHandler
from tornado.web import RequestHandler

from jupyter_agenttools.jupyter.handlers import AUTH_RESOURCE, ROUTES

pytestmark = pytest.mark.timeout(120)

VERBS = ("GET", "HEAD", "POST", "DELETE", "PATCH", "PUT", "OPTIONS")
VALID = {  # a body that would succeed with a token, per (route, verb)
    ("rules", "POST"): {"layer": "local", "behavior": "allow", "rule": "Bash(ls)"},
    ("rules", "DELETE"): {"layer": "local", "behavior": "allow", "rule": "Bash(ls)"},
    ("mode", "PUT"): {"layer": "local", "mode": "explore"},
    ("check", "POST"): {"tool": "Bash", "input": {"command": "ls"}},
    ("validate", "POST"): {"rule": "Bash(ls)"},
}


def registered_handlers(web_app: Any) -> dict[str, type]:
    """Every (path regex → handler class) of the live application that serves agenttools."""
    found: dict[str, type] = {}

    def walk(router: Any) -> None:
        for rule in getattr(router, "rules", []):
            target = rule.target
            if isinstance(target, type) and issubclass(target, RequestHandler):
                pattern = getattr(rule.matcher, "regex", None)
                if pattern is not None and "/agenttools/" in pattern.pattern:
                    found[pattern.pattern] = target
            else:
                walk(target)

    walk(web_app.default_router)
    walk(web_app.wildcard_router)
    return found


def implemented_verbs(cls: type) -> list[str]:
    """The verbs the class adds to APIHandler's (whose OPTIONS answers CORS preflights)."""
    return [v for v in VERBS if getattr(cls, v.lower()) is not getattr(APIHandler, v.lower())]


def decorator_files(func: Any) -> list[str]:
    files = []
    while func is not None:
        files.append(func.__code__.co_filename.replace("\\", "/"))
        func = getattr(func, "__wrapped__", None)
    return files


@pytest.fixture
def handlers(jp_serverapp) -> dict[str, type]:
    found = registered_handlers(jp_serverapp.web_app)
    assert found, "the agenttools extension registered no handler"
    return found


def test_every_route_of_the_table_is_registered(handlers):
    routes = {pattern.rstrip("$").rsplit("/", 1)[-1]: cls for pattern, cls in handlers.items()}
    assert routes == dict(ROUTES)


def test_every_verb_is_wrapped_by_authenticated_then_authorized(handlers):
    """Fails as soon as a handler method lacks either decorator (or has them the wrong way)."""
    checked = 0
    for pattern, cls in handlers.items():
        assert cls.auth_resource == AUTH_RESOURCE, pattern
        verbs = implemented_verbs(cls)
        assert verbs, f"{cls.__name__} implements no verb"
        for verb in verbs:
            files = decorator_files(getattr(cls, verb.lower()))
            assert len(files) >= 3, f"{cls.__name__}.{verb.lower()} is not decorated: {files}"
            assert files[0].endswith("tornado/web.py"), \
                f"{cls.__name__}.{verb.lower()}: outermost is not @web.authenticated"
            assert files[1].endswith("jupyter_server/auth/decorator.py"), \
                f"{cls.__name__}.{verb.lower()}: not @authorized under @web.authenticated"
            checked += 1
    assert checked >= len(ROUTES)


def test_unauthenticated_requests_are_403_on_every_route_and_verb(
        handlers, http_server_client, jp_base_url, jp_asyncio_loop, jp_root_dir):
    """No token, and then a wrong token: every implemented verb of every route refuses."""
    calls = 0
    for pattern, cls in handlers.items():
        route = pattern.rstrip("$").rsplit("/", 1)[-1]
        for verb in implemented_verbs(cls):
            body = VALID.get((route, verb))
            for headers in ({}, {"Authorization": "token not-the-token"}):
                kw: dict[str, Any] = {"method": verb, "headers": headers, "raise_error": False,
                                      "allow_nonstandard_methods": True}
                if body is not None or verb in ("POST", "PUT", "PATCH"):
                    kw["body"] = json.dumps(body or {})
                r = jp_asyncio_loop.run_until_complete(
                    http_server_client.fetch(f"{jp_base_url}agenttools/{route}", **kw))
                assert r.code == 403, (route, verb, headers, r.code)
                calls += 1
    assert calls >= 2 * len(ROUTES)
    assert not (jp_root_dir / ".agenttools").exists()  # nothing was written


def test_cookie_requests_need_the_xsrf_token(api, http_server_client, jp_base_url,
                                             jp_asyncio_loop, jp_auth_header, jp_root_dir):
    """A browser (cookie) request must carry _xsrf; ServerConnection.makeRequest sends it."""

    def fetch(path: str, **kw: Any) -> Any:
        return jp_asyncio_loop.run_until_complete(
            http_server_client.fetch(f"{jp_base_url}{path}", raise_error=False, **kw))

    # A token request leaves the login cookie behind, as when a browser opens /lab?token=…
    r = fetch("agenttools/settings", headers=jp_auth_header)
    assert r.code == 200
    jar = SimpleCookie()
    for header in r.headers.get_list("Set-Cookie"):
        jar.load(header)
    r = fetch("login")  # any page render sets the _xsrf cookie
    for header in r.headers.get_list("Set-Cookie"):
        jar.load(header)
    assert "_xsrf" in jar and len(jar) >= 2, list(jar)
    login = "; ".join(f"{k}={m.value}" for k, m in jar.items() if k != "_xsrf")
    xsrf = jar["_xsrf"].value
    body = json.dumps({"layer": "local", "behavior": "allow", "rule": "Bash(ls)"})

    r = fetch("agenttools/settings", headers={"Cookie": login})
    assert r.code == 200  # GET needs no XSRF token
    r = fetch("agenttools/rules", method="POST", body=body, headers={"Cookie": login})
    assert r.code == 403 and "_xsrf" in json.loads(r.body)["error"]
    assert not (jp_root_dir / ".agenttools" / "settings.local.json").exists()

    r = fetch("agenttools/rules", method="POST", body=body,
              headers={"Cookie": f"{login}; _xsrf={xsrf}", "X-XSRFToken": xsrf})
    assert r.code == 201
    assert (jp_root_dir / ".agenttools" / "settings.local.json").exists()


class ReadOnlyAuthorizer(Authorizer):
    """Lets a user read agenttools but not change it; everything else is allowed."""

    def is_authorized(self, handler: Any, user: Any, action: str, resource: str) -> bool:
        return not (resource == AUTH_RESOURCE and action != "read")


class NoAgentToolsAuthorizer(Authorizer):
    def is_authorized(self, handler: Any, user: Any, action: str, resource: str) -> bool:
        return resource != AUTH_RESOURCE


@pytest.mark.parametrize("jp_server_config", [ReadOnlyAuthorizer, NoAgentToolsAuthorizer],
                         indirect=True)
def test_the_authorizer_decides(api, files, jp_server_config):
    read_only = jp_server_config["ServerApp"]["authorizer_class"] is ReadOnlyAuthorizer
    status, data = api("GET", "settings")
    assert status == (200 if read_only else 403)
    status, data = api("GET", "audit")
    assert status == (200 if read_only else 403)
    for (route, verb), body in VALID.items():
        status, data = api(verb, route, body)
        assert status == 403, (route, verb)
        assert f"resource: {AUTH_RESOURCE}" in data["error"], data
    assert not files["local"].exists()
