"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for driving Inspect's real
`openai-api` provider in tests. Not a model: each sample's replies are looked up by a marker in its
first user message and by how many assistant turns the conversation already has."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer: text, tool calls, or an HTTP error status with an OpenAI-style error body."""

    text: str | None = None
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    status: int = 200
    error: dict[str, Any] | None = None
    delay_s: float = 0.0  # answer only after this long (a server still busy generating)
    raw_body: bytes | None = None  # sent as it is with status 200 and a JSON content type (a proxy's garbage page)


class Script:
    """marker -> replies by turn; the last reply repeats once the script runs out."""

    def __init__(self, scenarios: dict[str, list[Reply]]) -> None:
        self.scenarios = scenarios
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def reply_for(self, body: dict[str, Any]) -> Reply:
        with self.lock:
            self.requests.append(body)
        messages = body.get("messages", [])
        first_user = next((m.get("content") for m in messages if m.get("role") == "user"), "")
        text = first_user if isinstance(first_user, str) else "".join(part.get("text", "") for part in first_user or [])
        turn = sum(m.get("role") == "assistant" for m in messages)
        for marker, replies in self.scenarios.items():
            if marker in text:
                return replies[min(turn, len(replies) - 1)]
        return Reply(status=500, error={"message": "no scenario for this prompt", "type": "server_error"})


def completion(reply: Reply, model: str) -> dict[str, Any]:
    calls = [{"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
             for i, (name, args) in enumerate(reply.tool_calls)]
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if calls:
        message["tool_calls"] = calls
    return {"id": "chatcmpl-loopback", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def serve(script: Script) -> ThreadingHTTPServer:
    """Starts the server on a free loopback port in a daemon thread; `server.server_port` is the port."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            if not self.path.endswith("/chat/completions"):
                return self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            if body.get("stream"):
                return self._send(400, {"error": {"message": "this test server does not stream", "type": "invalid_request_error"}})
            reply = script.reply_for(body)
            time.sleep(reply.delay_s)
            if reply.raw_body is not None:
                return self._send(200, reply.raw_body)
            if reply.status != 200:
                return self._send(reply.status, {"error": reply.error or {}})
            self._send(200, completion(reply, body.get("model", "local")))

        def _send(self, status: int, payload: dict[str, Any] | bytes) -> None:
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (an attempt timeout): nothing to answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
