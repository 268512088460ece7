"""Bad user input on the command line (issue 18, item 7): exit status 2 and one line naming the file,
line or option at fault, never a traceback."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess

import pytest

from tests.cli.test_cli import cli
from tests.test_suite import make_suite
from verifierbench.cli.main import main
from verifierbench.suite.store import save_suite

PASSES = 'import json, sys\njson.dump({"decision": "PASS"}, open(sys.argv[2], "w"))\n'


def cli_here(*args: str) -> subprocess.CompletedProcess:
    """`verifierbench ARGS` in this process: main()'s exit status and both streams. The errors here end before any
    work, so a process start each (about 1 s) would be most of their time; an exception main() lets out fails the test
    as a traceback would. Through the executable: test_the_executable_gives_the_same_one_line_errors."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as exited:  # argparse's usage errors
            status = exited.code if isinstance(exited.code, int) else 1
    return subprocess.CompletedProcess(["verifierbench", *args], status, out.getvalue(), err.getvalue())


def one_line_error(result, *expected: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    for text in expected:
        assert text in result.stderr, result.stderr


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "v.py").write_text(PASSES)
    (tmp_path / "c.json").write_text("{}")
    save_suite(make_suite(), tmp_path / "suite")
    return tmp_path


@pytest.mark.parametrize("option,value,expected", [
    ("--timeout", "nan", "must be a finite number"),
    ("--timeout", "inf", "must be a finite number"),
    ("--timeout", "1e300", "must be at most"),
    ("--slots", "100000000", "must be at most"),
])
def test_out_of_range_numeric_options(files, option, value, expected):
    result = cli_here("run-verifier", str(files / "v.py"), str(files / "c.json"), option, value)
    one_line_error(result, f"argument {option}", expected)


def test_usage_errors_are_one_line(files):
    one_line_error(cli_here("metrics"), "DECISIONS.jsonl")
    one_line_error(cli_here("judge", "--suite", str(files / "suite"), "--all"), "--verifier")


@pytest.mark.parametrize("content,expected", [
    ("[" * 200_000, "nested too deeply"),
    ("9" * 5000, "not valid JSON"),
    (b"{\"x\": \"\xff\"}", "not UTF-8"),
])
def test_run_verifier_unparseable_candidate(files, content, expected):
    path = files / "bad.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    one_line_error(cli_here("run-verifier", str(files / "v.py"), str(path)), "bad.json", expected)


def test_run_verifier_candidate_that_is_not_a_regular_file(files):
    os.mkfifo(files / "pipe.json")
    one_line_error(cli_here("run-verifier", str(files / "v.py"), str(files / "pipe.json")), "pipe.json: not a regular file")
    one_line_error(cli_here("run-verifier", str(files / "v.py"), "/dev/zero"), "/dev/zero: not a regular file")
    (files / "dir.json").mkdir()
    one_line_error(cli_here("run-verifier", str(files / "v.py"), str(files / "dir.json")), "dir.json")


def judge(files, out, *extra, run=cli_here):
    return run("judge", "--suite", str(files / "suite"), "--verifier", str(files / "v.py"), "--all", "--out", str(out), "--quiet", *extra)


def test_judge_out_of_the_wrong_kind(files):
    (files / "a-dir").mkdir()
    one_line_error(judge(files, files / "a-dir"), "--out", "not a regular file")
    one_line_error(judge(files, files / "a-dir", "--resume"), "--out", "not a regular file")
    (files / "a-file").write_text("")
    one_line_error(judge(files, files / "a-file" / "d.jsonl"), "--out", "is not a directory")
    os.mkfifo(files / "pipe.jsonl")
    one_line_error(judge(files, files / "pipe.jsonl", "--resume"), "--out", "not a regular file")


def test_judge_resume_on_a_file_that_is_not_utf8(files):
    out = files / "d.jsonl"
    out.write_bytes(b"\xff\xfe not decisions\n")
    one_line_error(judge(files, out, "--resume"), "d.jsonl: not UTF-8")
    assert out.read_bytes() == b"\xff\xfe not decisions\n"  # left as it was


@pytest.mark.sandbox
def test_judge_resume_drops_corrupt_lines(files, bwrap_available):
    out = files / "d.jsonl"
    out.write_text(json.dumps({"case_id": [1], "case_hash": "x", "verifier_hash": None}) + "\n"
                   + "[" * 5000 + "\n" + '{"case_id": ' + "9" * 5000 + "}\n")
    result = judge(files, out, "--resume", run=cli)  # it judges: through the executable, its sandboxes' output too
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert len(out.read_text().splitlines()) == len(make_suite().cases)


