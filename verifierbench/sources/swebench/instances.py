"""SWE-bench Verified instances: from the dataset hub at a pinned revision, or from a local file.

Rows keep SWE-bench's fields (`instance_id`, `repo`, `base_commit`, `patch`, `test_patch`,
`problem_statement`, `FAIL_TO_PASS`, `PASS_TO_PASS`, ...); the two test lists may be JSON strings, as
on the hub, or lists.
"""

from __future__ import annotations

import json
import os
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifierbench.core.errors import UserError
from verifierbench.core.jsonl import loads, read_text

DATASET = "princeton-nlp/SWE-bench_Verified"
# The hub revision read by default: the commit whose parquet file (sha256 a45b1fe4...) the offline copy
# beside the project was converted from, row for row. $VERIFIERBENCH_SWEBENCH_REVISION overrides it.
PINNED_REVISION = "c104f840cc67f8b6eec6f759ebc8b2693d585d4a"
REVISION_ENV = "VERIFIERBENCH_SWEBENCH_REVISION"
INSTANCES_ENV = "VERIFIERBENCH_SWEBENCH_INSTANCES"
REPOS_ENV = "VERIFIERBENCH_SWEBENCH_REPOS"
IDS_ENV = "VERIFIERBENCH_SWEBENCH_IDS"
# The offline copy (instances.jsonl and bare repositories) where a checkout of this project sits beside
# one (developers, CI); users without it read the hub and clone from GitHub.
# $VERIFIERBENCH_SWEBENCH_COPY names another copy; set empty, it turns the copy off (the hub is read).
SHARED_COPY = Path(__file__).resolve().parents[4] / "shared" / "upstream" / "swebench"
COPY_ENV = "VERIFIERBENCH_SWEBENCH_COPY"
# SWE-bench's django 5.0 rows were graded under Python 3.11 and name many tests as 3.11's unittest prints them,
# `test_x (module.Class.test_x)`; older rows, and the harness's log normalisation and structured report, use
# `test_x (module.Class)`. One form for all: without it, 23 of the 5.0 rows' named tests are never found
# (django-17029's gold "missing" 10 of its 44 tests that its log shows passing).
PY311_TEST_NAME = re.compile(r"^(\w+) \(([\w.]+)\.\1\)$")
REQUIRED = ("instance_id", "repo", "base_commit", "patch", "test_patch", "problem_statement", "FAIL_TO_PASS", "PASS_TO_PASS")


@dataclass(frozen=True)
class Instance:
    instance_id: str
    repo: str
    base_commit: str
    patch: str
    test_patch: str
    problem_statement: str
    fail_to_pass: list[str]
    pass_to_pass: list[str]
    hints: str = ""
    version: str = ""

    @classmethod
    def from_row(cls, row: dict[str, Any], where: str) -> "Instance":
        missing = [k for k in REQUIRED if k not in row]
        if missing:
            raise UserError(f"{where}: SWE-bench row {row.get('instance_id', '?')} lacks {', '.join(missing)}")
        try:
            tests = _tests(row["FAIL_TO_PASS"]), _tests(row["PASS_TO_PASS"])
        except UserError as e:  # named with its row, as a missing field is
            raise UserError(f"{where}: SWE-bench row {row['instance_id']}: {e}") from None
        if row["repo"] == "django/django":
            tests = _pre_311_names(tests[0]), _pre_311_names(tests[1])
        return cls(str(row["instance_id"]), str(row["repo"]), str(row["base_commit"]), str(row["patch"]), str(row["test_patch"]),
                   str(row["problem_statement"]), *tests, str(row.get("hints_text") or ""), str(row.get("version") or ""))


def _pre_311_names(tests: list[str]) -> list[str]:
    """django test names in the form older Pythons print (see PY311_TEST_NAME), in order, without duplicates."""
    return list(dict.fromkeys(PY311_TEST_NAME.sub(r"\1 (\2)", t) for t in tests))


def _tests(value: object) -> list[str]:
    try:
        tests = json.loads(value) if isinstance(value, str) else value
    except (ValueError, RecursionError):
        tests = None  # reported below as a malformed row
    if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
        raise UserError(f"FAIL_TO_PASS/PASS_TO_PASS must be a list of test names, got {str(value)[:80]}")
    return tests


