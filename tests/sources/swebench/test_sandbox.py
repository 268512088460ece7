"""`-T sandbox=docker`: each code task gets its own compose file for SWE-bench's published environment
image of the instance (no network, vgb_env mounted, the repository seen as /repo)."""

from __future__ import annotations

from verifierbench.task import verifierbench


def test_code_tasks_get_their_instance_image_under_docker(code_suite):
    task = verifierbench(suite=str(code_suite), sandbox="docker")
    (sample,) = task.dataset
    kind, compose = sample.sandbox.type, sample.sandbox.config
    assert kind == "docker"
    text = open(compose).read()
    assert "image: swebench/sweb.eval.x86_64.vgb-fixtures_1776_httpdate-1:latest" in text
    assert "network_mode: none" in text and "/opt/vgb/lib/vgb_env:ro" in text and "ln -sfn /testbed /repo" in text


def test_the_default_sandbox_is_unchanged(code_suite):
    (sample,) = verifierbench(suite=str(code_suite)).dataset
    assert sample.sandbox is None  # the task's vgb sandbox, which mounts the checkout at /repo itself
