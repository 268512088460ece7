"""The alternative harnesses (inspect-swe's CLI agents) in the docker sandbox, offline: the CLIs come from the image
scripts/harness-clis.sh builds, the model-free policy speaks each CLI's own tools, and the verifier it writes is
scored. A CLI that cannot start makes the sample and the eval an error, never a silent success.

Needs the Docker engine (see test_docker.py: skips without one, `VERIFIERBENCH_REQUIRE=docker` makes that a failure)
and, to build the image the first time, npm on the host.
"""

from __future__ import annotations

import os
import subprocess

import pytest
import yaml

from tests.conftest import skip_unless_required
from tests.harness.inspect_cli import eval_log, inspect
from tests.harness.test_docker import COMPOSE
from verifierbench.harness.bridged_clis import BRIDGE_PORT_KEY
from verifierbench.harness.registry import UNIX_SOCKET, get
from verifierbench.sandboxes.docker_provider import SANDBOX_TYPE as DOCKER_SANDBOX
from verifierbench.sandboxes.spec import sandbox_spec
from verifierbench.task import verifierbench

EXPECTED_ERROR_MARKER = "EXPECTED_ERROR"  # scripts/check_eval_logs.py

HARNESS_COMPOSE = sandbox_spec("docker", cli_image=True)[1]
# The harnesses that deliver offline today, and the shell tool each CLI offers the model.
OFFLINE_HARNESSES = {"claude_code": "Bash", "codex_cli": "exec_command", "gemini_cli": "run_shell_command", "mini_swe_agent": "bash",
                     "pi": "bash", "openclaw": "exec"}
# The CLIs' web tools (Claude Code, Codex, Gemini CLI): never offered, the container has no network.
WEB_TOOLS = {"WebSearch", "WebFetch", "web_search", "web_fetch", "google_web_search"}
# One eval takes 2-14 min per harness on 2 cores, so CI runs Pi's (the paper's common harness) and Claude Code's,
# and the rest only when asked.
ALL_HARNESSES = os.environ.get("VERIFIERBENCH_ALL_HARNESSES") == "1"
CI_HARNESSES = ("claude_code", "pi")


def _run_in_this_session(harness: str) -> None:
    if harness not in CI_HARNESSES and not ALL_HARNESSES:
        skip_unless_required("all-harnesses", f"{harness}: set VERIFIERBENCH_ALL_HARNESSES=1 to run every harness (2-14 min an eval)")


def test_the_harness_compose_file_is_the_default_sandbox_but_for_its_image(bfcl_suite):
    default, harness = (yaml.safe_load(open(path)) for path in (COMPOSE, HARNESS_COMPOSE))
    default_service, harness_service = default["services"]["default"], harness["services"]["default"]
    assert "build" not in harness_service and harness_service["image"].endswith("verifierbench-harness:latest}")
    for service in (default_service, harness_service):
        del service["image"]
    # and the model endpoint's directory (tests/harness/test_endpoint_docker.py)
    harness_service["volumes"] = [m for m in harness_service["volumes"] if not isinstance(m, dict)]
    default_service.pop("build")
    assert harness == default
    for name in OFFLINE_HARNESSES:  # the task gives the CLI agents the image with their CLIs
        spec = verifierbench(suite=str(bfcl_suite), harness=name, sandbox="docker").sandbox
        assert spec is not None and (spec.type, spec.config) == (DOCKER_SANDBOX, HARNESS_COMPOSE)
    spec = verifierbench(suite=str(bfcl_suite), sandbox="docker").sandbox
    assert spec is not None and (spec.type, spec.config) == (DOCKER_SANDBOX, COMPOSE)


def _eval(tmp_path, harness: str, suite, selection: tuple[str, ...], env: dict | None = None):
    result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T", f"suite={suite}",
                     *selection, "-T", f"harness={harness}", "-T", "sandbox=docker", "--log-dir", str(tmp_path), env=env)
    return result, eval_log(tmp_path)


def _assert_delivered(result, log, shell_tool: str, source: str | None = None) -> dict:
    """The checks of a CLI's delivery on the log's one sample (or its one sample of `source`); its score's metadata."""
    assert result.returncode == 0, result.stderr[-3000:]
    assert log.status == "success", log.error
    (sample,) = [s for s in log.samples if source is None or s.metadata["source"] == source]
    assert not sample.error, sample.error
    # The log records the harness's transport in the eval's sandbox, and the model calls took it: on the project's
    # endpoint the forwarder's port is in the store, and no port of inspect-swe's agents (Inspect's bridge).
    transport = log.eval.metadata["harness_transport"]
    sandbox = log.eval.task_args.get("sandbox", "docker")
    assert transport == get(log.eval.metadata["harness"]).transports[sandbox], (sandbox, transport)
    if transport == UNIX_SOCKET:
        assert BRIDGE_PORT_KEY in sample.store and not [k for k in sample.store if k.endswith("_model_port")], sorted(sample.store)
    # The CLI ran and offered its own tools; the policy used its shell.
    model_events = [event for event in sample.events if event.event == "model"]
    offered = {tool.name for tool in model_events[0].tools} if model_events else set()
    assert shell_tool in offered, offered
    assert not offered & WEB_TOOLS, offered
    assert any(call.function == shell_tool for message in sample.messages for call in getattr(message, "tool_calls", None) or [])
    score = sample.scores["hidden_cases"]
    assert score.value["submitted"] == 1, score.explanation
    cases = score.metadata["cases"]
    assert cases and all(case["decisions"] for case in cases)
    return score.metadata


