"""BFCL v4 records read from the installed `bfcl-eval` package (questions and answer keys matched by id)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import metadata, util
from pathlib import Path
from typing import Any

from verifierbench.core.errors import UserError
from verifierbench.sources.bfcl.checker import PINNED_VERSION

# our name -> (file stem, the test category the checker is told)
CATEGORIES = {
    "simple": ("simple_python", "simple"),
    "multiple": ("multiple", "multiple"),
    "parallel": ("parallel", "parallel"),
    "parallel_multiple": ("parallel_multiple", "parallel_multiple"),
}


@dataclass(frozen=True)
class Record:
    id: str
    category: str  # the checker's test category
    question: list[Any]  # turns of {"role", "content"}
    functions: list[Any]
    ground_truth: list[Any]


def package_dir() -> Path:
    """Where `bfcl_eval` is installed, found without importing it; UserError when it is not."""
    spec = util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        raise UserError(f"bfcl needs bfcl-eval, which is not installed: pip install --no-deps bfcl-eval=={PINNED_VERSION} "
                        "(the bfcl extra without its dependencies, which pull torch)")
    return Path(list(spec.submodule_search_locations)[0])


def installed_version() -> str:
    return metadata.version("bfcl-eval")


def load(category: str) -> dict[str, Record]:
    stem, checker_category = CATEGORIES[category]
    data = package_dir() / "data"
    questions = _jsonl(data / f"BFCL_v4_{stem}.json")
    answers = {r["id"]: r for r in _jsonl(data / "possible_answer" / f"BFCL_v4_{stem}.json")}
    return {
        q["id"]: Record(q["id"], checker_category, q["question"], q["function"], answers[q["id"]]["ground_truth"])
        for q in questions if q["id"] in answers
    }


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise UserError(f"{path}: missing from the installed bfcl-eval package")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
