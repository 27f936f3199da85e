"""A real HTTP server on 127.0.0.1 that speaks the chat-completions protocol (SSE streaming),
replaying scripted responses, for tests that drive the real ``openai`` client against it.

Each scripted response is ``{"status": 500}`` (an error body), ``{"drop": True}`` (a stream
cut off before its first event), or ``{"chunks": [delta, ...]}``
streamed as ``chat.completion.chunk`` events followed by ``data: [DONE]``. Every request body is
kept in ``requests``. A request with ``stream_options.include_usage`` gets a last chunk with
``usage`` (the step's ``"usage"``, else ``DEFAULT_USAGE``) the way OpenAI sends it; a server
made with ``FakeOpenAIServer(refuse_stream_options=True)`` answers such a request 400, like an
older OpenAI-compatible server.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def text_deltas(*pieces: str) -> list[dict[str, Any]]:
    return [{"content": p} for p in pieces]


def tool_call_deltas(index: int, call_id: str, name: str, *arg_pieces: str) -> list[dict]:
    """A tool call streamed the way OpenAI does: id and name first, arguments in pieces."""
    out = [{"tool_calls": [{"index": index, "id": call_id, "type": "function",
                            "function": {"name": name, "arguments": ""}}]}]
    for piece in arg_pieces:
        out.append({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    return out


DEFAULT_USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


class FakeOpenAIServer:
    def __init__(self, *, refuse_stream_options: bool = False) -> None:
        self.refuse_stream_options = refuse_stream_options
        self.script: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(body)
                    server.paths.append(self.path)
                    if server.refuse_stream_options and "stream_options" in body:
                        step = {"status": 400, "message": "Unrecognized request argument "
                                                          "supplied: stream_options"}
                    else:
                        step = server.script.pop(0) if server.script else {"status": 599}
                status = step.get("status", 200)
                if status != 200:
                    payload = json.dumps({"error": {"message": step.get("message", "boom"),
                                                    "type": "server_error"}}).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                if step.get("drop"):  # promise a body, then hang up: a broken stream
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    self.wfile.write(b"data: {\"id\": \"chatcm")
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                deltas = step["chunks"]
                finish = step.get("finish_reason") or (
                    "tool_calls" if any("tool_calls" in d for d in deltas) else "stop")
                events = [{"role": "assistant"}] + deltas
                for delta in events:
                    self._send({"id": "chatcmpl-test", "object": "chat.completion.chunk",
                                "created": 1700000000, "model": body.get("model", "m"),
                                "choices": [{"index": 0, "delta": delta,
                                             "finish_reason": None}]})
                self._send({"id": "chatcmpl-test", "object": "chat.completion.chunk",
                            "created": 1700000000, "model": body.get("model", "m"),
                            "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
                if (body.get("stream_options") or {}).get("include_usage"):
                    self._send({"id": "chatcmpl-test", "object": "chat.completion.chunk",
                                "created": 1700000000, "model": body.get("model", "m"),
                                "choices": [], "usage": step.get("usage", DEFAULT_USAGE)})
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

            def _send(self, obj: dict[str, Any]) -> None:
                self.wfile.write(b"data: " + json.dumps(obj).encode() + b"\n\n")
                self.wfile.flush()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.05},
                                       daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> "FakeOpenAIServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)
