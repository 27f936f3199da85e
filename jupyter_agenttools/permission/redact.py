"""Secrets out of the audit log: the one table of redaction rules, a reason per rule.

The audit log keeps what an agent asked to run (``curl -H "Authorization: Bearer …"``,
``export OPENAI_API_KEY=sk-…``, ``psql postgres://app:hunter2@db/app``). The log is a plain file
that people share and attach to bug reports, so every string written to it goes through
``redact`` first: a secret found by one of the patterns below is replaced by
``[REDACTED:<rule>]``, keeping the words around it (the flag, the variable name, the user in a
URL) so the record still says what happened.

Patterns look for the *shape* of a credential (a vendor prefix and length, a key block, a
``password=`` position), never for values known in advance: nothing here reads the
environment. Order matters where prefixes overlap: Anthropic's ``sk-ant-`` before OpenAI's
``sk-``, a whole JWT before a bearer token. Over-redaction is the safe error: a random
40-character value after ``--token`` is removed even if it was not a secret.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["RedactionRule", "REDACTION_RULES", "REDACTION_MARGIN", "redact", "redact_value"]

#: longer than any secret the table finds (but a private key block, removed to the end of a
#: text when its END line is missing)
REDACTION_MARGIN = 1024


@dataclass(frozen=True)
class RedactionRule:
    """``pattern``'s group ``secret`` (or the whole match when it has none) is replaced."""

    name: str
    pattern: re.Pattern[str]
    reason: str

    def apply(self, text: str) -> tuple[str, int]:
        if "secret" not in self.pattern.groupindex:
            return self.pattern.subn(f"[REDACTED:{self.name}]", text)

        def replace(match: re.Match[str]) -> str:
            start, end = match.span("secret")
            whole = match.group(0)
            offset = match.start()
            return (whole[: start - offset] + f"[REDACTED:{self.name}]"
                    + whole[end - offset:])

        return self.pattern.subn(replace, text)


def _rule(name: str, pattern: str, reason: str, flags: int = 0) -> RedactionRule:
    return RedactionRule(name, re.compile(pattern, flags), reason)


# A value: anything up to whitespace, a quote, or the ⏎ that input summaries put for newlines;
# never a marker an earlier rule left (``export OPENAI_API_KEY=sk-…`` is redacted once).
_VALUE = r"(?!\[REDACTED:)[^\s'\"⏎]+"

