"""`-T sandbox=docker`: the shipped compose file's limits, nothing hidden visible in the container, and the same
per-case decisions as the vgb sandbox through `inspect eval`.

Needs a Docker engine Inspect accepts and the local base image (scripts/docker-engine.sh makes both). Without one,
every test here skips with one reason; `VERIFIERBENCH_REQUIRE=docker` turns that into a failure.
"""

from __future__ import annotations

import asyncio
import os
import subprocess

import pytest

from tests.conftest import first_of_each, first_tasks, logs_of
from tests.harness.conftest import base_image
from tests.harness.inspect_cli import eval_log, inspect
from tests.harness.leak_search import assert_nothing_hidden_is_readable
from verifierbench.sandboxes.spec import sandbox_spec
from verifierbench.task import SANDBOX_IMAGE_LABEL

COMPOSE = sandbox_spec("docker")[1]
TASK_NAME = f"vgbtest-{os.getpid()}"  # Inspect's compose projects are named after it: one per test run


@pytest.fixture(scope="module")
def container(docker_engine):
    """One sample's container, made by the docker sandbox of `-T sandbox=docker` from the shipped compose file."""
    from verifierbench.sandboxes.docker_provider import RetryingDockerSandbox as DockerSandboxEnvironment

    async def start():
        await DockerSandboxEnvironment.task_init(TASK_NAME, COMPOSE)
        return await DockerSandboxEnvironment.sample_init(TASK_NAME, COMPOSE, {})

    environments = asyncio.run(start())  # a task name of this run's own: two test runs at once keep apart
    yield environments["default"]

    async def stop():
        await DockerSandboxEnvironment.sample_cleanup(TASK_NAME, COMPOSE, environments, False)
        await DockerSandboxEnvironment.task_cleanup(TASK_NAME, COMPOSE, True)

    asyncio.run(stop())


def sh(box, command, **kwargs):
    return asyncio.run(box.exec(["bash", "-c", command], **kwargs))


def test_the_container_has_the_vgb_limits(container):
    from verifierbench.sandboxes.docker_provider import RetryingDockerSandbox

    assert type(container) is RetryingDockerSandbox  # the exec that starts again what runc could not start
    status = dict(line.split(":\t") for line in sh(container, "grep -E '^(NoNewPrivs|CapEff|CapBnd):' /proc/self/status").stdout.splitlines())
    assert status == {"NoNewPrivs": "1", "CapEff": "0000000000000000", "CapBnd": "0000000000000000"}
    assert sh(container, "ulimit -f; ulimit -n; id -u").stdout.split() == [str(256 << 10), "1024", "1000"]
    # No network interface but loopback.
    assert sh(container, "ls /sys/class/net").stdout.split() == ["lo"]
    # Processes: forking stops at the cgroup's pids limit.
    forks = ("import os, signal, time\nchildren = []\ntry:\n    while len(children) < 400:\n        pid = os.fork()\n"
             "        if pid == 0:\n            time.sleep(30)\n            os._exit(0)\n        children.append(pid)\n"
             "except OSError:\n    pass\nprint(len(children))\nfor pid in children:\n    os.kill(pid, signal.SIGKILL)\n")
    assert 200 < int(asyncio.run(container.exec(["python3", "-c", forks], timeout=60)).stdout) < 256
    # Memory: 4 GiB, swap included, in whichever cgroup version the host runs.
    limit = sh(container, "cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes").stdout
    assert int(limit) == 4 << 30
    # /workspace: a tmpfs of 1 GiB, and a file stops at 256 MiB.
    assert sh(container, "df --output=fstype,size -B1M /workspace | tail -1").stdout.split() == ["tmpfs", "1024"]
    big = sh(container, "head -c 300M /dev/zero > /workspace/big; echo $?; stat -c %s /workspace/big; rm -f /workspace/big")
    assert big.stdout.split() == ["153", str(256 << 20)]  # 128 + SIGXFSZ


def test_files_written_and_read_through_inspect_land_in_the_capped_workspace(container):
    asyncio.run(container.write_file("verifier/verify.py", "print('ok')\n"))
    assert asyncio.run(container.read_file("/workspace/verifier/verify.py")) == "print('ok')\n"
    assert sh(container, "python3 verifier/verify.py && python -c 'import vgb_env'").stdout == "ok\n"


def test_an_agent_searching_the_container_finds_no_hidden_case_or_reference(container, bfcl_suite):
    """The leak test of the vgb sandbox (test_sandbox.py), against the docker sandbox."""
    assert_nothing_hidden_is_readable(container, bfcl_suite, sh)


def _decisions_of(sample) -> dict[str, list[str]]:
    return {c["case_id"]: c["decisions"] for c in sample.scores["hidden_cases"].metadata["cases"]}


