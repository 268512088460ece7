"""Bad `-T` options and bad `--model verifierbench/...` names through the real `inspect eval`: one line naming the
problem (Inspect's PrerequisiteError path, no traceback) and exit status 1."""

from __future__ import annotations

import pytest

from tests.harness.inspect_cli import inspect


# Inspect prints the message with rich: plain display (INSPECT_DISPLAY=none prints nothing at all) on a wide console.
ENV = {"INSPECT_DISPLAY": "plain", "COLUMNS": "250"}


def lines_of(result) -> list[str]:
    return [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]


BAD_TASK_OPTIONS = [
    ("source=nope", "verifierbench: unknown source 'nope' (choose from bfcl, acebench"),
    ("rounds=abc", "verifierbench: -T rounds='abc': expected a whole number of at least 1"),
    ("task_ids=bfcl/[x]", "verifierbench: task 'bfcl/[x]' is not in suite"),  # not read as rich markup
    ("audit=maybe", "verifierbench: -T audit='maybe': expected true or false"),  # a truthy string, not a bool
    ("audit=1", "verifierbench: -T audit=1: expected true or false"),
    ("message_limit=abc", "verifierbench: -T message_limit='abc': expected a whole number (0: no limit)"),
    ("task_ids=12", "verifierbench: -T task_ids=12: expected comma-separated task ids"),
    ("shard=3/2", "verifierbench: -T shard='3/2': expected i/N"),  # issue 38
]


def test_each_bad_task_option_raises_inspects_one_line_error(bfcl_suite):
    """Every bad `-T` option, parsed as `inspect eval` parses it (YAML), makes the task raise the error Inspect prints
    as one line (PrerequisiteError, markup escaped). The printing itself, and the status, through the real CLI below
    (the same path for every option)."""
    import yaml
    from rich.markup import render

    from verifierbench.inspect_api.private import PrerequisiteError
    from verifierbench.task import verifierbench

    for option, message in BAD_TASK_OPTIONS:
        name, value = option.split("=", 1)
        with pytest.raises(PrerequisiteError) as raised:
            verifierbench(suite=str(bfcl_suite), **{name: yaml.safe_load(value)})
        printed = render(raised.value.message).plain  # what Inspect's rich console shows
        assert printed.startswith(message) and "\n" not in printed, (option, printed)


# Through `inspect eval`: two task options (one an integer YAML gives, one with rich markup in it) and a bad policy
# name (the model's path, not the task's).
@pytest.mark.parametrize(("args", "message"), [
    (["-T", "task_ids=bfcl/[x]"], "verifierbench: task 'bfcl/[x]' is not in suite"),  # not read as rich markup
    (["-T", "audit=1"], "verifierbench: -T audit=1: expected true or false"),
    (["--model", "verifierbench/heuristc"], "verifierbench: unknown policy verifierbench/heuristc (choose from"),
])
def test_a_bad_option_is_one_line_and_status_1(tmp_path, bfcl_suite, args, message):
    model = [] if "--model" in args else ["--model", "verifierbench/heuristic"]
    result = inspect("eval", "verifierbench/verifierbench", "-T", f"suite={bfcl_suite}", *model, *args,
                     "--log-dir", str(tmp_path), env=ENV, timeout=300)
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr[-2000:]
    lines = lines_of(result)
    assert len(lines) == 1 and lines[0].startswith(message), lines[:5]


def test_a_missing_suite_is_one_line(tmp_path):
    missing = tmp_path / "no-suite"
    for args, env in ((["-T", f"suite={missing}"], {}), ([], {"VERIFIERBENCH_SUITE": str(missing)})):
        result = inspect("eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic", *args,
                         "--log-dir", str(tmp_path / "logs"), env={**ENV, **env}, timeout=300)
        assert result.returncode == 1
        lines = lines_of(result)
        assert lines == [f"verifierbench: {missing}: no suite directory here (expected manifest.json, tasks.jsonl, cases.jsonl)"], lines[:5]