@pytest.mark.parametrize("command", [
    ["export-verifiers", "always-accept", "--out", "{file}"],
    ["build", "--source", "bfcl", "--out", "{file}/suite"],
    ["leaderboard", "{logs}", "--out", "{file}"],
    ["leaderboard", "{logs}", "--figures", "{file}/figures"],
    ["screen", "--out", "{file}"],
    ["audit", "{logs}", "--out", "{file}"],
    ["audit", "{logs}", "--pool", "{file}"],
    ["paper", "--logs", "{logs}", "--out", "{file}"],
    ["paper", "--logs", "{logs}", "--figures", "{file}"],
])
def test_output_directory_of_the_wrong_kind(files, command):
    (files / "a-file").write_text("")
    (files / "logs").mkdir()
    args = [a.format(file=files / "a-file", logs=files / "logs") for a in command]
    suite = [] if command[0] in ("build", "leaderboard") else ["--suite", str(files / "suite")]
    option = next(a for a in command if a.startswith("--") and a != "--source" and a != "--logs")
    one_line_error(cli_here(*args, *suite), option, "a-file is not a directory")


@pytest.mark.parametrize("command", ["leaderboard", "audit"])
def test_a_corrupt_log_is_named(files, command):
    (files / "logs").mkdir()
    (files / "logs" / "2026-01-01T00-00-00+00-00_task_abc.eval").write_bytes(os.urandom(3000))
    (files / "logs" / "EXPECTED_ERROR").touch()  # the corruption is the point: scripts/check_eval_logs.py skips it
    one_line_error(cli_here(command, str(files / "logs"), "--suite", str(files / "suite")) if command == "audit"
                   else cli_here(command, str(files / "logs"), "--no-write"),
                   "_task_abc.eval: not a readable Inspect log")


@pytest.mark.parametrize("content,expected", [(b"\xff{}", "not UTF-8"), (b"[" * 100_000, "nested too deeply")])
def test_a_corrupt_suite_manifest_is_named(files, content, expected):
    (files / "suite" / "manifest.json").write_bytes(content)
    one_line_error(cli_here("suite", "check", str(files / "suite")), "manifest.json", expected)


@pytest.mark.parametrize("content", [b"\xff", b'{"mutations": 3}'])
def test_paper_with_a_corrupt_screening_summary(files, content):
    (files / "screening").mkdir()
    (files / "screening" / "summary.json").write_bytes(content)
    result = cli_here("paper", "--suite", str(files / "suite"), "--screening", str(files / "screening"), "--logs", str(files / "none"),
                 "--out", str(files / "out"), "--figures", str(files / "figures"))
    one_line_error(result, "summary.json")


def test_screen_resume_on_records_that_are_not_utf8(files):
    (files / "screening").mkdir()
    (files / "screening" / "records.jsonl").write_bytes(b"\xff\n")
    result = cli_here("screen", "--suite", str(files / "suite"), "--out", str(files / "screening"), "--resume")
    one_line_error(result, "records.jsonl: not UTF-8")
    assert (files / "screening" / "records.jsonl").read_bytes() == b"\xff\n"


ROW = {"instance_id": "a__b-1", "repo": "a/b", "base_commit": "c", "patch": "", "test_patch": "", "problem_statement": "",
       "FAIL_TO_PASS": "[[", "PASS_TO_PASS": "[]"}


@pytest.mark.parametrize("name,content,expected", [
    ("rows.jsonl", b"\xff\xfe\n", "rows.jsonl: not UTF-8"),
    ("rows.json", b"[[[\n", "rows.json: not valid JSON"),
    ("rows.jsonl", ("[" * 100_000 + "\n").encode(), "rows.jsonl line 1: not valid JSON (nested too deeply)"),
    ("rows.parquet", b"not parquet", "rows.parquet: not a readable parquet file"),
    ("rows.jsonl", (json.dumps(ROW) + "\n").encode(), "FAIL_TO_PASS/PASS_TO_PASS must be a list"),
])
def test_build_with_a_corrupt_swebench_instances_file(files, name, content, expected):
    (files / name).write_bytes(content)
    result = cli_here("build", "--source", "swebench", "--swebench-instances", str(files / name), "--out", str(files / "built"))
    one_line_error(result, expected)


def test_judge_out_that_exists_without_resume_is_one_line(files):
    (files / "d.jsonl").write_text("")
    result = cli_here("judge", "--suite", str(files / "suite"), "--verifier", str(files / "v.py"), "--all", "--out", str(files / "d.jsonl"))
    one_line_error(result, "already exists", "--resume")


@pytest.mark.parametrize("args", [
    ["run-verifier", "{files}/v.py", "{files}/c.json", "--timeout", "nan"],  # argparse's error
    ["suite", "check", "{files}/suite"],  # a UserError from the command (the manifest made corrupt below)
])
def test_the_executable_gives_the_same_one_line_errors(files, args):
    (files / "suite" / "manifest.json").write_bytes(b"\xff{}")
    args = [a.format(files=files) for a in args]
    through_the_executable, here = cli(*args), cli_here(*args)
    one_line_error(through_the_executable)
    assert (through_the_executable.returncode, through_the_executable.stderr) == (here.returncode, here.stderr)
