"""Claude Code in the no-Docker vgb sandbox (harness/claude_vgb.py): the real binary on the project's endpoint, driven
by a scripted Anthropic-dialect model, and a whole eval on a tool-call task through Inspect's public bridge. The binary
is the cache scripts/harness-clis.sh fills (or `python -m verifierbench.harness.claude_vgb fetch`)."""

from __future__ import annotations

import json
import shutil
from typing import Any

import anyio
import pytest

from tests.conftest import skip_unless_required
from tests.harness.inspect_cli import eval_log, inspect
from verifierbench.executor.bwrap import Bind
from verifierbench.executor.isolation import IsolationLevel
from verifierbench.harness import claude_vgb, pi_vgb
from verifierbench.harness.bridged_clis import CliMissing
from verifierbench.harness.model_endpoint import ANTHROPIC_MESSAGES
from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment


@pytest.fixture(scope="module")
def binary() -> str:
    try:
        return claude_vgb.toolchain()
    except CliMissing as missing:
        if shutil.which("npm") is None:
            skip_unless_required("packages", f"{missing} (and npm is not here to fetch it)")
        claude_vgb.fetch()
        return claude_vgb.toolchain()


def test_a_binary_that_is_not_npms_is_refused_in_one_line(tmp_path, monkeypatch):
    fake = claude_vgb.binary_path(tmp_path)
    fake.parent.mkdir(parents=True)
    fake.write_bytes(b"#!/bin/sh\n")
    for directory in (tmp_path, tmp_path / "packages", fake.parent.parent, fake.parent):
        directory.chmod(0o755)
    monkeypatch.setenv("VERIFIERBENCH_HARNESS_CACHE", str(tmp_path))
    claude_vgb.toolchain.cache_clear()
    try:
        with pytest.raises(CliMissing, match="sha256 differs") as refused:
            claude_vgb.toolchain()
    finally:
        claude_vgb.toolchain.cache_clear()
    assert "\n" not in str(refused.value) and claude_vgb.FETCH_COMMAND in str(refused.value)


def test_the_real_claude_code_speaks_anthropic_messages_to_the_endpoint_and_its_bash_tool_stays_in_the_sandbox(
        binary, bwrap_available):
    """One Bash call (writes the workspace, tries the host's network), then a final reply; the tool's output comes
    back in Claude Code's next request."""
    requests: list[tuple[str, dict]] = []
    probe = ("echo hello > /workspace/probe; python3 -c \"import socket\ns = socket.socket(); s.settimeout(3)\n"
             "try:\n  s.connect(('10.0.2.2', 53)); print('OUT open')\nexcept OSError as e: print('OUT refused')\"")

    async def generate(api: str, request: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        requests.append((api, request))
        first = sum(1 for _, r in requests if r.get("tools")) == 1 and request.get("tools")
        content: list[dict[str, Any]] = ([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": probe}}]
                                         if first else [{"type": "text", "text": "finished"}])
        return {"id": f"m{len(requests)}", "type": "message", "role": "assistant", "model": "inspect", "content": content,
                "stop_reason": "tool_use" if first else "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}

    async def main():
        box = VgbSandboxEnvironment(IsolationLevel.bwrap, task_type="tool-call")
        try:
            cli = claude_vgb.CLAUDE_CODE
            result = await pi_vgb.run_cli_in_vgb(box, (Bind(binary, claude_vgb.INSIDE),), generate,
                                                 cli.command("", "SYSTEM", "Probe the sandbox."), "/workspace", 13260, cli, {})
            return result, (box.workspace / "probe").read_text() if (box.workspace / "probe").exists() else None
        finally:
            box.remove()

    result, written = anyio.run(main)
    assert result.success and "finished" in result.stdout, (result.returncode, result.stderr[-2000:])
    assert written == "hello\n"
    assert {api for api, _ in requests} == {ANTHROPIC_MESSAGES} and all(r.get("stream") for _, r in requests)
    offered = {tool["name"] for _, r in requests for tool in r.get("tools", [])}
    assert "Bash" in offered and not {"WebSearch", "WebFetch"} & offered, offered
    results = [block for _, r in requests for m in r["messages"] if m["role"] == "user" and isinstance(m["content"], list)
               for block in m["content"] if block.get("type") == "tool_result"]
    assert results and "OUT refused" in json.dumps(results), results


@pytest.mark.timeout(600)
@pytest.mark.usefixtures("binary", "bwrap_available")
def test_claude_code_in_vgb_delivers_a_verifier_on_a_tool_call_task_with_the_default_harness_decisions(tmp_path, bfcl_suite):
    logs = {}
    for harness in ("default", "claude_code"):
        result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T",
                         f"suite={bfcl_suite}", "--limit", "1", "-T", f"harness={harness}", "--log-dir", str(tmp_path / harness))
        assert result.returncode == 0, result.stderr[-3000:]
        logs[harness] = eval_log(tmp_path / harness)
    log = logs["claude_code"]
    assert log.status == "success" and log.eval.metadata["harness_transport"] == "unix-socket"
    (sample,) = log.samples
    assert not sample.error, sample.error
    called = [e.output.message.tool_calls[0].function for e in sample.events if e.event == "model" and e.output.message.tool_calls]
    assert "Bash" in called and "Write" in called, called  # Claude Code's own tools, through the bridge
    decisions = {name: [case["decisions"] for case in l.samples[0].scores["hidden_cases"].metadata["cases"]]
                 for name, l in logs.items()}
    assert decisions["claude_code"] == decisions["default"] and decisions["default"]
