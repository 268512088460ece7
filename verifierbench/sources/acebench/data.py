"""ACEBench records read from a data directory (upstream `data_all/data_en`, MIT): questions and answer keys by id.

The English files the suite uses ship inside the package (`data/`, with upstream's license and commit), so a clone or
a wheel builds every ACEBench task; a directory of upstream data can still be named instead."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifierbench.core.errors import UserError
from verifierbench.core.resources import package_path

ENV_VAR = "VERIFIERBENCH_ACEBENCH_DIR"

# our name -> upstream file stem (data_<stem>.json and possible_answer/data_<stem>.json)
CATEGORIES = {
    "single": "normal_single_turn_single_function",
    "parallel": "normal_single_turn_parallel_function",
    "similar_api": "normal_similar_api",
    "preference": "normal_preference",
    "atom_bool": "normal_atom_bool",
    "atom_enum": "normal_atom_enum",
    "atom_list": "normal_atom_list",
    "atom_number": "normal_atom_number",
    "atom_object_deep": "normal_atom_object_deep",
    "atom_object_short": "normal_atom_object_short",
}


@dataclass(frozen=True)
class Record:
    id: str
    category: str
    question: str
    functions: list[Any]
    ground_truth: dict[str, Any] | list[Any]
    context: dict[str, Any]  # what else the model was shown: the current time, the user profile


def resolve_dir(option: str | None = None) -> Path:
    """--acebench-dir, else $VERIFIERBENCH_ACEBENCH_DIR, else the copy shipped in the package."""
    chosen = option or os.environ.get(ENV_VAR)
    path = Path(chosen) if chosen else package_path(__package__, "data")
    if not (path / "possible_answer").is_dir():
        raise UserError(f"ACEBench data not found at {path} (expected data_*.json and possible_answer/; "
                        f"point --acebench-dir or ${ENV_VAR} at upstream's data_all/data_en)")
    return path


def source_commit(directory: Path) -> str | None:
    for candidate in (directory / "SOURCE_COMMIT", directory.parent.parent / "SOURCE_COMMIT"):
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8").split()[0]
    return None


def load(directory: Path, category: str) -> dict[str, Record]:
    stem = CATEGORIES[category]
    questions = _jsonl(directory / f"data_{stem}.json")
    answers = {r["id"]: r["ground_truth"] for r in _jsonl(directory / "possible_answer" / f"data_{stem}.json")}
    records = {}
    for q in questions:
        if q["id"] not in answers:
            continue
        context = {}
        if q.get("time"):
            context["Current time"] = q["time"]
        if q.get("profile"):
            context["User profile"] = q["profile"]
        records[q["id"]] = Record(q["id"], category, q["question"], q["function"], answers[q["id"]], context)
    return records


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise UserError(f"{path}: missing from the ACEBench data directory")
    try:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except json.JSONDecodeError as e:
        raise UserError(f"{path}: not JSON lines ({e})") from None
