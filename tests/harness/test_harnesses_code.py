"""The CLI harnesses on code tasks (`-T harness=<cli> -T sandbox=docker`): the instance's environment image gets the
CLIs copied in (verifierbench/sandboxes/cli_overlay.py), the CLI runs there, reaches run_public, and its verifier is
scored. CI runs Claude Code and Pi on the offline fixture instance; VERIFIERBENCH_ALL_HARNESSES=1 the other four, and
a real django instance where `../shared` has the SWE-bench copy (on SWE-bench's image when the engine has it, else on a
stand-in made from the copy under its name). Under VERIFIERBENCH_ALL_HARNESSES=1 every CLI also runs on that instance
in the no-Docker vgb sandbox, through the project's endpoint, and must give the default harness's decisions.
"""

from __future__ import annotations

import pytest
import yaml
from inspect_ai.log import list_eval_logs, read_eval_log

from tests.conftest import SHARED, _build, skip_unless_required
from tests.harness.inspect_cli import eval_log, inspect
from tests.harness.test_harnesses import ALL_HARNESSES, OFFLINE_HARNESSES, _assert_delivered, _eval, _run_in_this_session
from verifierbench.core.errors import UserError
from verifierbench.sandboxes import cli_overlay

REAL_INSTANCE = "django__django-11848"  # as tests/sources/swebench/test_real_instances.py
COPY = SHARED / "upstream" / "swebench"


def test_the_derived_compose_file_keeps_the_instances_service_but_builds_its_image(tmp_path, monkeypatch):
    from jinja2 import Template

    from verifierbench.sources.swebench.docker_compose import TEMPLATE

    compose = tmp_path / "x.compose.yaml"
    compose.write_text(Template(TEMPLATE.read_text()).render(image="swebench/example:latest", vgb_env="/opt/vgb_env"))
    monkeypatch.setattr(cli_overlay, "require_image", lambda image, remedy: None)
    derived = cli_overlay.with_clis(compose)
    original, rebuilt = (yaml.safe_load(path.read_text())["services"]["default"] for path in (compose, derived))
    build, image = rebuilt.pop("build"), rebuilt.pop("image")
    assert rebuilt.pop("x-local") is True and image.startswith(cli_overlay.DERIVED_REPOSITORY + ":")
    original.pop("image")
    assert rebuilt.pop("volumes") == [*original.pop("volumes", []), cli_overlay.ENDPOINT_MOUNT]  # and the endpoint's
    assert rebuilt == original  # limits, no network, mounts, user: the instance's
    assert build["network"] == "none"
    dockerfile = (tmp_path / build["context"] / "Dockerfile").read_text()
    assert "FROM swebench/example:latest\n" in dockerfile and f"FROM {cli_overlay.DEFAULT_HARNESS_IMAGE} AS clis" in dockerfile
    assert cli_overlay.with_clis(compose) == derived  # the same tag again: built once, reused


def test_a_missing_image_stops_with_one_line_naming_the_command_that_builds_it(docker_engine, tmp_path, monkeypatch):
    compose = tmp_path / "x.compose.yaml"
    compose.write_text(yaml.safe_dump({"services": {"default": {"image": "verifierbench-base:bookworm"}}}))
    monkeypatch.setenv(cli_overlay.HARNESS_IMAGE_VARIABLE, "verifierbench-harness:no-such-tag")
    with pytest.raises(UserError, match="no image verifierbench-harness:no-such-tag.*scripts/harness-clis.sh build") as raised:
        cli_overlay.with_clis(compose)
    assert "\n" not in str(raised.value)


def _code_eval(tmp_path, harness: str, suite, *selection: str) -> dict:
    result, log = _eval(tmp_path, harness, suite, selection)
    metadata = _assert_delivered(result, log, OFFLINE_HARNESSES[harness])
    assert metadata["run_public"]["cap_run_public"] >= 1, metadata["run_public"]  # the policy's run_public call
    return metadata


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("harness", sorted(OFFLINE_HARNESSES))
def test_the_harness_delivers_a_verifier_on_the_fixture_code_task(harness, cli_docker_logs, code_eval_logs):
    _run_in_this_session(harness)
    # The CLI's eval over a state and a code task (tests/harness/conftest.py; its state sample: test_harnesses.py)
    result, log = cli_docker_logs(harness)
    metadata = _assert_delivered(result, log, OFFLINE_HARNESSES[harness], "swebench")
    assert metadata["run_public"]["cap_run_public"] >= 1, metadata["run_public"]  # the policy's run_public call
    # The default harness's decisions on the same task with the same options (the session's log of it).
    (default,) = [read_eval_log(info) for info in list_eval_logs(str(code_eval_logs))]
    (sample,) = default.samples
    expected = [case["decisions"] for case in sample.scores["hidden_cases"].metadata["cases"]]
    assert [case["decisions"] for case in metadata["cases"]] == expected and expected


