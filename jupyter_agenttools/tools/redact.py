"""Secret-looking values are cut out of what a tool shows the model.

The analysis asks before code reads a variable whose *name* says it holds a credential
(``api_key``, ``DB_PASSWORD``), and before it reads the environment. A harmless name proves
nothing: ``cfg = dict(os.environ)``, run by the user in a cell, holds every key of the
environment, and ``print(cfg)`` is read-only. The name was the only thing the check could
see; the value is what reaches the model. So the notebook tools' output (what RunCode prints
and returns, what Inspect shows, a notebook's cells and outputs as NotebookRead renders them)
goes through ``redact`` on its way to the model: every match of ``PATTERNS`` — values whose
shape says what they are, each with the reason it is there — is replaced by a marker that
says what was hidden, so the model knows a value was there and why it cannot see it.

The patterns are shapes that (nearly) never occur by chance: issuer prefixes with a random
body (``sk-``, ``AKIA``, ``ghp_``, ``xoxb-``), PEM private keys, JWTs, a password inside a URL,
the value of a key named like a password, and the value of a key named like a token or key
when the value looks random (letters and digits, no spaces). What is not caught: a secret of
no known shape under a harmless key (``{"x": "hunter2hunter"}``). Hiding more would hide data
the model is there to look at: the words of ``{"token": "The", "pos": "DT"}``, a column of
ids, a hash, ``sk-learn``-like names.

Why not the audit log's table (``permission/redact.py``)? The two tables find the same vendor
shapes but weigh errors the other way round: the audit log is shared as a file, so over-hiding
is its safe error (any ``"token"`` field, any ``sk-`` word); here over-hiding takes data away
from the analysis the user asked for, so values under token-like names must also look random,
and keys are found in the dict and JSON reprs that outputs print (``'DB_PASSWORD': '…'``).
A vendor shape added to one table belongs in the other too.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Callable

from ..errors import ToolExecutionError

__all__ = ["PATTERNS", "Pattern", "redact", "MARKER", "hidden_note", "refuse_hidden_secret"]

#: how a hidden value is shown; NotebookEdit refuses to write it back into a cell
MARKER = "[secret hidden: "


@dataclass(frozen=True)
class Pattern:
    name: str  # what the value is, shown in the marker
    regex: re.Pattern[str]
    why: str  # why this shape is treated as a secret
    group: int = 0  # the part of the match that is the secret (0: all of it)
    check: Callable[[str], bool] | None = None  # the secret part must also pass this
    #: lower-case words every match contains: a text without any is not searched (most
    #: output holds none, and a substring test is much cheaper than the regex)
    needles: tuple[str, ...] = ()

    @property
    def marker(self) -> str:
        return f"{MARKER}{self.name}]"


def _random_looking(value: str) -> bool:
    """Letters and digits mixed, as generated keys and most passwords are; ids of one
    kind of character, words and placeholders (``********``, ``<|endoftext|>``) are not."""
    return (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
            and not any(c.isspace() for c in value))


def _mixed_case_and_digits(value: str) -> bool:
    """A random token of 20+ characters from [A-Za-z0-9] has all three kinds (a chance of
    about one in a thousand not to); names like ``sk-learn-pipeline-step`` do not."""
    return (any(c.isdigit() for c in value) and any(c.islower() for c in value)
            and any(c.isupper() for c in value))


#: the end of a key's name (``DB_PASSWORD``, ``client_secret``); what comes before does not
#: matter, so it is not matched (a scan from every position of a long identifier is slow)
_PASSWORD_NAME = r"(?:password|passwd|passphrase)"
_KEY_NAME = (r"(?:pwd|secret|token|api[_-]?key|apikey|"
             r"(?:access|private|auth|secret|signing|encryption|master)[_-]?key|"
             r"client[_-]?secret|credentials?)")
#: what follows the name in ``NAME=value``, ``'NAME': 'value'``, ``"NAME": "value"``
#: (a value followed by ``(``, ``[`` or ``.`` is code: ``password = getpass()``)
_ASSIGNED = r"\b[\"']?\s*[:=]\s*(?:b?[\"'])?([^\s\"',;}\]\[()]{%d,512})(?![(\[\w.])"


def _not_a_placeholder(value: str) -> bool:
    """``********``, ``xxxx``, ``<password>``, ``None``: nothing to hide."""
    return not (set(value) <= set("*x•.-_") or value.startswith(("<", "$", "{", "%"))
                or value in ("None", "null", "True", "False", "changeme"))

PATTERNS: tuple[Pattern, ...] = (
    Pattern("private key", re.compile(
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{0,16384}?-----END[A-Z0-9 ]*"
        r"PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\]{0,16384})"),
        "a PEM private key (RSA, EC, OpenSSH, PGP): whoever holds it is its owner",
        needles=("private key",)),
    Pattern("AWS secret access key", re.compile(
        r"(?i)(?:aws_?)?secret_?access_?key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+]{40})\b"),
        "the secret half of an AWS key pair, named as such", group=1,
        needles=("access",)),
    Pattern("AWS access key id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
            "an AWS access key id: AKIA/ASIA and 16 characters",
            needles=("akia", "asia", "abia", "acca")),
    Pattern("Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
            "an Anthropic API key: sk-ant-…",
            needles=("sk-ant-",)),
    Pattern("API key (sk-…)", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
            "an OpenAI-style secret key: sk-, sk-proj- and a random body",
            check=_mixed_case_and_digits,
            needles=("sk-",)),
    Pattern("GitHub token", re.compile(
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{50,})\b"),
        "a GitHub token: ghp_/gho_/ghu_/ghs_/ghr_ or github_pat_",
        needles=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    Pattern("GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"),
            "a GitLab personal access token: glpat-",
            needles=("glpat-",)),
    Pattern("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
            "a Slack token: xoxb-/xoxp-/xoxa-…",
            needles=("xox",)),
    Pattern("Slack webhook", re.compile(
        r"https://hooks\.slack\.com/services/[A-Za-z0-9]+/[A-Za-z0-9]+/[A-Za-z0-9]+"),
        "a Slack incoming-webhook URL: anyone with it can post",
        needles=("hooks.slack.com",)),
    Pattern("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),
            "a Google API key: AIza and 35 characters",
            needles=("aiza",)),
    Pattern("Stripe key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
            "a Stripe secret or restricted key",
            needles=("_live_", "_test_")),
    Pattern("Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"),
            "a Hugging Face access token: hf_", check=_mixed_case_and_digits,
            needles=("hf_",)),
    Pattern("JSON web token", re.compile(
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}"),
        "a JWT (a signed bearer token: it logs in as whoever it names)",
        needles=("eyj",)),
    Pattern("bearer token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{20,}=*)"),
            "a token sent as an Authorization: Bearer header", group=1,
            needles=("bearer",)),
    Pattern("password in a URL", re.compile(
        r"\b[A-Za-z][A-Za-z0-9+.-]{0,31}://[^\s:/@'\"]{1,256}:([^\s:/@'\"]{3,256})@"),
        "the password part of scheme://user:password@host", group=1,
        needles=("://",)),
    Pattern("Google OAuth token", re.compile(r"\bya29\.[0-9A-Za-z_-]{20,}"),
            "a Google OAuth access token: ya29.",
            needles=("ya29.",)),
    Pattern("Authorization header", re.compile(
        r"(?i)\bauthorization[\"']?\s*[:=]\s*[\"']?(?:basic|token|digest)\s+"
        r"([A-Za-z0-9._~+/=-]{8,})"),
        "the credential of an Authorization: Basic/Token header", group=1,
        needles=("authorization",)),
    Pattern("password", re.compile(r"(?i)" + _PASSWORD_NAME + _ASSIGNED % 4),
            "the value of a key named like a password (DB_PASSWORD=…, 'password': '…'), "
            "whatever it looks like", group=1, check=_not_a_placeholder,
            needles=("pass",)),
    Pattern("value of a secret-named key", re.compile(r"(?i)" + _KEY_NAME + _ASSIGNED % 8),
            "a random-looking value of a key named like a token or key (GITHUB_TOKEN=…, "
            "'client_secret': '…'); words are left (a 'token' field of a text)", group=1,
            check=_random_looking,
            needles=("pwd", "secret", "token", "key", "credential")),
)


def redact(text: str) -> tuple[str, list[str]]:
    """``text`` with every secret-looking value replaced by a marker, and the names of what
    was hidden (one entry per value)."""
    found: list[str] = []
    lowered = text.lower()
    for pattern in PATTERNS:
        if pattern.needles and not any(needle in lowered for needle in pattern.needles):
            continue
        text = pattern.regex.sub(functools.partial(_replace, pattern, found=found), text)
    return text, found


def _replace(pattern: Pattern, match: re.Match[str], *, found: list[str]) -> str:
    secret = match.group(pattern.group)
    if secret is None or MARKER in secret:
        return match.group(0)
    if pattern.check is not None and not pattern.check(secret):
        return match.group(0)
    found.append(pattern.name)
    whole = match.group(0)
    start, end = match.start(pattern.group) - match.start(0), match.end(pattern.group) - \
        match.start(0)
    return whole[:start] + pattern.marker + whole[end:]


def hidden_note(hidden: list[str]) -> str:
    """What the model is told after a redacted output."""
    kinds = ", ".join(dict.fromkeys(hidden))
    return (f"[{len(hidden)} secret-looking value(s) hidden from you ({kinds}); the "
            f"notebook still holds them. Refer to them by variable, never write the "
            f"{MARKER}…] marker into code or a cell.]\n")


def refuse_hidden_secret(text: str, what: str) -> None:
    """Writing the marker back (a cell's source rewritten from what NotebookRead showed, code
    copied from an output) would replace the user's secret by the marker: refused."""
    if isinstance(text, str) and MARKER in text:
        raise ToolExecutionError(
            f"{what} contains {MARKER}…], the marker of a secret that was hidden from you; "
            f"writing it would replace the user's value by the marker. Leave that part as it "
            f"is (edit around it, or refer to the variable that holds it), or ask the user.")
