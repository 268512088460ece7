"""The paper's 36 configurations and their eval-set file."""

from __future__ import annotations

import pytest

from tests.harness.inspect_cli import eval_log, inspect, metrics
from verifierbench.configurations import BY_NAME, CONFIGURATIONS, OVERRIDE_ENV, configuration_task
from verifierbench.harness import registry as harnesses


def test_36_configurations_19_models_with_the_common_harness_and_17_alternatives():
    assert len(CONFIGURATIONS) == 36 and len(BY_NAME) == 36
    assert sum(c.harness_label == "Pi" for c in CONFIGURATIONS) == 19
    alternatives = [c for c in CONFIGURATIONS if c.harness_label != "Pi"]
    assert len(alternatives) == 17
    assert all(c.runnable for c in CONFIGURATIONS)  # OpenClaw too (harness openclaw)


def test_the_eval_set_file_lists_every_runnable_configuration():
    result = inspect("list", "tasks", "tasks/paper_configurations.py")
    assert result.returncode == 0, result.stderr
    listed = {line.split("@")[1] for line in result.stdout.split() if "@" in line}
    assert listed == {c.name for c in CONFIGURATIONS if c.runnable}


def test_every_runnable_configuration_builds_with_its_model_and_harness(monkeypatch, bfcl_suite):
    from verifierbench.harness import prerequisites

    monkeypatch.setenv(OVERRIDE_ENV, "verifierbench/always_reject")
    # What this machine has fetched (mini-swe-agent's install on a fresh machine: none) is not this test's subject, so
    # the check is recorded, not run; its one-line errors are tested with each harness (test_clis_vgb.py and others).
    checked: list[tuple[str, str]] = []
    monkeypatch.setattr(prerequisites, "check", lambda harness, sandbox, tasks: checked.append((harness, sandbox)))
    for config in CONFIGURATIONS:
        if not config.runnable:
            with pytest.raises(ValueError, match="no Inspect agent"):
                configuration_task(config.name, suite=str(bfcl_suite))
            continue
        task = configuration_task(config.name, suite=str(bfcl_suite), task_ids="bfcl/parallel_114")
        assert task.metadata["configuration"] == config.name and task.metadata["harness"] == config.harness
        assert str(task.model) == "verifierbench/always_reject"
        # a harness the vgb sandbox hosts (default, pi, claude_code: harness/model_endpoint.py) runs there, the others in Docker
        assert (task.sandbox.type == "vgb") == ("vgb" in harnesses.get(config.harness).sandboxes)
        assert checked[-1] == (config.harness, task.sandbox.type)  # this harness's prerequisites, in its sandbox


@pytest.mark.usefixtures("bwrap_available")
def test_a_configuration_runs_through_eval_set_with_its_bound_model(tmp_path, bfcl_suite):
    # `-T harness=default`: the no-Docker stand-in for the paper's Pi (the pi harness runs in test_harnesses.py).
    result = inspect("eval-set", "tasks/paper_configurations.py@gpt_5_1_pi", "-T", f"suite={bfcl_suite}", "-T", "harness=default",
                     "-T", "task_ids=bfcl/parallel_114", "--log-dir", str(tmp_path),
                     env={OVERRIDE_ENV: "verifierbench/always_reject"})
    assert result.returncode == 0, result.stderr[-3000:]
    log = eval_log(tmp_path)
    assert log.eval.metadata["configuration"] == "gpt_5_1_pi"
    assert (log.eval.metadata["harness"], log.eval.metadata["harness_label"]) == ("default", "Pi")
    assert metrics(log)["TNR"] == 100.0
