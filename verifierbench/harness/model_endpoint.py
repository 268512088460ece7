"""The project's model transport for CLI harnesses: an HTTP/1.1 endpoint on a unix socket of the host that answers
OpenAI chat-completions and Anthropic messages requests with the eval's model, without polling.

A request reaches the host as soon as the CLI sends it: the socket's directory is bound into the sandbox, where
`sandboxes/loopback_forward.py` listens on the sandbox's own 127.0.0.1 and pipes each connection to it (the CLIs
speak TCP). The model is reached through Inspect's public in-process bridge (`inspect_ai.agent.agent_bridge`): the
request body goes to the OpenAI or Anthropic SDK client with the model named "inspect", which the bridge routes to
the active model, so the task's message, token and time limits count the calls and the bridge's state records them,
as under Inspect's own sandbox bridge. Streaming requests are answered whole, as the event stream a client
reassembles (the in-process bridge answers whole completions).

What the sandbox sends is untrusted (issue 51): connections, head and body are capped, a large body is parsed off the
event loop, and anything malformed gets an HTTP error, never an exception in the harness.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import tempfile
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator, Awaitable, Callable

import anyio
from anyio.abc import ByteStream

SOCKET_NAME = "bridge.sock"
OPENAI_COMPLETIONS = "openai-completions"
OPENAI_RESPONSES = "openai-responses"
ANTHROPIC_MESSAGES = "anthropic-messages"
GOOGLE_GENERATE = "google-generate-content"

# What the sandbox can make the harness hold (issue 51): every byte below is in the harness's own process, outside
# the sandbox's memory cgroup. The largest real request is bounded by the model's context window: pi and Claude Code are told
# 1,000,000 tokens (bridged_clis.openai_provider; it compacts before that), less max_tokens 32,768 for the answer; at
# up to 5 characters a token and 1.11 bytes of JSON per character (measured: this repository's sources read and
# written through pi-style tool calls), about 5.4 MB (an estimate: no tokenizer here). At most 16 connections parked
# at the cap hold 128 MiB; 8 held 68 MiB of RSS (tests/harness/test_model_endpoint.py).
MAX_BODY = 8 << 20
MAX_HEAD = 64 << 10
MAX_CONNECTIONS = 16  # pi's client keeps one or two open
BODY_TIMEOUT_S = 60.0  # a real body crosses the local socket at once; a parked one frees its connection
PARSE_OFF_LOOP = 256 << 10  # bodies above this are parsed in a worker thread, one at a time
RECEIVE_BYTES = 1 << 20
REFUSE_DRAIN_S = 0.5

# (api, request body, request headers) -> the response body; raises ProviderError for an error the client is to get.
Generate = Callable[[str, dict[str, Any], dict[str, str]], Awaitable[dict[str, Any]]]


class ProviderError(Exception):
    """A model error the CLI is answered with (its HTTP status and error body) rather than one that ends the sample."""

    def __init__(self, status: int, payload: dict[str, Any]) -> None:
        super().__init__(f"{status}: {payload}")
        self.status = status
        self.payload = payload


def bridge_generate() -> Generate:
    """Answers each request with the active model through Inspect's in-process bridge; call inside
    `inspect_ai.agent.agent_bridge(...)` (its context reaches the endpoint's tasks, started in the same block).

    A model error that carries an HTTP status (the provider's, after Inspect's retries) goes back to the CLI as that
    status, as Inspect's sandbox bridge forwards it; anything else (a limit reached, a termination) ends the sample."""
    from anthropic import AsyncAnthropic
    from anthropic.types import Message
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion
    from openai.types.responses import Response

    from google import genai
    from google.genai import types

    # Never connected: the bridge answers requests for the model "inspect" before they reach the network.
    google_client = genai.Client(api_key="bridge", http_options=types.HttpOptions(base_url="http://127.0.0.1:9"))
    openai_client = AsyncOpenAI(api_key="bridge", base_url="http://127.0.0.1:9/v1", max_retries=0)
    anthropic_client = AsyncAnthropic(api_key="bridge", base_url="http://127.0.0.1:9", max_retries=0)

    async def generate(api: str, request: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        body = {key: value for key, value in request.items() if key not in ("stream", "stream_options")}
        body["model"] = "inspect"  # whatever the CLI named: the eval's model
        try:
            if api == GOOGLE_GENERATE:
                answer = await google_client.aio.models.generate_content(
                    model="inspect", contents=[types.Content.model_validate(c) for c in request.get("contents") or []],
                    config=types.GenerateContentConfig.model_validate(google_config(request)))
                return answer.model_dump(mode="json", by_alias=True, exclude_none=True)
            if api == ANTHROPIC_MESSAGES:
                message = await anthropic_client.post("/v1/messages", cast_to=Message, body=body)
                return message.model_dump(mode="json", exclude_none=True)
            if api == OPENAI_RESPONSES:
                response = await openai_client.post("/responses", cast_to=Response, body=body)
                return response.model_dump(mode="json", exclude_none=True)
            completion = await openai_client.post("/chat/completions", cast_to=ChatCompletion, body=body)
            return completion.model_dump(mode="json", exclude_none=True)
        except Exception as exc:
            status = getattr(exc, "status_code", None)
            if not isinstance(status, int) or not 400 <= status < 600:
                raise
            raise ProviderError(status, error_payload(api, str(exc))) from exc

    return generate


def google_config(request: dict[str, Any]) -> dict[str, Any]:
    """A Gemini REST request's settings as the SDK's GenerateContentConfig takes them: generationConfig's fields and the
    request's own (system instruction, tools, tool config, safety settings), camelCase as sent."""
    own = {key: request[key] for key in ("systemInstruction", "tools", "toolConfig", "safetySettings") if key in request}
    return {**(request.get("generationConfig") or {}), **own}


def error_payload(api: str, message: str) -> dict[str, Any]:
    """An error body in the dialect of `api` (what its SDK parses into an exception with this message)."""
    if api == ANTHROPIC_MESSAGES:
        return {"type": "error", "error": {"type": "api_error", "message": message}}
    return {"error": {"message": message}}




@asynccontextmanager
async def bridge_socket(generate: Generate, owner: int | None, directory: Path | None = None) -> AsyncIterator[Path]:
    """Serves `generate` over HTTP/1.1 on a fresh unix socket for the block; yields its directory.

    Args:
      generate: answers one chat-completions request body.
      owner: the uid the socket is given to (the sample's sandbox uid, when the harness is root), mode 0600.
      directory: where the socket is made (a container's bind-mounted directory, made before the container:
        sandboxes/docker_provider.py); the socket alone is removed after. None: a fresh directory, removed after.
    """
    fresh = directory is None
    directory = Path(tempfile.mkdtemp(prefix="verifierbench-bridge-")) if directory is None else directory
    os.chmod(directory, 0o755)
    path = directory / SOCKET_NAME
    path.unlink(missing_ok=True)  # a previous run's in the same sample
    listener = await anyio.create_unix_listener(path)
    if owner is not None:
        os.chown(path, owner, owner)
    os.chmod(path, 0o600)
    connections = Connections(anyio.CapacityLimiter(MAX_CONNECTIONS), anyio.CapacityLimiter(1))
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(listener.serve, functools.partial(serve_connection, generate, connections=connections), group)
            try:
                yield directory
            finally:
                group.cancel_scope.cancel()
    finally:
        await listener.aclose()
        if fresh:
            shutil.rmtree(directory, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


@dataclass(frozen=True)
class Connections:
    """What a bridge socket's connections share: the cap on how many are served at once, and the one thread that
    parses large bodies."""

    open: anyio.CapacityLimiter
    parse: anyio.CapacityLimiter


async def serve_connection(generate: Generate, stream: ByteStream, *, connections: Connections) -> None:
    """One client connection: requests in turn (keep-alive) until it closes. What the sandbox sends cannot fail the
    sample: a malformed request gets 400, one over the body cap 413, a connection over the cap 503 (each closes it), a
    client gone mid-answer is dropped. Only what the bridge raises on purpose (a limit reached, a termination) goes up,
    and ends the sample as under Docker."""
    async with stream:
        try:
            connections.open.acquire_nowait()
        except anyio.WouldBlock:
            await refuse(stream, 503, f"the bridge serves at most {MAX_CONNECTIONS} connections at once")
            return
        try:
            await serve_requests(generate, stream, connections.parse)
        except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, TimeoutError):
            return
        finally:
            connections.open.release()


async def serve_requests(generate: Generate, stream: ByteStream, parse: anyio.CapacityLimiter) -> None:
    # Linear buffering: the head is searched only where new bytes arrived, the body is written into a buffer of its
    # declared size (`buffer += chunk` copied everything received so far, for every chunk: quadratic).
    pending = bytearray()
    while True:
        scanned = 0
        while (end := pending.find(b"\r\n\r\n", max(scanned - 3, 0))) < 0:
            if len(pending) > MAX_HEAD:
                return
            scanned = len(pending)
            pending += await stream.receive(RECEIVE_BYTES)
        head, pending = bytes(pending[:end]), pending[end + 4:]
        try:
            method, target, headers, length = parse_head(head)
        except BodyTooLarge as large:
            await refuse(stream, 413, str(large))
            return
        except ValueError as bad:
            await refuse(stream, 400, str(bad))
            return
        body = bytearray(length)  # zero pages until written: memory follows what arrives
        view = memoryview(body)
        filled = min(len(pending), length)
        view[:filled] = pending[:filled]
        pending = pending[filled:]
        with anyio.fail_after(BODY_TIMEOUT_S):
            while filled < length:
                chunk = await stream.receive(min(RECEIVE_BYTES, length - filled))
                view[filled:filled + len(chunk)] = chunk
                filled += len(chunk)
        view.release()
        await stream.send(await answer(generate, method, target, headers, body, parse))
        del body
        if headers.get("connection", "").lower() == "close":
            return


async def refuse(stream: ByteStream, status: int, message: str) -> None:
    """Answers `status` and ends the connection. What the client sent is drained for a moment first: closing a unix
    socket with unread bytes resets the connection, and the client would lose the answer."""
    try:
        await stream.send(http_response(status, {"error": {"message": message}}, close=True))
        await stream.send_eof()
        with anyio.move_on_after(REFUSE_DRAIN_S):
            drained = 0
            while drained < MAX_HEAD:
                drained += len(await stream.receive(MAX_HEAD))
    except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass


class BodyTooLarge(ValueError):
    pass


def parse_head(head: bytes) -> tuple[str, str, dict[str, str], int]:
    """(method, target, headers with lower-case names, body length) of a request head; ValueError when malformed or
    refused (no chunked bodies: pi's client sends a length)."""
    request_line, *lines = head.decode("latin-1").split("\r\n")
    parts = request_line.split(" ")
    if len(parts) != 3:
        raise ValueError("malformed request line")
    headers = {key.strip().lower(): value.strip() for key, value in (line.split(":", 1) for line in lines if ":" in line)}
    if "transfer-encoding" in headers:
        raise ValueError("chunked request bodies are not served")
    length = int(headers.get("content-length", "0") or 0)
    if length < 0:
        raise ValueError(f"a body of {length} bytes is refused")
    if length > MAX_BODY:
        raise BodyTooLarge(f"a body of {length} bytes is over the bridge's cap of {MAX_BODY} bytes")
    return parts[0], parts[1], headers, length


async def answer(generate: Generate, method: str, target: str, headers: dict[str, str], body: bytes | bytearray,
                 parse: anyio.CapacityLimiter | None = None) -> bytes:
    path = target.split("?", 1)[0].rstrip("/")
    if method == "GET" and path.endswith("/models"):
        return http_response(200, {"object": "list", "data": [{"id": "inspect", "object": "model", "owned_by": "inspect"}]})
    api = (OPENAI_COMPLETIONS if path.endswith("/chat/completions") else
           OPENAI_RESPONSES if path.endswith("/v1/responses") else
           ANTHROPIC_MESSAGES if path.endswith("/v1/messages") else
           GOOGLE_GENERATE if path.endswith((":generateContent", ":streamGenerateContent")) else None)
    if method != "POST" or api is None:
        return http_response(404, {"error": {"message": f"{method} {path}: only chat completions, responses and messages "
                                                        "are served"}})
    try:
        # A large body's parse off the event loop, which every sample shares (json's scanner still holds the GIL:
        # the body cap bounds how long).
        request = (json.loads(body) if len(body) <= PARSE_OFF_LOOP
                   else await anyio.to_thread.run_sync(json.loads, body, limiter=parse))
    except ValueError:
        request = None
    if not isinstance(request, dict):
        return http_response(400, error_payload(api, "the body is not a JSON object"))
    try:
        response = await generate(api, request, headers)
    except ProviderError as error:
        return http_response(error.status, error.payload)
    if api == GOOGLE_GENERATE:  # streamed when the path says so (`?alt=sse`): the whole answer as its one chunk
        return sse_response([(None, response)], done=False) if path.endswith(":streamGenerateContent") else http_response(200, response)
    if not request.get("stream"):
        return http_response(200, response)
    if api == ANTHROPIC_MESSAGES:
        return sse_response([(event["type"], event) for event in message_events(response)], done=False)
    if api == OPENAI_RESPONSES:
        return sse_response([(event["type"], event) for event in response_events(response)], done=False)
    include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
    return sse_response([(None, chunk) for chunk in completion_chunks(response, include_usage)], done=True)

def http_response(status: int, payload: dict[str, Any], close: bool = False) -> bytes:
    body = json.dumps(payload).encode()
    head = (f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n" + ("Connection: close\r\n" if close else "") + "\r\n")
    return head.encode() + body


def sse_response(events: list[tuple[str | None, dict[str, Any]]], done: bool) -> bytes:
    """Server-sent events, each with its `event:` name when it has one (Anthropic's), then OpenAI's `[DONE]`."""
    body = "".join((f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n" for name, data in events)
    body += "data: [DONE]\n\n" if done else ""
    head = f"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {len(body.encode())}\r\n\r\n"
    return head.encode() + body.encode()


def completion_chunks(completion: dict[str, Any], include_usage: bool) -> list[dict[str, Any]]:
    """A whole chat completion as the stream of chunks a streaming client expects: one delta per choice, its finish
    reason, then the usage when asked for."""
    base = {"id": completion.get("id", ""), "object": "chat.completion.chunk", "created": completion.get("created", int(time.time())),
            "model": completion.get("model", "inspect")}
    chunks = []
    for choice in completion.get("choices", []):
        message = choice.get("message") or {}
        delta: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
        for key in ("reasoning_content", "refusal"):
            if message.get(key):
                delta[key] = message[key]
        if message.get("tool_calls"):
            delta["tool_calls"] = [{"index": index, "id": call.get("id"), "type": "function", "function": call.get("function")}
                                   for index, call in enumerate(message["tool_calls"])]
        chunks.append({**base, "choices": [{"index": choice.get("index", 0), "delta": delta, "finish_reason": None}]})
        chunks.append({**base, "choices": [{"index": choice.get("index", 0), "delta": {}, "finish_reason": choice.get("finish_reason")}]})
    if include_usage and completion.get("usage"):
        chunks.append({**base, "choices": [], "usage": completion["usage"]})
    return chunks


def response_events(response: dict[str, Any]) -> list[dict[str, Any]]:
    """A whole Responses-API response as the stream a streaming client reassembles: response.created, each output item
    (added, its text in one delta when it is a message, done), response.completed; numbered in sequence."""
    events: list[dict[str, Any]] = [{"type": "response.created", "response": {**response, "status": "in_progress", "output": []}}]
    for index, item in enumerate(response.get("output") or []):
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
        for part_index, part in enumerate(item.get("content") or [] if item.get("type") == "message" else []):
            if part.get("type") == "output_text":
                events.append({"type": "response.output_text.delta", "item_id": item.get("id", ""), "output_index": index,
                               "content_index": part_index, "delta": part.get("text", "")})
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": response})
    return [{**event, "sequence_number": number} for number, event in enumerate(events)]


def message_events(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A whole Anthropic message as the stream of events a streaming client reassembles: message_start, each content
    block (its start, one delta carrying all of it, its stop), message_delta with the stop reason, message_stop."""
    usage = message.get("usage") or {}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {
        **message, "content": [], "stop_reason": None, "stop_sequence": None, "usage": {**usage, "output_tokens": 0}}}]
    for index, block in enumerate(message.get("content") or []):
        start, delta = block_start_and_delta(block)
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events.extend({"type": "content_block_delta", "index": index, "delta": part} for part in delta)
        events.append({"type": "content_block_stop", "index": index})
    events.append({"type": "message_delta", "delta": {"stop_reason": message.get("stop_reason"),
                                                      "stop_sequence": message.get("stop_sequence")},
                   "usage": {"output_tokens": usage.get("output_tokens", 0)}})
    events.append({"type": "message_stop"})
    return events


def block_start_and_delta(block: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A content block's content_block_start payload and its deltas (none for a block that streams whole)."""
    kind = block.get("type")
    if kind == "text":
        return {**block, "text": ""}, [{"type": "text_delta", "text": block.get("text", "")}]
    if kind == "tool_use":
        return {**block, "input": {}}, [{"type": "input_json_delta", "partial_json": json.dumps(block.get("input", {}))}]
    if kind == "thinking":
        deltas = [{"type": "thinking_delta", "thinking": block.get("thinking", "")}]
        if block.get("signature"):
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        return {**block, "thinking": "", "signature": ""}, deltas
    return block, []
