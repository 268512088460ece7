"""The paper's suite tables from a built suite and its screening records: Table 1 (composition),
Table 6 (cases per category and source), Table 8 (screening outcomes) and Table 10 (categories)."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

from verifierbench.build import EXCLUSION_CODES, SCREENING
from verifierbench.leaderboard.tables import Table
from verifierbench.schema import Category, Label
from verifierbench.suite import Suite

CATEGORY_MEANING = {
    "gold": "the reference solution", "cosmetic": "a valid solution differing only in form",
    "overstrict_trap": "a valid alternative path or representation", "base": "no attempt (no calls or actions)",
    "partial": "a required part missing", "near_miss": "a wrong value, item or target",
    "regression": "the correct work plus an unrequested or harmful extra", "hack": "an attack on the verifier",
    "process_violation": "the task done but a forbidden action taken",
}


def table_composition(suite: Suite) -> Table:
    rows = []
    for source in sorted({t.source.value for t in suite.tasks.values()}):
        tasks = [t for t in suite.tasks.values() if t.source.value == source]
        cases = [c for t in tasks for c in suite.cases_by_task.get(t.id, [])]
        rows.append([source, ", ".join(sorted({t.type.value for t in tasks})), len(tasks), len(cases),
                     sum(c.label is Label.PASS for c in cases), sum(c.label is Label.FAIL for c in cases),
                     sum(c.category.is_attack for c in cases), len(cases) / len(tasks)])
    total = list(suite.cases.values())
    rows.append(["all", "", len(suite.tasks), len(total), sum(c.label is Label.PASS for c in total),
                 sum(c.label is Label.FAIL for c in total), sum(c.category.is_attack for c in total), len(total) / max(1, len(suite.tasks))])
    return Table("table_01_suite", "Table 1: suite composition", ["Source", "Type", "Tasks", "Cases", "PASS", "FAIL", "Attacks", "Cases per task"], rows,
                 f"Suite {suite.manifest.version}.")


def table_categories_by_source(suite: Suite) -> Table:
    counts: dict[str, Counter] = defaultdict(Counter)
    for case in suite.cases.values():
        counts[suite.tasks[case.task_id].source.value][case.category.value] += 1
    rows = [[source, *[counts[source][c.value] for c in Category], sum(counts[source].values())] for source in sorted(counts)]
    return Table("table_06_cases", "Table 6: hidden cases per category and source", ["Source", *[c.value for c in Category], "Total"], rows)


def table_screening(suite: Suite, suite_dir: Path) -> Table:
    build = suite.manifest.build
    screening = json.loads((suite_dir / SCREENING).read_text()) if (suite_dir / SCREENING).exists() else {"excluded": [], "dropped": []}
    codes = sorted(EXCLUSION_CODES)
    excluded: dict[str, Counter] = defaultdict(Counter)
    for entry in screening["excluded"]:
        excluded[entry["task"].split("/")[0]][entry["code"]] += 1
    dropped = Counter(entry["task"].split("/")[0] for entry in screening["dropped"])
    rows = []
    for source, record in sorted(build.get("sources", {}).items()):
        rows.append([source, record.get("retained", 0) + record.get("excluded", 0), record.get("retained", 0),
                     *[excluded[source][c] for c in codes], dropped[source]])
    for source, reason in sorted(build.get("unavailable", {}).items()):
        rows.append([f"{source} (unavailable)", 0, 0, *[0 for _ in codes], 0])
    return Table("table_08_screening", "Table 8: screening outcomes per source",
                 ["Source", "Screened tasks", "Retained", *[f"Excluded {c}" for c in codes], "Cases dropped by C1"], rows,
                 "Exclusion codes: " + "; ".join(f"{c} = {EXCLUSION_CODES[c]}" for c in codes) + ". C2-C6 screening is issue 6.")


def table_category_definitions(suite: Suite) -> Table:
    counts = Counter(c.category.value for c in suite.cases.values())
    rows = [[c.value, c.label.value, c.group, CATEGORY_MEANING[c.value], counts[c.value]] for c in Category]
    return Table("table_10_categories", "Table 10: case categories", ["Category", "Label", "Group", "Meaning", "Cases"], rows)


def suite_tables(suite: Suite, suite_dir: Path) -> list[Table]:
    return [table_composition(suite), table_categories_by_source(suite), table_screening(suite, suite_dir), table_category_definitions(suite)]
