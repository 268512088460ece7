"""The `verifierbench` command as users run it: exit status 0 on success, 2 with one line on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_suite import make_suite
from verifierbench.suite.store import save_suite

BIN = Path(sys.executable).parent / "verifierbench"


def cli(*args: str, env: dict | None = None, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN), *args], capture_output=True, text=True, timeout=timeout, env=env)


def decisions_file(tmp_path: Path, lines: list[dict]) -> Path:
    path = tmp_path / "decisions.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def line(task, case, category, label, decision, task_type="tool-call", source="bfcl"):
    return {"task_id": task, "case_id": case, "category": category, "label": label, "decision": decision, "task_type": task_type, "source": source}


@pytest.mark.parametrize("command", [[], ["judge"], ["metrics"], ["run-verifier"], ["suite"], ["suite", "check"], ["suite", "inventory"], ["doctor"]])
def test_every_command_has_help(command):
    result = cli(*command, "--help")
    assert result.returncode == 0 and "usage: verifierbench" in result.stdout


def test_metrics_json_and_human_output(tmp_path):
    path = decisions_file(tmp_path, [
        line("t1", "c1", "gold", "PASS", "P"), line("t1", "c2", "cosmetic", "PASS", "F"),
        line("t1", "c3", "near_miss", "FAIL", "F"), line("t1", "c4", "hack", "FAIL", "P"),
        line("t2", "c5", "gold", "PASS", "U", "state", "tau2"), line("t2", "c6", "base", "FAIL", "F", "state", "tau2"),
    ])
    inventory = tmp_path / "inventory.jsonl"
    inventory.write_text("".join(json.dumps({"task_id": t, "task_type": k, "source": s}) + "\n"
                                 for t, k, s in [("t1", "tool-call", "bfcl"), ("t2", "state", "tau2"), ("t3", "code", "swebench")]))
    result = cli("metrics", str(path), "--tasks", str(inventory), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    # t1: r+ 1/2, r- 1/2 (hack accepted); t2: r+ 0, r- 1; t3 missing: 0, 0
    assert data["TPR"] == pytest.approx(100 * 0.5 / 3)
    assert data["TNR"] == pytest.approx(100 * 1.5 / 3)
    assert data["BA_norm"] == pytest.approx(data["TPR"] + data["TNR"] - 100)
    # t1 accepts its only attack (100); t2 has no attack case, so it is left out; t3 is missing (0)
    assert data["FPR_h"] == pytest.approx(50.0)
    for key in ("TPR", "TNR", "BA", "BA_norm", "FPR_h", "n_tasks", "submission_rate", "valid_output_rate", "rejection_share"):
        assert key in data and key in data["by_type"]["state"] and key in data["by_source"]["bfcl"]
    assert data["by_category"]["gold"] == {"P": 1, "F": 0, "U": 1}
    assert data["submission_rate"] == pytest.approx(200 / 3)

    human = cli("metrics", str(path), "--tasks", str(inventory))
    assert human.returncode == 0
    assert f"{data['BA_norm']:.1f}" in human.stdout and "type: state" in human.stdout and "source: swebench" in human.stdout


@pytest.mark.parametrize("content,expected", [
    ('{"task_id": "t", "case_id": "c"\n', "line 1: not valid JSON"),
    (json.dumps(line("t", "c", "gold", "PASS", "X")) + "\n", "field 'decision'"),
    (json.dumps(line("t", "c", "goldish", "PASS", "P")) + "\n", "field 'category'"),
    (json.dumps(line("t", "c", "gold", "FAIL", "P")) + "\n", "field 'label'"),
    (json.dumps({"task_id": "t"}) + "\n", "field 'case_id' is missing"),
    (json.dumps(line("t", "c", "gold", "PASS", "P")) + "\n", "no negative case"),
    ("", "no decisions"),
    (json.dumps(line("t", "c", "gold", "PASS", "P", task_type="tool_call")) + "\n", "field 'task_type': unknown task type 'tool_call'"),
    (json.dumps(line("t", "c", "gold", "PASS", "P", source="bfcl-v3")) + "\n", "field 'source': unknown source 'bfcl-v3'"),
    ("[" * 200_000 + "\n", "line 1: not valid JSON"),
    ('{"task_id": ' + "9" * 5000 + "}\n", "line 1: not valid JSON"),
])
def test_metrics_bad_input_exits_2_with_one_line(tmp_path, content, expected):
    path = tmp_path / "d.jsonl"
    path.write_text(content)
    result = cli("metrics", str(path))
    assert result.returncode == 2
    assert expected in result.stderr and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_metrics_unknown_task_type_in_the_inventory_exits_2(tmp_path):
    path = decisions_file(tmp_path, [line("t1", "c1", "gold", "PASS", "P"), line("t1", "c2", "base", "FAIL", "F")])
    inventory = tmp_path / "inventory.jsonl"
    inventory.write_text(json.dumps({"task_id": "t2", "task_type": "State", "source": "tau2"}) + "\n")
    result = cli("metrics", str(path), "--tasks", str(inventory))
    assert result.returncode == 2 and "line 1: field 'task_type': unknown task type 'State'" in result.stderr
    assert result.stderr.count("\n") == 1


def test_metrics_from_stdin_that_is_not_utf8_exits_2(tmp_path):
    result = subprocess.run([str(BIN), "metrics", "-"], input=b'{"task_id": "\xff"}\n', capture_output=True, timeout=120)
    assert result.returncode == 2 and result.stderr.count(b"\n") == 1 and b"<stdin>: not UTF-8" in result.stderr, result.stderr


def test_missing_file_and_bad_option_exit_2(tmp_path):
    assert cli("metrics", str(tmp_path / "absent.jsonl")).returncode == 2
    assert cli("metrics", "--no-such-option").returncode == 2
    assert cli("run-verifier", "v.py", "c.json", "--timeout", "-1").returncode == 2


def test_suite_check_and_inventory(tmp_path):
    save_suite(make_suite(), tmp_path / "suite")
    result = cli("suite", "check", str(tmp_path / "suite"))
    assert result.returncode == 0 and "1 tasks, 3 cases, all hashes verified" in result.stdout
    inventory = cli("suite", "inventory", str(tmp_path / "suite"))
    assert json.loads(inventory.stdout)["source"] == "acebench"
    (tmp_path / "suite" / "cases.jsonl").write_text((tmp_path / "suite" / "cases.jsonl").read_text().replace("book", "cook"))
    broken = cli("suite", "check", str(tmp_path / "suite"))
    assert broken.returncode == 2 and "content_hash" in broken.stderr and broken.stderr.count("\n") == 1


@pytest.mark.sandbox
def test_run_verifier_reports_the_outcome(tmp_path, bwrap_available):
    verifier = tmp_path / "verify.py"
    verifier.write_text('import json, sys\njson.dump({"decision": "FAIL", "reason": "nope"}, open(sys.argv[2], "w"))\n')
    candidate = tmp_path / "candidate.json"
    candidate.write_text("{}")
    result = cli("run-verifier", str(verifier), str(candidate), "--json")
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert (outcome["decision"], outcome["reason"], outcome["isolation"], outcome["exit_status"]) == ("F", "nope", "bwrap", 0)
    assert cli("doctor").returncode == 0


def test_doctor_says_in_one_line_each_what_code_tasks_builds_lack(tmp_path, monkeypatch):
    from verifierbench.sources import registry
    from verifierbench.sources.swebench import extensions, python39_rootfs

    code_task_lines = registry.SOURCES["swebench"].doctor_lines  # what doctor prints for the source (Source.doctor_lines)

    monkeypatch.delenv(python39_rootfs.SWITCH_ENV, raising=False)
    monkeypatch.setenv(python39_rootfs.ROOTFS_ENV, str(tmp_path / "rootfs"))
    monkeypatch.setenv("PATH", str(tmp_path))  # no debootstrap on it
    py39, matplotlib = code_task_lines()
    assert py39.startswith("code tasks, Python 3.9 root file system: missing") and "debootstrap is not installed" in py39
    debootstrap = tmp_path / "debootstrap"
    debootstrap.write_text("#!/bin/sh\n")
    debootstrap.chmod(0o755)
    assert "debootstrap is not installed" not in code_task_lines()[0]
    (tmp_path / "rootfs" / "usr" / "bin").mkdir(parents=True)
    (tmp_path / "rootfs" / python39_rootfs.PYTHON_IN_ROOTFS).write_text("")
    assert code_task_lines()[0] == f"code tasks, Python 3.9 root file system: present at {tmp_path / 'rootfs'}"
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    missing = extensions.missing_system_packages(extensions.MATPLOTLIB, "3.5")
    line = code_task_lines()[1]
    assert line.startswith("code tasks, matplotlib's build packages: ")
    assert line.endswith("all present") if not missing else all(package in line for package in missing)


def test_a_code_build_says_what_the_machine_lacks_in_its_first_lines(tmp_path, monkeypatch):
    """A missing 3.9 root file system (debootstrap absent) is said before any row is read: the build (here one that
    fails right after, on a missing instances file) says it first, not when its walk reaches such an instance."""
    from verifierbench.core.errors import UserError
    from verifierbench.sources.swebench import prerequisites, python39_rootfs, selection

    monkeypatch.delenv(python39_rootfs.SWITCH_ENV, raising=False)
    monkeypatch.setenv(python39_rootfs.ROOTFS_ENV, str(tmp_path / "rootfs"))
    monkeypatch.setenv("PATH", str(tmp_path))  # no debootstrap on it
    said: list[str] = []
    with pytest.raises(UserError):
        selection.build(0, str(tmp_path / "no-instances.jsonl"), str(tmp_path), tmp_path / "checkouts", ids="django__django-11848",
                        say=said.append)
    assert said and said[0].startswith("build: swebench: code tasks, Python 3.9 root file system: missing"), said
    (tmp_path / "rootfs" / "usr" / "bin").mkdir(parents=True)
    (tmp_path / "rootfs" / python39_rootfs.PYTHON_IN_ROOTFS).write_text("")
    assert not any("Python 3.9" in note for note in prerequisites.build_notes())