#: Applied in order; each rule sees the text the previous rules left.
REDACTION_RULES: tuple[RedactionRule, ...] = (
    _rule("private_key",
          r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
          r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)",
          "a PEM/OpenSSH/PGP private key block (an input summary may cut its END line, so an "
          "unterminated block is removed to the end of the text)"),
    _rule("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
          "a JSON Web Token (header.payload.signature, both JSON parts start with eyJ): a "
          "bearer credential for whatever issued it"),
    _rule("anthropic_key", r"\bsk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_-]{20,}",
          "an Anthropic API key (sk-ant-api03-…, sk-ant-admin01-…)"),
    _rule("openai_key", r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}",
          "an OpenAI API key (sk-…, sk-proj-…, sk-svcacct-…); also most OpenAI-compatible "
          "gateways' keys"),
    _rule("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})",
          "a GitHub token (classic ghp_/gho_/ghu_/ghs_/ghr_ or fine-grained github_pat_)"),
    _rule("aws_access_key_id", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b",
          "an AWS access key id: half of an AWS credential and it names the account"),
    _rule("aws_secret_key",
          r"(?i)\baws_?secret_?access_?key\b['\"]?\s*[:=]\s*['\"]?"
          r"(?P<secret>[A-Za-z0-9/+=]{30,})",
          "an AWS secret access key after its well-known name (40 base64 characters that no "
          "prefix identifies, so only the name can find it)"),
    _rule("slack_token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
          "a Slack bot/user/app token (xoxb-, xoxp-, xoxa-, …)"),
    _rule("slack_webhook", r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]+",
          "a Slack incoming-webhook URL: whoever has it can post to the channel"),
    _rule("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}",
          "a Google API key (AIza + 35 characters; Gemini, Maps, Firebase …)"),
    _rule("google_oauth_token", r"\bya29\.[0-9A-Za-z_-]{20,}",
          "a Google OAuth access token"),
    _rule("huggingface_token", r"\bhf_[A-Za-z0-9]{30,}",
          "a Hugging Face access token"),
    _rule("stripe_key", r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{20,}",
          "a Stripe secret or restricted key"),
    _rule("authorization_header",
          r"(?i)\b(?:proxy-)?authorization\s*:\s*(?:(?:bearer|basic|token|digest)\s+)?"
          r"(?!(?:bearer|basic|token|digest)\b)(?P<secret>" + _VALUE + ")",
          "an HTTP Authorization header value (curl -H, httpie): a credential whatever scheme"),
    _rule("bearer_token", r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/=-]{12,})",
          "a bearer token outside a header (OAuth responses, CLI flags)"),
    _rule("url_password",
          r"(?i)\b[a-z][a-z0-9+.-]*://[^/\s:@'\"⏎\[\]]*:(?P<secret>(?!\[REDACTED:)[^@\s/'\"⏎]+)@",
          "a password in a URL's user-info (postgres://user:PASSWORD@host, https://u:p@…): the "
          "user and host stay readable"),
    _rule("password_flag",
          r"(?i)(?:^|(?<=[\s'\"]))--?(?:password|passwd|pass|pwd|token|auth-token|access-token|"
          r"api-?key|apikey|secret|client-secret|secret-key|access-key|private-key)"
          r"(?:=|\s+)(?P<secret>" + _VALUE + ")",
          "a credential passed as a command-line flag (--password=…, --token …, --api-key …)"),
    _rule("mysql_password", r"\bmysql(?:dump|admin)?\b[^⏎\n]*?\s-p(?P<secret>" + _VALUE + ")",
          "mysql/mysqldump -pPASSWORD (the password glued to -p)"),
    _rule("secret_variable",
          r"\b[A-Z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|"
          r"CREDENTIALS?)[A-Z0-9_]*\s*=\s*['\"]?(?P<secret>" + _VALUE + ")",
          "an environment variable whose name says it holds a secret (export GITHUB_TOKEN=…, "
          "DB_PASSWORD=… in a command or an .env file being written); upper case only, so "
          "code such as max_tokens=100 stays"),
    _rule("secret_assignment",
          r"(?i)\b(?:[a-z0-9]+_)*(?:password|passwd|secret|api_?key|access_?key|secret_?key|"
          r"auth_?token|access_?token|refresh_?token|private_?key)\s*=\s*['\"]?"
          r"(?P<secret>" + _VALUE + ")",
          "code or config assigning a secret by name (password = \"…\", api_key=…)"),
    _rule("secret_json_field",
          r"(?i)[\"'](?:password|passwd|secret|token|api_?key|access_?token|refresh_?token|"
          r"client_?secret|private_?key)[\"']\s*:\s*[\"'](?P<secret>(?!\[REDACTED:)[^\"']+)[\"']",
          "a JSON/YAML/dict field named like a secret (\"password\": \"…\") in a tool input"),
)


def redact(text: str) -> tuple[str, list[str]]:
    """``text`` with every secret the table finds replaced, and the names of the rules that
    fired (empty when nothing was found)."""
    fired: list[str] = []
    for rule in REDACTION_RULES:
        text, count = rule.apply(text)
        if count:
            fired.append(rule.name)
    return text, fired


def redact_value(value: Any, fired: list[str], max_chars: int | None = None) -> Any:
    """A copy of a JSON-like value with every string redacted; rule names go to ``fired``.

    ``max_chars`` cuts longer strings *before* redacting (redaction costs about 0.3 µs per
    character): the caller must then cut at least ``REDACTION_MARGIN`` characters more from
    any string that was that long, so no fragment of a secret split by the first cut stays."""
    if isinstance(value, str):
        if max_chars is not None and len(value) > max_chars:
            value = value[:max_chars]
        text, names = redact(value)
        fired.extend(n for n in names if n not in fired)
        return text
    if isinstance(value, dict):
        return {key: redact_value(item, fired, max_chars) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(item, fired, max_chars) for item in value]
    return value
