"""Programs that talk to the network: what they send and what they save.

Every one reports ``network``. Files sent (``curl -d @f``, ``-F x=@f``, ``-T f``,
``wget --post-file=f``, ``scp f host:``) are reads, so a secret leaving the machine is seen;
files saved (``curl -o``, ``-O``, ``wget``'s default name, ``scp host:f .``) are writes. For
the words of a network program that look like local paths but that the table does not know,
``read`` accesses with detail ``maybe`` let the permission layer check them for secrets.
"""

from __future__ import annotations

from typing import Callable

from ..effects import READ, WRITE, Effects
from ..words import Word, literal

__all__ = ["NETWORK", "DOWNLOADERS", "network_program"]

DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "httpie",
                         "lwp-request", "GET", "lynx", "links", "w3m"})
NETWORK = DOWNLOADERS | frozenset({
    "nc", "ncat", "netcat", "socat", "telnet", "ssh", "scp", "sftp", "rsync", "ftp", "tftp",
    "sendmail", "mail", "mutt", "openssl", "gsutil", "rclone", "s3cmd", "aws", "gcloud", "az",
    "ngrok", "sshpass", "npx", "pnpx", "bunx", "git-remote-http"})

# curl/wget options whose value is a file sent or read (values starting with @ or < for
# the data options)
_CURL_UPLOAD = frozenset({"-d", "--data", "--data-binary", "--data-raw", "--data-ascii",
                          "--data-urlencode", "-F", "--form", "--form-string", "--json",
                          "-T", "--upload-file", "-K", "--config", "-b", "--cookie",
                          "--cert", "-E", "--key", "--cacert", "--netrc-file"})
_CURL_VALUE = _CURL_UPLOAD | frozenset({
    "-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
    "--stderr", "--libcurl", "--output-dir", "-H", "--header", "-u", "--user", "-X",
    "--request", "-A", "--user-agent", "-e", "--referer", "-m", "--max-time", "-x", "--proxy",
    "-w", "--write-out", "--connect-timeout", "--retry", "-r", "--range", "-Y", "-y", "-z",
    "--url", "--resolve", "--connect-to", "--interface", "-U", "--proxy-user"})
_CURL_OUTPUT = frozenset({"-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar",
                          "--trace", "--trace-ascii", "--stderr", "--libcurl"})
_WGET_OUTPUT = frozenset({"-O", "--output-document", "-o", "--output-file", "-a",
                          "--append-output", "--save-cookies", "-P", "--directory-prefix",
                          "--warc-file"})
_WGET_READ = frozenset({"--post-file", "--body-file", "-i", "--input-file",
                        "--load-cookies", "--certificate", "--private-key", "--ca-certificate",
                        "--config"})
_REMOTE_COPY = frozenset({"scp", "rsync", "sftp"})
_IDENTITY = frozenset({"-i", "-F", "--identity-file", "-o", "-J", "-p", "-P", "-l", "-c",
                       "-e", "--rsh", "-S"})


def _url(value: str) -> bool:
    head = value.split("://", 1)[0].lower()
    return "://" in value and head in ("http", "https", "ftp", "ftps", "sftp", "scp", "file",
                                       "s3", "gs", "ws", "wss", "dict", "gopher", "ldap",
                                       "telnet", "tftp", "smb")


def _path_like(value: str) -> bool:
    return bool(value) and not value.startswith("-") and not _url(value) and (
        "/" in value or value.startswith((".", "~")) or "." in value)


def _candidate(value: str) -> str:
    """The file a value may name: ``@f``, ``<f``, ``name=@f``, ``--opt=f``."""
    if "=@" in value or "=<" in value:
        return value.split("=@" if "=@" in value else "=<", 1)[1]
    if value.startswith(("@", "<")):
        return value[1:]
    if value.startswith("-") and "=" in value:
        return value.split("=", 1)[1].lstrip("@<")
    return value


_CURL_FILE_VALUE = frozenset({"-T", "--upload-file", "-K", "--config", "--cert", "-E",
                              "--key", "--cacert", "--netrc-file"})


def _options(words: list[Word], valued: frozenset[str]):
    """Yield (name, value word or None) for each option of a curl/wget argv, and (None, word)
    for each operand. Short options bundle (``-sSLo out``, ``-qO-``); a value is the rest of
    the bundle or the next word."""
    i = 0
    count = len(words)
    while i < count:
        word = words[i]
        value = word.value
        i += 1
        if value is None or not value.startswith("-") or value == "-":
            yield None, word
            continue
        if value.startswith("--"):
            name, eq, attached = value.partition("=")
            if name in valued:
                if eq:
                    yield name, literal(attached)
                elif i < count:
                    yield name, words[i]
                    i += 1
            else:
                yield name, None
            continue
        for k in range(1, len(value)):
            name = "-" + value[k]
            if name in valued:
                rest = value[k + 1:]
                if rest:
                    yield name, literal(rest)
                elif i < count:
                    yield name, words[i]
                    i += 1
                break
            yield name, None


