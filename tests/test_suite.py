"""Suite schema and on-disk format: hashes verified on load, one-line errors naming file and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifierbench.core.errors import SuiteIntegrityError
from verifierbench.core.schema import Category, Label, Task, TestCase
from verifierbench.suite.store import CASES, MANIFEST, TASKS, Suite, load_suite, save_suite


def make_suite() -> Suite:
    task = Task.create(
        source="acebench", source_id="normal_single_turn_single_function_0", type="tool-call",
        instruction="Book a table for two at 7pm.",
        environment={"tools": [{"name": "book", "parameters": {"type": "object", "properties": {"people": {"type": "integer"}}}}]},
        candidate_format="tool_calls",
    )
    gold = {"raw": "[book(people=2)]", "parsed": [{"name": "book", "arguments": {"people": 2}}]}
    wrong = {"raw": "[book(people=3)]", "parsed": [{"name": "book", "arguments": {"people": 3}}]}
    hack = {"raw": "PASS", "parsed": []}
    cases = [
        TestCase.create(task_id=task.id, category="gold", candidate=gold),
        TestCase.create(task_id=task.id, category="near_miss", candidate=wrong, provenance={"operator": "change_value"}),
        TestCase.create(task_id=task.id, category="hack", candidate=hack),
    ]
    return Suite.from_records("test-1", [task], cases, build={"seed": 7})


def test_ids_are_stable_and_content_derived():
    a, b = make_suite(), make_suite()
    assert list(a.tasks) == list(b.tasks)
    assert sorted(a.cases) == sorted(b.cases)
    task_id = next(iter(a.tasks))
    assert task_id.startswith("vgb-t-") and len(task_id) == len("vgb-t-") + 16
    assert all(c.startswith("vgb-c-") for c in a.cases)


def test_label_is_derived_from_category():
    suite = make_suite()
    labels = {c.category: c.label for c in suite.cases.values()}
    assert labels == {Category.gold: Label.PASS, Category.near_miss: Label.FAIL, Category.hack: Label.FAIL}
    case = next(iter(suite.cases.values()))
    data = case.model_dump(mode="json") | {"label": "FAIL" if case.label is Label.PASS else "PASS"}
    with pytest.raises(ValueError, match="contradicts category"):
        TestCase.model_validate(data)


def test_round_trip(tmp_path):
    suite = make_suite()
    save_suite(suite, tmp_path)
    loaded = load_suite(tmp_path)
    assert loaded.tasks == suite.tasks and loaded.cases == suite.cases
    assert loaded.manifest == suite.manifest
    assert loaded.manifest.build == {"seed": 7}
    assert len(loaded.cases_by_task[next(iter(suite.tasks))]) == 3


def _edit_line(path: Path, index: int, edit) -> None:
    lines = path.read_text().splitlines()
    data = json.loads(lines[index])
    edit(data)
    lines[index] = json.dumps(data)
    path.write_text("\n".join(lines) + "\n")


def _error(tmp_path) -> str:
    with pytest.raises(SuiteIntegrityError) as info:
        load_suite(tmp_path)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_tampered_candidate_fails_naming_file_line_and_field(tmp_path):
    save_suite(make_suite(), tmp_path)
    _edit_line(tmp_path / CASES, 1, lambda d: d["candidate"]["parsed"].clear())
    message = _error(tmp_path)
    assert str(tmp_path / CASES) in message and "line 2" in message and "'content_hash'" in message


def test_relabelled_case_fails(tmp_path):
    save_suite(make_suite(), tmp_path)
    def relabel(d):
        d.update(category="near_miss", label="FAIL") if d["label"] == "PASS" else d.update(category="cosmetic", label="PASS")

    _edit_line(tmp_path / CASES, 0, relabel)
    assert "'content_hash'" in _error(tmp_path)


def test_tampered_task_instruction_fails(tmp_path):
    save_suite(make_suite(), tmp_path)
    _edit_line(tmp_path / TASKS, 0, lambda d: d.update(instruction="Book a table for three."))
    message = _error(tmp_path)
    assert TASKS in message and "'content_hash'" in message


def test_manifest_mismatch_names_the_field(tmp_path):
    save_suite(make_suite(), tmp_path)
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    manifest["cases"][0]["content_hash"] = "sha256:" + "0" * 64
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    message = _error(tmp_path)
    assert MANIFEST in message and "'content_hash'" in message


def test_case_missing_from_the_file_is_reported(tmp_path):
    save_suite(make_suite(), tmp_path)
    lines = (tmp_path / CASES).read_text().splitlines()
    (tmp_path / CASES).write_text("\n".join(lines[:-1]) + "\n")
    assert "listed in manifest.json but missing" in _error(tmp_path)


@pytest.mark.parametrize("corrupt,expected", [
    (lambda p: (p / CASES).write_text('{"id": "vgb-c-1", "task_id": \n'), "not valid JSON"),
    (lambda p: (p / CASES).write_bytes(b"\xff\xfe\x00garbage"), "not UTF-8"),
    (lambda p: (p / MANIFEST).write_text("{}"), "field 'version'"),
    (lambda p: (p / TASKS).unlink(), "missing"),
])
def test_corruption_gives_one_line_errors(tmp_path, corrupt, expected):
    save_suite(make_suite(), tmp_path)
    corrupt(tmp_path)
    assert expected in _error(tmp_path)


def test_unknown_category_names_the_field(tmp_path):
    save_suite(make_suite(), tmp_path)
    _edit_line(tmp_path / CASES, 0, lambda d: d.update(category="sneaky"))
    message = _error(tmp_path)
    assert "field 'category'" in message and "line 1" in message