@pytest.fixture(scope="module")
def real_code_suite(traversable_tmp, persistent_envs):
    if not ALL_HARNESSES:
        skip_unless_required("all-harnesses", "set VERIFIERBENCH_ALL_HARNESSES=1 to run the harnesses on a real django instance")
    if not (COPY / "instances.jsonl").is_file() or not (COPY / "repos").is_dir():
        skip_unless_required("swebench-copy", f"the offline SWE-bench Verified copy is not at {COPY}")
    return _build(traversable_tmp / "real-code-suite", "--source", "swebench", "--swebench-ids", REAL_INSTANCE, timeout=3000)


@pytest.fixture(scope="module")
def real_instance_image(docker_engine, real_code_suite, tmp_path_factory):
    """SWE-bench's image of the instance when the engine has it (a user who loaded it); else a stand-in under its name,
    made here as the fixture's is (tests/harness/test_docker.py): the base image with the repository at the instance's
    base commit at /testbed, and removed afterwards. The stand-in lacks SWE-bench's conda environment; the hidden
    cases and run_public run on the host's test environment either way, so the harness and its CLI are what this
    exercises."""
    import os
    import subprocess

    from verifierbench.sources.swebench.docker_compose import image_for

    image = image_for(REAL_INSTANCE)
    if subprocess.run(["docker", "image", "inspect", image], capture_output=True).returncode == 0:
        yield image
        return
    context = tmp_path_factory.mktemp("real-instance-image")
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(COPY / "repos" / "django__django.git"), str(context / "testbed")],
                   check=True, timeout=600)
    subprocess.run(["git", "-C", str(context / "testbed"), "checkout", "-q", REAL_INSTANCE], check=True, timeout=600)
    base = os.environ.get("VERIFIERBENCH_BASE_IMAGE", "verifierbench-base:bookworm")
    (context / "Dockerfile").write_text(f"FROM {base}\nLABEL org.verifierbench.stand-in=swebench\nCOPY testbed /testbed\n")
    subprocess.run(["docker", "build", "--quiet", "--force-rm", "--network", "none", "-t", image, str(context)],
                   check=True, capture_output=True, timeout=1200)
    try:
        yield image
    finally:
        subprocess.run(["docker", "rmi", "--force", image], capture_output=True, timeout=300)


@pytest.mark.timeout(3600)
@pytest.mark.usefixtures("harness_image", "bwrap_available", "real_instance_image")
@pytest.mark.parametrize("harness", sorted(OFFLINE_HARNESSES))
def test_the_harness_delivers_a_verifier_on_a_real_django_instance(harness, tmp_path, real_code_suite):
    _code_eval(tmp_path, harness, real_code_suite, "-T", "rounds=1")


@pytest.fixture(scope="module")
def default_decisions_on_the_real_instance(real_code_suite, traversable_tmp, bwrap_available) -> list[list[str]]:
    """The default harness's decisions on django-11848 in vgb, the reference every CLI's are compared with."""
    log_dir = traversable_tmp / "real-code-default"
    result = inspect("eval", *_vgb_eval_args("default", real_code_suite), "--log-dir", str(log_dir), timeout=3000)
    assert result.returncode == 0, result.stderr[-3000:]
    return _case_decisions(eval_log(log_dir))


def _vgb_eval_args(harness: str, suite) -> list[str]:
    return ["verifierbench/verifierbench", "--model", "verifierbench/heuristic", "-T", f"suite={suite}", "-T", "rounds=1",
            "-T", f"harness={harness}", "-T", "sandbox=vgb"]


def _case_decisions(log) -> list[list[str]]:
    assert log.status == "success", log.error
    (sample,) = log.samples
    assert not sample.error, sample.error
    return [case["decisions"] for case in sample.scores["hidden_cases"].metadata["cases"]]


@pytest.mark.timeout(3600)
@pytest.mark.parametrize("harness", sorted(OFFLINE_HARNESSES))
def test_the_cli_in_vgb_gives_the_default_harness_decisions_on_a_real_django_instance(harness, tmp_path, real_code_suite,
                                                                                       default_decisions_on_the_real_instance):
    """The issue's acceptance on django-11848: the same model-free policy through every CLI, on the project's endpoint
    (no Docker), delivers a verifier whose decisions on every hidden case are the default harness's, and its call of
    run_public from the CLI's shell reaches the sandbox's service (OpenClaw's exec drops PYTHONPATH: its shell finds
    vgb_env through openclaw_vgb's python3 on its PATH)."""
    result = inspect("eval", *_vgb_eval_args(harness, real_code_suite), "--log-dir", str(tmp_path), timeout=3000)
    log = eval_log(tmp_path)
    metadata = _assert_delivered(result, log, OFFLINE_HARNESSES[harness])
    assert log.eval.metadata["harness_transport"] == "unix-socket"
    assert _case_decisions(log) == default_decisions_on_the_real_instance
    assert metadata["run_public"]["cap_run_public"] >= 1, metadata["run_public"]