# Delivery on a tool-call task is proven by tests/harness/test_connections.py, which runs each CLI on one under
# strace and asserts the same delivery (_assert_delivered) before reading the trace.


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("harness", sorted(OFFLINE_HARNESSES))
def test_the_harness_delivers_a_verifier_on_a_state_task_and_reaches_run_public(harness, cli_docker_logs):
    _run_in_this_session(harness)
    # The CLI's eval over a state and a code task (tests/harness/conftest.py; its code sample: test_harnesses_code.py)
    result, log = cli_docker_logs(harness)
    metadata = _assert_delivered(result, log, OFFLINE_HARNESSES[harness], "agentdojo")
    # The policy called run_public once, through the tool the harness bridges to the host-side service.
    assert metadata["run_public"]["cap_run_public"] >= 1, metadata["run_public"]
    # The policy read the whole task (its tools), whatever the CLI does to long shell output: its verifier accepts a
    # valid record. Read in one piece, Codex, Gemini and mini-swe-agent cut it off and it rejected all 42 cases.
    accepted = [case for case in metadata["cases"] if case["label"] == "PASS" and "P" in case["decisions"]]
    assert accepted, [(case["category"], case["decisions"]) for case in metadata["cases"]]


@pytest.mark.timeout(600)
@pytest.mark.usefixtures("harness_image")
@pytest.mark.parametrize(("harness", "detail"), [("claude_code", "no `claude` on $PATH"), ("pi", "no `pi` on $PATH")])
def test_a_harness_whose_cli_is_missing_makes_the_sample_an_error_naming_the_build_command(harness, detail, tmp_path,
                                                                                          bfcl_suite):
    """The image without the CLIs (the one harness-clis.sh builds them on): the sample errors and so does the run,
    with one line that names the command building the image. CI proves it on Pi; Claude Code's (on the endpoint, the
    same check) under VERIFIERBENCH_ALL_HARNESSES=1."""
    if harness != "pi" and not ALL_HARNESSES:
        skip_unless_required("all-harnesses", f"{harness}: set VERIFIERBENCH_ALL_HARNESSES=1 for its missing-CLI error")
    result, log = _eval(tmp_path, harness, bfcl_suite, ("--limit", "1"),
                        env={"VERIFIERBENCH_HARNESS_IMAGE": "verifierbench-sandbox:harness-base"})
    # `inspect eval` itself exits 0 on an errored eval (Inspect's choice): the log says it, and CI reads every log's
    # status (scripts/check_eval_logs.py).
    expected = f"harness {harness}: its CLI is not in the sandbox image ({detail}); build the image with scripts/harness-clis.sh build"
    assert log.status == "error" and expected in log.error.message, log.error
    (sample,) = log.samples
    assert sample.error and expected in sample.error.message.splitlines()[0], sample.error.message  # one line
    (tmp_path / EXPECTED_ERROR_MARKER).touch()  # this log's error is the point: scripts/check_eval_logs.py skips it


CRASHING_PI = "\n".join([
    "FROM verifierbench-harness:latest",
    "USER root",
    r"""RUN mv /usr/local/bin/pi /usr/local/bin/pi.real && \
  echo '#!/bin/sh' > /usr/local/bin/pi && \
  echo 'case "$*" in *--version*) exec pi.real --version;; esac' >> /usr/local/bin/pi && \
  echo 'echo "pi: simulated crash before any model call" >&2; exit 3' >> /usr/local/bin/pi && \
  chmod 755 /usr/local/bin/pi""",
    "USER agent", ""])


@pytest.fixture()
def crashing_pi_image(harness_image):
    """The harness image whose `pi` reports the pinned version, then crashes on the run (exit 3, a stderr line)."""
    tag = f"verifierbench-harness:test-crashing-pi-{os.getpid()}"
    build = subprocess.run(["docker", "build", "--quiet", "--network", "none", "-t", tag, "-"], input=CRASHING_PI,
                           capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr
    yield tag
    subprocess.run(["docker", "image", "rm", "--force", tag], capture_output=True, timeout=120)


@pytest.mark.timeout(600)
@pytest.mark.usefixtures("bwrap_available")
def test_a_cli_that_crashes_gives_u_with_its_exit_status_and_stderr_tail(crashing_pi_image, tmp_path, bfcl_suite):
    result, log = _eval(tmp_path, "pi", bfcl_suite, ("--limit", "1"), env={"VERIFIERBENCH_HARNESS_IMAGE": crashing_pi_image})
    assert result.returncode == 0 and log.status == "success", log.error
    (sample,) = log.samples
    assert not sample.error, sample.error
    score = sample.scores["hidden_cases"]
    assert score.value["submitted"] == 0
    assert {d for case in score.metadata["cases"] for d in case["decisions"]} == {"U"}
    note = str(score.metadata)
    assert "pi exited with status 3" in note and "simulated crash before any model call" in note, note[:2000]
