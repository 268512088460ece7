"""docs/adding-a-source.md, proved: a source defined in a test folder alone (tests/sources/tiny/), named in
$VERIFIERBENCH_SOURCES, is built, screened and judged by the `verifierbench` command with no edit to the package."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.cli.test_cli import cli
from tests.conftest import BIN, REPO_ROOT

pytestmark = pytest.mark.sandbox


@pytest.fixture
def tiny_env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "VERIFIERBENCH_SOURCES": "tests.sources.tiny.source", "PYTHONPATH": path}


def test_a_source_from_a_test_folder_is_built_screened_and_judged(tiny_env, bwrap_available, tmp_path):
    suite = tmp_path / "suite"
    built = cli("build", "--out", str(suite), "--source", "tiny", env=tiny_env, timeout=300)
    assert built.returncode == 0, built.stderr
    tasks = [json.loads(line) for line in (suite / "tasks.jsonl").read_text().splitlines()]
    cases = [json.loads(line) for line in (suite / "cases.jsonl").read_text().splitlines()]
    assert sorted(t["source_id"] for t in tasks) == ["weather_oslo", "weather_paris"] and {t["source"] for t in tasks} == {"tiny"}
    assert len(cases) == 10  # five per task, none dropped by C1

    screened = cli("screen", "--suite", str(suite), "--out", str(tmp_path / "screening"), "--json", env=tiny_env, timeout=300)
    assert screened.returncode == 0, screened.stderr
    records = json.loads(screened.stdout)["tasks"]
    assert len(records) == 2 and all(r["retained"] and all(r["checks"].values()) for r in records), records

    exported = cli("export-verifiers", "exact-match", "--suite", str(suite), "--out", str(tmp_path / "exact"), env=tiny_env)
    assert exported.returncode == 0, exported.stderr
    judged = cli("judge", "--suite", str(suite), "--verifiers", str(tmp_path / "exact"), "--source", "tiny", "--json",
                 env=tiny_env, timeout=600)
    assert judged.returncode == 0, judged.stderr
    decisions = {(line["category"], line["decision"]) for line in map(json.loads, judged.stdout.splitlines())}
    # exact match: the gold text passes, its JSON rendering (a valid variant) is missed, the negatives fail
    assert decisions == {("gold", "P"), ("cosmetic", "F"), ("near_miss", "F"), ("base", "F"), ("hack", "F")}


@pytest.mark.parametrize(("modules", "problem"), [
    ("tests.sources.tiny.sourcee", "cannot import source module 'tests.sources.tiny.sourcee' (ModuleNotFoundError"),
    ("json", "source module 'json' registers no source"),
])
def test_a_bad_sources_variable_is_refused_in_one_line_by_the_cli_and_by_inspect(tiny_env, modules, problem, tmp_path):
    env = {**tiny_env, "VERIFIERBENCH_SOURCES": modules}
    expected = f"verifierbench: error: $VERIFIERBENCH_SOURCES: {problem}"
    for command in ([str(BIN / "verifierbench"), "build", "--out", str(tmp_path / "suite")],
                    [str(BIN / "inspect"), "eval", "verifierbench/verifierbench", "--model", "verifierbench/heuristic"]):
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
        assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1, done.stderr[-2000:]
        assert done.stderr.startswith(expected), done.stderr


def test_a_sources_build_option_comes_from_its_own_folder(tiny_env, tmp_path):
    """The source declares `--tiny-only` (`build_options`): `verifierbench build` offers it and the source reads it,
    with no edit to the CLI."""
    shown = cli("build", "--help", env=tiny_env)
    assert "--tiny-only ID,..." in shown.stdout, shown.stdout
    suite = tmp_path / "suite"
    built = cli("build", "--out", str(suite), "--source", "tiny", "--tiny-only", "weather_oslo", env=tiny_env, timeout=300)
    assert built.returncode == 0, built.stderr
    tasks = [json.loads(line) for line in (suite / "tasks.jsonl").read_text().splitlines()]
    assert [t["source_id"] for t in tasks] == ["weather_oslo"]
