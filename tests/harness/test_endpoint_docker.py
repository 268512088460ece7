"""The project's model endpoint under Docker (harness/endpoint_docker.py): the per-sample directory bound read-only
into the container, `-T transport` choosing between it and Inspect's polled bridge, and pi on it giving the default
harness's decisions on a tool-call task, as Claude Code does on Inspect's bridge (the one Docker eval that keeps that
option proven; Claude Code on the endpoint: tests/harness/test_connections.py, test_harnesses.py and
test_harnesses_code.py).

The Docker test needs the engine (tests/harness/test_docker.py: skips without one) and the harness image.
"""

from __future__ import annotations

import os
import statistics

import pytest
import yaml

from tests.conftest import logs_of
from tests.harness.inspect_cli import eval_log, inspect
from tests.harness.test_harnesses import HARNESS_COMPOSE
from verifierbench.core.errors import UserError
from verifierbench.harness.bridged_clis import BRIDGE_PORT_KEY as BRIDGED_CLI_PORT
from verifierbench.harness.registry import SANDBOX_BRIDGE, UNIX_SOCKET, get
from verifierbench.sandboxes import cli_overlay, docker_provider
from verifierbench.task import verifierbench


def test_the_harness_compose_file_and_the_code_overlay_bind_the_same_endpoint_directory_read_only():
    (service,) = yaml.safe_load(open(HARNESS_COMPOSE))["services"].values()
    mounts = [m for m in service["volumes"] if isinstance(m, dict)]
    assert mounts == [cli_overlay.ENDPOINT_MOUNT]
    assert mounts[0]["read_only"] is True and mounts[0]["target"] == docker_provider.ENDPOINT_INSIDE
    assert mounts[0]["bind"] == {"create_host_path": False}  # no directory from the provider: the container fails
    assert service["network_mode"] == "none"


def test_the_provider_makes_an_endpoint_directory_only_for_a_compose_file_that_binds_one(tmp_path):
    made = docker_provider.endpoint_directory(str(HARNESS_COMPOSE))
    try:
        assert made is not None and made.is_dir() and made.stat().st_mode & 0o777 == 0o755 and not any(made.iterdir())
    finally:
        if made is not None:
            made.rmdir()
    other = tmp_path / "compose.yaml"
    other.write_text("services: {default: {image: x}}\n")
    assert docker_provider.endpoint_directory(str(other)) is None
    assert docker_provider.endpoint_directory(None) is None


@pytest.mark.parametrize("harness", ["pi", "claude_code"])
def test_pi_and_claude_code_under_docker_default_to_the_endpoint_and_can_still_choose_inspects_bridge(harness, bfcl_suite):
    assert get(harness).transport_choices("docker") == (UNIX_SOCKET, SANDBOX_BRIDGE)
    for transport, expected in ((None, UNIX_SOCKET), (SANDBOX_BRIDGE, SANDBOX_BRIDGE), (UNIX_SOCKET, UNIX_SOCKET)):
        task = verifierbench(suite=str(bfcl_suite), harness=harness, sandbox="docker", transport=transport)
        assert task.metadata["harness_transport"] == expected
    # k8s cannot bind a host socket: Inspect's bridge only; the default harness has no transport to choose.
    assert get(harness).transport_choices("k8s") == (SANDBOX_BRIDGE,)
    for harness, sandbox, transport in (("pi", "k8s", UNIX_SOCKET), ("default", "docker", UNIX_SOCKET),
                                        ("pi", "docker", "carrier-pigeon")):
        with pytest.raises(UserError, match=f"-T transport={transport!r}: harness {harness} in the {sandbox} sandbox") as refused:
            verifierbench(suite=str(bfcl_suite), harness=harness, sandbox=sandbox, transport=transport)
        assert "\n" not in str(refused.value)


@pytest.mark.timeout(1200)
@pytest.mark.usefixtures("harness_image", "bwrap_available")
def test_pi_on_the_endpoint_and_claude_code_on_inspects_bridge_give_the_default_harness_decisions_on_a_tool_call_task(
        tmp_path, bfcl_suite, bfcl_policy_logs):
    logs = {}
    for harness, transport in (("pi", ()), ("claude_code", ("-T", f"transport={SANDBOX_BRIDGE}"))):
        result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T",
                         f"suite={bfcl_suite}", "--limit", "1", "-T", f"harness={harness}", "-T", "sandbox=docker",
                         *transport, "--log-dir", str(tmp_path / harness))
        assert result.returncode == 0, result.stderr[-3000:]
        logs[harness] = eval_log(tmp_path / harness)
    # The default harness in vgb on the same task with the same options: the heuristic's log of the shared policy logs.
    logs["default"] = eval_log(logs_of(bfcl_policy_logs, ["verifierbench/heuristic"], tmp_path / "default"))
    logs["default"].samples = [s for s in logs["default"].samples if s.id == logs["pi"].samples[0].id]
    assert len(logs["default"].samples) == 1
    bridged = logs["claude_code"]
    assert bridged.status == "success" and bridged.eval.metadata["harness_transport"] == SANDBOX_BRIDGE, bridged.error
    (sample,) = bridged.samples
    assert not sample.error, sample.error
    # inspect-swe's agent ran, on Inspect's sandbox bridge (the port it records), not the project's endpoint.
    assert "claude_code_model_port" in sample.store and BRIDGED_CLI_PORT not in sample.store, sorted(sample.store)
    assert any(e.event == "model" for e in sample.events) and sample.model_usage
    log = logs["pi"]
    assert log.status == "success", log.error
    assert log.eval.metadata["harness_transport"] == UNIX_SOCKET
    (sample,) = log.samples
    assert not sample.error, sample.error
    calls = [e for e in sample.events if e.event == "model"]
    assert len(calls) >= 2 and sample.model_usage  # pi's calls reached the eval's model through the endpoint
    offered = {tool.name for event in calls for tool in event.tools}
    assert {"bash", "read", "edit", "write"} <= offered, offered  # pi's own tools
    # No poll: a turn starts well within Inspect's 2 s polling interval of the previous one's end (the median: the
    # machine is shared).
    gaps = [(b.timestamp - (a.completed or a.timestamp)).total_seconds() for a, b in zip(calls, calls[1:])]
    assert gaps and statistics.median(gaps) < 1.5, gaps
    decisions = {name: [case["decisions"] for case in l.samples[0].scores["hidden_cases"].metadata["cases"]]
                 for name, l in logs.items()}
    assert decisions["pi"] == decisions["claude_code"] == decisions["default"] and decisions["default"]
    # The sample's endpoint directory went with it.
    assert not [p for p in os.listdir("/tmp") if p.startswith("verifierbench-endpoint-") and _made_by(tmp_path, p)]


def _made_by(tmp_path, name: str) -> bool:
    """Whether /tmp/`name` was made during this test (another run's samples may hold theirs now)."""
    return os.stat(f"/tmp/{name}").st_mtime >= os.stat(tmp_path).st_mtime