def revision() -> str:
    return os.environ.get(REVISION_ENV) or PINNED_REVISION


def default_instances() -> str | None:
    path = os.environ.get(INSTANCES_ENV)
    if path:
        return path
    copy = offline_copy()
    return str(copy / "instances.jsonl") if copy and (copy / "instances.jsonl").is_file() else None


def offline_copy() -> Path | None:
    """The offline copy's directory, if one is configured (the one beside the project by default)."""
    value = os.environ.get(COPY_ENV)
    if value is None:
        return SHARED_COPY
    return Path(value) if value.strip() else None


def load(path: str | None, bad: list[str] | None = None) -> list[Instance]:
    """Instances from `path` (or $VERIFIERBENCH_SWEBENCH_INSTANCES, or the offline copy), else from the hub.
    With `bad`, a malformed row is skipped and its one-line reason appended there instead of raising."""
    path = path or default_instances()
    rows, where = (_read_file(Path(path)), path) if path else (_read_hub(), DATASET)
    out = []
    for number, row in enumerate(rows, 1):
        try:
            if not isinstance(row, dict):
                raise UserError(f"{where}: row {number} is not an object")
            out.append(Instance.from_row(row, where))
        except UserError as e:
            if bad is None:
                raise
            bad.append(str(e))
    return out


def _read_file(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise UserError(f"SWE-bench instances file {path} does not exist")
    if path.suffix == ".parquet":
        import pandas

        try:
            records: list[dict[str, Any]] = pandas.read_parquet(path).to_dict("records")
            return records
        except Exception as e:  # noqa: BLE001 - pyarrow raises many kinds on a corrupt file
            raise UserError(f"{path}: not a readable parquet file ({type(e).__name__})") from None
    text = read_text(path)
    if path.suffix == ".json":
        data = loads(text, str(path))
        return data if isinstance(data, list) else [data]
    return [loads(line, f"{path} line {number}") for number, line in enumerate(text.splitlines(), 1) if line.strip()]


def _read_hub() -> list[dict[str, Any]]:
    advice = "pass --swebench-instances FILE (JSON, JSONL or parquet with SWE-bench's fields)"
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes"):  # the hub's own offline switch: not even a probe
        raise UserError(f"no instances: the dataset hub (huggingface.co) is off (HF_HUB_OFFLINE); {advice}")
    try:
        socket.create_connection(("huggingface.co", 443), timeout=3).close()
    except OSError as e:
        raise UserError(f"no instances: the dataset hub (huggingface.co) is unreachable ({e.strerror or e}); {advice}") from None
    from datasets import load_dataset

    return list(load_dataset(DATASET, split="test", revision=revision()))


def hub_commit() -> str | None:
    """The commit of the hub dataset at the configured revision (for the build record)."""
    try:
        from huggingface_hub import HfApi

        return HfApi().dataset_info(DATASET, revision=revision()).sha
    except Exception:  # noqa: BLE001 - provenance only
        return None


def repos_dir(path: str | None) -> Path | None:
    path = path or os.environ.get(REPOS_ENV)
    if path:
        return Path(path)
    copy = offline_copy()
    return copy / "repos" if copy and (copy / "repos").is_dir() else None


def selected_ids(value: str | None = None) -> list[str] | None:
    """Instance ids to build instead of the seeded selection (--swebench-ids / $VERIFIERBENCH_SWEBENCH_IDS).

    Raises:
        UserError: an id is named twice (its task was built twice, for nothing: the suite keeps one).
    """
    value = value or os.environ.get(IDS_ENV)
    if not value:
        return None
    ids = [v.strip() for v in value.split(",") if v.strip()]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise UserError(f"--swebench-ids: {twice[0]} is named {ids.count(twice[0])} times; name each instance once")
    return ids


def local_clone(repos: Path, repo: str) -> Path | None:
    """SWE-bench's naming (`django__django`, or a bare `django__django.git`), or the repository's own name."""
    for name in (repo.replace("/", "__"), repo.replace("/", "__") + ".git", repo.split("/")[-1], repo.split("/")[-1] + ".git"):
        if (repos / name).is_dir():
            return repos / name
    return None