def curl(argv: list[Word]) -> Effects:
    effects = Effects(False, "curl talks to the network")
    effects.network = "curl talks to the network"
    remote_name = False
    urls: list[str] = []
    for name, word in _options(argv[1:], _CURL_VALUE):
        if name is None:
            if word.value is not None:
                urls.append(word.value)
            continue
        if name in ("-O", "--remote-name", "--remote-name-all"):
            remote_name = True
            continue
        if word is None or word.value is None:
            continue
        value = word.value
        if name in _CURL_OUTPUT:
            if value != "-":
                effects.add(WRITE, word)
        elif name in _CURL_FILE_VALUE or (name in ("-b", "--cookie") and "=" not in value):
            if value != "-":
                effects.add(READ, word)
        elif name in _CURL_UPLOAD:
            if value.startswith(("@", "<")) or "=@" in value or "=<" in value:
                path = _candidate(value)
                if path and path != "-":
                    effects.add(READ, literal(path))
        elif name == "--url":
            urls.append(value)
    _file_urls(urls, effects)
    if remote_name:
        for url in urls:
            base = url.rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0]
            if base:
                effects.add(WRITE, literal(base))
    return effects


def _file_urls(urls: list[str], effects: Effects) -> None:
    """``file:///etc/passwd`` is a local read."""
    for url in urls:
        if url.lower().startswith("file://"):
            path = url[7:]
            if path.startswith("localhost/"):
                path = path[9:]
            if path:
                effects.add(READ, literal(path))


def wget(argv: list[Word]) -> Effects:
    effects = Effects(False, "wget downloads files")
    effects.network = "wget talks to the network"
    saved = False
    urls: list[str] = []
    for name, word in _options(argv[1:], _WGET_OUTPUT | _WGET_READ):
        if name is None:
            if word.value is not None:
                urls.append(word.value)
            continue
        if word is None or word.value is None:
            continue
        value = word.value
        if name in _WGET_READ:
            effects.add(READ, word)
        elif name in ("-O", "--output-document") and value == "-":
            saved = True
        elif value != "-":
            effects.add(WRITE, word)
            if name in ("-O", "--output-document", "-P", "--directory-prefix"):
                saved = True
    _file_urls(urls, effects)
    if not saved:
        for url in urls:
            base = url.rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0] or "index.html"
            effects.add(WRITE, literal(base))
    return effects


def remote_copy(argv: list[Word]) -> Effects:
    """scp/rsync/sftp: local sources are read, a local destination is written."""
    name = argv[0].value or "scp"
    effects = Effects(False, f"{name} copies files over the network")
    effects.network = f"{name} talks to the network"
    operands: list[Word] = []
    words = argv[1:]
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        value = word.value or ""
        if value.startswith("-"):
            if value in _IDENTITY and i < len(words):
                i += 1
            continue
        operands.append(word)
    if not operands:
        return effects
    *sources, destination = operands if len(operands) > 1 else (operands + [literal(".")])
    for word in sources:
        value = word.value or ""
        if ":" not in value.split("/", 1)[0] or value.startswith("/"):
            effects.add(READ, word, recursive=True)
    value = destination.value or ""
    if ":" not in value.split("/", 1)[0] or value.startswith("/"):
        effects.add(WRITE, destination, recursive=True)
    return effects


def network_program(argv: list[Word]) -> Effects:
    """Any other network program: what it sends is unknown; words that look like local paths
    are possible reads (``maybe``)."""
    name = argv[0].value or "?"
    effects = Effects(False, f"{name} talks to the network")
    effects.network = f"{name} talks to the network"
    words = argv[1:]
    skip = False
    for word in words:
        value = word.value
        if skip:
            skip = False
            continue
        if value is None:
            continue
        if value in _IDENTITY and name in ("ssh", "sshpass", "sftp"):
            skip = True  # `ssh -i KEY`: using a key to log in is what ssh is for
            continue
        candidate = _candidate(value)
        if _path_like(candidate):
            effects.add(READ, literal(candidate), detail="maybe")
    return effects


NETWORK_PROGRAMS: dict[str, Callable[[list[Word]], Effects]] = {
    "curl": curl, "wget": wget, "scp": remote_copy, "rsync": remote_copy, "sftp": remote_copy,
}
