"""A suite on disk: `manifest.json`, `tasks.jsonl` and `cases.jsonl` in one directory.

Loading verifies every record against its content hash and against the manifest, and fails with
one line naming the file, the line and the field at fault.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, TypeVar

from pydantic import BaseModel, ValidationError

from verifierbench.core.errors import SuiteIntegrityError
from verifierbench.core.hashing import content_hash
from verifierbench.core.jsonl import loads, read_jsonl
from verifierbench.core.schema import ManifestCase, ManifestTask, SuiteManifest, Task, TestCase
from verifierbench.sources import registry

MANIFEST = "manifest.json"
TASKS = "tasks.jsonl"
CASES = "cases.jsonl"

M = TypeVar("M", bound=BaseModel)


@dataclass
class Suite:
    manifest: SuiteManifest
    tasks: dict[str, Task]
    cases: dict[str, TestCase]
    cases_by_task: dict[str, list[TestCase]] = field(default_factory=dict)

    @classmethod
    def from_records(cls, version: str, tasks: Iterable[Task], cases: Iterable[TestCase], build: dict[str, Any] | None = None) -> "Suite":
        tasks = sorted(tasks, key=lambda t: t.id)
        cases = sorted(cases, key=lambda c: (c.task_id, c.id))
        manifest = SuiteManifest(
            version=version,
            build=build or {},
            tasks=[ManifestTask(id=t.id, source=t.source, source_id=t.source_id, type=t.type, content_hash=t.content_hash) for t in tasks],
            cases=[ManifestCase(id=c.id, task_id=c.task_id, category=c.category, label=c.label, content_hash=c.content_hash) for c in cases],
        )
        suite = cls(manifest, {t.id: t for t in tasks}, {c.id: c for c in cases})
        suite._check_consistency("<in memory>")
        return suite

    def content_hash(self) -> str:
        """`sha256:...` of every task's and case's id and content hash: equal for suites with the same content,
        wherever they are and whenever they were built."""
        return content_hash({"tasks": [[t.id, t.content_hash] for t in self.manifest.tasks],
                             "cases": [[c.id, c.content_hash] for c in self.manifest.cases]})

    def __post_init__(self) -> None:
        by_task: dict[str, list[TestCase]] = defaultdict(list)
        for case in self.cases.values():
            by_task[case.task_id].append(case)
        self.cases_by_task = dict(by_task)

    def _check_consistency(self, where: str) -> None:
        for case in self.cases.values():
            if case.task_id not in self.tasks:
                raise SuiteIntegrityError(f"{where}: field 'task_id' of case {case.id} names unknown task {case.task_id}")


CHECKOUTS = "checkouts"


def save_suite(suite: Suite, directory: str | Path) -> Path:
    """Writes the three files atomically (each to a temporary name, then renamed)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    _atomic_write(directory / TASKS, "".join(t.model_dump_json() + "\n" for t in suite.tasks.values()))
    _atomic_write(directory / CASES, "".join(c.model_dump_json() + "\n" for c in suite.cases.values()))
    # The manifest goes last: a crash mid-save leaves a manifest that no longer matches, which load reports.
    _atomic_write(directory / MANIFEST, suite.manifest.model_dump_json(indent=1) + "\n")
    return directory


def load_suite(directory: str | Path) -> Suite:
    directory = Path(directory)
    if not directory.is_dir():
        raise SuiteIntegrityError(f"{directory}: no suite directory here (expected {MANIFEST}, {TASKS}, {CASES})")
    manifest = _load_manifest(directory / MANIFEST)
    tasks = {t.id: t for t in _load_records(directory / TASKS, Task, "task")}
    cases = {c.id: c for c in _load_records(directory / CASES, TestCase, "case")}
    _match_manifest(directory / TASKS, "task", tasks, manifest.tasks, ("source", "source_id", "type", "content_hash"))
    _match_manifest(directory / CASES, "case", cases, manifest.cases, ("task_id", "category", "label", "content_hash"))
    suite = Suite(manifest, tasks, cases)
    suite._check_consistency(str(directory / CASES))
    if (directory / CHECKOUTS).is_dir():  # code tasks' repository checkouts, found by digest
        for declared in registry.SOURCES.values():
            declared.add_checkout_dir(directory / CHECKOUTS)
        if directory / CHECKOUTS not in _checkout_dirs:
            _checkout_dirs.append(directory / CHECKOUTS)
    return suite


_checkout_dirs: list[Path] = []


def checkout_dirs() -> tuple[Path, ...]:
    """The checkouts folders of every suite loaded in this process (a run_public worker is told them: public_env.registry)."""
    return tuple(_checkout_dirs)


def _load_manifest(path: Path) -> SuiteManifest:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SuiteIntegrityError(f"{path}: missing") from None
    except UnicodeDecodeError as exc:
        raise SuiteIntegrityError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise SuiteIntegrityError(f"{path}: cannot read ({exc.strerror})") from None
    data = loads(text, str(path), SuiteIntegrityError)
    return _validate(SuiteManifest, data, str(path))


def _load_records(path: Path, model: type[M], kind: str) -> list[M]:
    records: list[M] = []
    seen: set[str] = set()
    for where, data in read_jsonl(path, SuiteIntegrityError, missing="missing"):
        record = _validate(model, data, where)
        computed = record.computed_hash()  # type: ignore[attr-defined]
        if computed != record.content_hash:  # type: ignore[attr-defined]
            raise SuiteIntegrityError(
                f"{where}: field 'content_hash' of {kind} {record.id} does not match its content "  # type: ignore[attr-defined]
                f"(stored {record.content_hash}, computed {computed})"  # type: ignore[attr-defined]
            )
        if record.id in seen:  # type: ignore[attr-defined]
            raise SuiteIntegrityError(f"{where}: field 'id' repeats {kind} {record.id}")  # type: ignore[attr-defined]
        seen.add(record.id)  # type: ignore[attr-defined]
        records.append(record)
    return records


def _match_manifest(path: Path, kind: str, records: dict[str, Any], listed: list[Any], fields: tuple[str, ...]) -> None:
    manifest_path = path.with_name(MANIFEST)
    listed_ids = {entry.id: entry for entry in listed}
    for missing in sorted(set(listed_ids) - set(records)):
        raise SuiteIntegrityError(f"{path}: {kind} {missing} is listed in {manifest_path.name} but missing")
    for extra in sorted(set(records) - set(listed_ids)):
        raise SuiteIntegrityError(f"{path}: {kind} {extra} is not listed in {manifest_path.name}")
    for record_id, entry in listed_ids.items():
        record = records[record_id]
        for name in fields:
            if getattr(record, name) != getattr(entry, name):
                raise SuiteIntegrityError(
                    f"{manifest_path}: field '{name}' of {kind} {record_id} is {_show(getattr(entry, name))} "
                    f"but {path.name} has {_show(getattr(record, name))}"
                )


def _validate(model: type[M], data: Any, where: str) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field_name = ".".join(str(p) for p in first["loc"]) or "(record)"
        raise SuiteIntegrityError(f"{where}: field '{field_name}': {first['msg']}") from None


def _show(value: Any) -> str:
    return getattr(value, "value", value) if not isinstance(value, str) else value


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