def _decisions(log) -> dict[str, dict[str, list[str]]]:
    return {str(sample.id): _decisions_of(sample) for sample in log.samples}


@pytest.fixture(scope="module")
def docker_parity(docker_engine, bwrap_available, fixture_instance_image, mixed_suite, bfcl_suite, state_eval_logs,
                  code_eval_logs, tmp_path_factory):
    """One `-T sandbox=docker` eval of the heuristic (default harness) over a task of each type of the mixed suite: the
    BFCL suite's first three tasks, the AgentDojo task of state_eval_logs and the fixture's code task, the tasks each
    parity test below compares with its vgb log (one `inspect` start and one sandbox build for the three). After the
    vgb logs, so the code task's test runs are the vgb eval's to reuse. Returns (the log, whether the sandbox image the
    eval displaced was left behind)."""
    (agentdojo,) = [s for s in eval_log(state_eval_logs).samples if s.metadata["source"] == "agentdojo"]
    chosen = [*first_tasks(bfcl_suite, 3).split(","), f"agentdojo/{agentdojo.metadata['source_id']}",
              first_of_each(mixed_suite, ("swebench",))["swebench"]]
    logs = tmp_path_factory.mktemp("docker-parity")
    tag, displaced = _displaced_sandbox_image()
    try:
        result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T", f"suite={mixed_suite}",
                         "-T", f"task_ids={','.join(chosen)}", "-T", "sandbox=docker", "--log-dir", str(logs))
        left = _image_exists(displaced)
    finally:
        subprocess.run(["docker", "rmi", "--force", tag, displaced], capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    log = eval_log(logs)
    assert log.status == "success", log.error
    assert all(not sample.error for sample in log.samples), [sample.error for sample in log.samples]
    assert len(log.samples) == len(chosen), [sample.metadata["source_id"] for sample in log.samples]
    return log, left


def _samples_of(log, source: str) -> list:
    return [sample for sample in log.samples if sample.metadata["source"] == source]


def test_tool_call_tasks_get_the_same_per_case_decisions_as_in_vgb(docker_parity, tmp_path, bfcl_policy_logs):
    log, left = docker_parity
    docker = {str(sample.id): _decisions_of(sample) for sample in _samples_of(log, "bfcl")}
    # vgb: the heuristic's log of the shared policy logs (the same tasks first, default options: the vgb sandbox)
    vgb = _decisions(eval_log(logs_of(bfcl_policy_logs, ["verifierbench/heuristic"], tmp_path / "vgb")))
    vgb = {sample: cases for sample, cases in vgb.items() if sample in docker}
    assert len(vgb) == 3 and all(vgb.values())
    assert docker == vgb
    # The docker eval's clean-up prunes untagged sandbox images no container uses, such as this run's own one. (On an
    # engine other runs share, their evals' clean-up prunes it as well.)
    assert not left, "the docker eval left the untagged sandbox image it displaced"


def _displaced_sandbox_image() -> tuple[str, str]:
    """(a tag of this run's own, an untagged image with the sandbox's label that only this run made and no container
    uses): what a rebuild of the sandbox image leaves. Two builds under the tag: the first loses it."""
    tag = f"{TASK_NAME}-displaced"

    def build(number: int) -> str:
        return subprocess.run(["docker", "build", "--quiet", "--network", "none", "--label", SANDBOX_IMAGE_LABEL,
                               "--label", f"org.verifierbench.test-build={number}", "-t", tag, "-"],
                              input=f"FROM {base_image()}\n", capture_output=True, text=True, check=True, timeout=300).stdout.strip()

    first, second = build(1), build(2)
    assert first != second  # a new image each time, so the first is untagged now
    return tag, first


def _image_exists(image: str) -> bool:
    return subprocess.run(["docker", "image", "inspect", image], capture_output=True, timeout=60).returncode == 0


def test_the_compose_file_mounts_nothing_of_the_host_and_has_no_network():
    """What lets the compose file set Inspect's unsafe_allow_writable_host_mounts: its one volume is a tmpfs."""
    import yaml

    config = yaml.safe_load(open(COMPOSE))
    (service,) = config["services"].values()
    assert service["network_mode"] == "none" and service["build"]["network"] == "none"
    assert service["volumes"] == ["workspace:/workspace"]
    assert config["volumes"]["workspace"]["driver_opts"]["type"] == "tmpfs"
    assert config["volumes"]["workspace"]["driver_opts"]["device"] == "tmpfs"
    assert set(config["volumes"]) == {"workspace"} and "volumes_from" not in service
    assert service["cap_drop"] == ["ALL"] and service["security_opt"] == ["no-new-privileges:true"]


class _CountingEnvironment:
    """A public environment whose state is the number of calls replayed: enough to see requests arrive."""

    def run_request(self, request: dict) -> dict:
        calls = request.get("calls", [])
        return {"observations": [call["name"] for call in calls], "state": {"calls": len(calls)}, "state_hash": f"h{len(calls)}"}

    def reset_reply(self) -> dict:
        return {"state": {"calls": 0}, "state_hash": "h0"}


def test_vgb_env_in_the_container_reaches_the_host_side_budget(container):
    """run_public and reset from code in the container go through harness/public_channel.py to the sample's
    PublicService: its budget applies and its counters (on the host) count every call, blocked ones included."""
    from verifierbench.harness.public_channel import serving
    from verifierbench.public_env.service import PublicService

    service = PublicService(_CountingEnvironment, budget=1).start()  # built in its worker, served through its socket
    script = ("import vgb_env\n"
              "print(vgb_env.reset()['state_hash'])\n"
              "print(vgb_env.run_public(calls=[{'name': 'f', 'arguments': {}}])['observations'])\n"
              "try:\n    vgb_env.run_public(calls=[])\nexcept vgb_env.BudgetExceeded as e:\n    print('blocked', e)\n")

    async def run():
        async with serving(service, container):
            return await container.exec(["python3", "-c", script], timeout=120)

    try:
        result = asyncio.run(run())
    finally:
        service.stop()
    assert result.stdout.splitlines() == ["h0", "['f']", "blocked BudgetExceeded: run_public"], result.stderr
    assert (service.uses, service.blocks) == (2, 1)
    # The task type reaches the container too (tool-call: this fixture's sample has no metadata).
    assert sh(container, "echo $VGB_TASK_TYPE").stdout.strip() == "tool-call"


def test_a_state_task_gets_the_same_run_public_counters_and_decisions_as_in_vgb(docker_parity, state_eval_logs):
    # vgb: the heuristic's log on one task per state source (shared with test_state_eval.py); its AgentDojo task here.
    (vgb,) = [s for s in eval_log(state_eval_logs).samples if s.metadata["source"] == "agentdojo"]
    (docker_sample,) = _samples_of(docker_parity[0], "agentdojo")
    counters = [sample.scores["hidden_cases"].metadata["run_public"] for sample in (vgb, docker_sample)]
    assert counters[0] == counters[1] and counters[0]["cap_run_public"] >= 1, counters
    assert {str(docker_sample.id): _decisions_of(docker_sample)} == {str(vgb.id): _decisions_of(vgb)}


def test_the_code_task_gets_the_same_run_public_counters_and_decisions_as_in_vgb(docker_parity, code_eval_logs):
    vgb = eval_log(code_eval_logs)  # vgb: test_code_eval.py's log
    (docker,) = _samples_of(docker_parity[0], "swebench")
    decisions = _decisions(vgb)
    assert decisions and all(decisions.values()) and {str(docker.id): _decisions_of(docker)} == decisions
    # The generation's run_public counters (cap_*); the judging's test-run counts differ by design: the docker eval
    # reuses the runs the vgb eval made (sources/swebench/run_reuse.py), which the totals check.
    counters = [sample.scores["hidden_cases"].metadata["run_public"] for sample in (*vgb.samples, docker)]
    generation = [{k: v for k, v in c.items() if k.startswith("cap_")} for c in counters]
    assert generation[0]["cap_run_public"] == 2, counters  # the verifier's self-test through vgb_env, and the tool call
    # Equal since vgb_env is mounted from a copy beside the compose file: the engine of scripts/docker-engine.sh (its
    # own root file system) did not see the installed package's path and mounted an empty directory.
    assert generation[1] == generation[0], counters
    runs = [c["test_runs_made"] + c["test_runs_reused"] for c in counters]
    assert runs[0] == runs[1] > 0 and counters[1]["test_runs_made"] <= counters[0]["test_runs_made"], counters


def test_the_swebench_template_has_the_default_sandboxs_limits():
    """Code tasks under docker run on SWE-bench's images (sandboxes/swebench/): the same limits, no network."""
    import yaml
    from jinja2 import Template

    from verifierbench.sources.swebench.docker_compose import TEMPLATE

    rendered = yaml.safe_load(Template(TEMPLATE.read_text()).render(image="swebench/example:latest", vgb_env="/opt/vgb_env"))
    default = yaml.safe_load(open(COMPOSE))
    (service,), (default_service,) = rendered["services"].values(), default["services"].values()
    limits = ("network_mode", "cap_drop", "security_opt", "mem_limit", "memswap_limit", "pids_limit", "ulimits", "tmpfs", "init")
    assert {key: service[key] for key in limits} == {key: default_service[key] for key in limits}
    assert service["volumes"] == ["workspace:/workspace", "/opt/vgb_env:/opt/vgb/lib/vgb_env:ro"]
    assert rendered["volumes"]["workspace"]["driver_opts"]["type"] == "tmpfs"
