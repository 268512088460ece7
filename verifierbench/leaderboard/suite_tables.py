"""The paper's suite tables from a built suite and its screening records: Table 1 (composition),
Table 6 (cases per category and source), Table 8 (screening outcomes) and Table 10 (categories)."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from verifierbench.screening.run import current_summary
from verifierbench.suite.exclusions import EXCLUSION_CODES, dropped_by_c1, read_screening
from verifierbench.leaderboard.tables import Cell, Table
from verifierbench.core.schema import Category, Label
from verifierbench.suite.store import Suite

CATEGORY_MEANING = {
    "gold": "the reference solution", "cosmetic": "a valid solution differing only in form",
    "overstrict_trap": "a valid alternative path or representation", "base": "no attempt (no calls or actions)",
    "partial": "a required part missing", "near_miss": "a wrong value, item or target",
    "regression": "the correct work plus an unrequested or harmful extra", "hack": "an attack on the verifier",
    "process_violation": "the task done but a forbidden action taken",
}


def table_composition(suite: Suite) -> Table:
    rows: list[list[Cell]] = []
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
    rows: list[list[Cell]] = [[source, *[counts[source][c.value] for c in Category], sum(counts[source].values())]
                              for source in sorted(counts)]
    return Table("table_06_cases", "Table 6: hidden cases per category and source", ["Source", *[c.value for c in Category], "Total"], rows)


def table_screening(suite: Suite, suite_dir: Path, screen_summary: dict | None = None) -> Table:
    build = suite.manifest.build
    screening = read_screening(suite_dir)
    screen_summary = current_summary(screen_summary) if screen_summary else None
    codes = sorted(EXCLUSION_CODES)
    excluded: dict[str, Counter] = defaultdict(Counter)
    for entry in screening["excluded"]:
        excluded[entry["task"].split("/")[0]][entry["code"]] += 1
    dropped: dict[str, list[dict]] = defaultdict(list)
    for entry in screening["dropped"]:
        dropped[entry["task"].split("/")[0]].append(entry)
    screened = (screen_summary or {}).get("by_source", {})
    screen_codes = sorted((screen_summary or {}).get("codes", {}))
    rows = []
    for source, record in sorted(build.get("sources", {}).items()):
        after = screened.get(source, {})
        by_c1 = dropped_by_c1(dropped[source])
        rows.append([source, record.get("retained", 0) + record.get("excluded", 0), *[excluded[source][c] for c in codes], by_c1,
                     len(dropped[source]) - by_c1, *[after.get(f"excluded_{c}", 0) for c in screen_codes], after.get("retained", record.get("retained", 0))])
    for source in sorted(build.get("unavailable", {})):
        rows.append([f"{source} (unavailable)", 0, *[0 for _ in codes], 0, 0, *[0 for _ in screen_codes], 0])
    meanings = {**EXCLUSION_CODES, **(screen_summary or {}).get("codes", {})}
    return Table("table_08_screening", "Table 8: screening outcomes per source",
                 ["Source", "Candidate tasks", *[f"Build excluded {c}" for c in codes], "Cases dropped by C1",
                  "Inert hacks dropped (C7)",
                  *[f"Screen excluded {c}" for c in screen_codes], "Retained"], rows,
                 "Codes: " + "; ".join(f"{c} = {m}" for c, m in sorted(meanings.items()))
                 + ("" if screen_summary else ". Run `verifierbench screen` for the C1-C7 columns."))


def table_mutations(screen_summary: dict) -> Table:
    """Table 9: mutation operators and configurations per source, and how many a case detected."""
    rows: list[list[Cell]] = [[source, m["operators"], m["configurations"], m["detected"], 100 * m["detected"] / m["configurations"] if m["configurations"] else None]
            for source, m in sorted(screen_summary["mutations"]["by_source"].items())]
    return Table("table_09_mutations", "Table 9: mutation testing (C6) per source", ["Source", "Operators", "Configurations", "Detected", "Detected %"], rows,
                 "A configuration is one operator applied to one task; detected when some case gets different valid decisions.")


def table_category_definitions(suite: Suite) -> Table:
    counts = Counter(c.category.value for c in suite.cases.values())
    rows: list[list[Cell]] = [[c.value, c.label.value, c.group, CATEGORY_MEANING[c.value], counts[c.value]] for c in Category]
    return Table("table_10_categories", "Table 10: case categories", ["Category", "Label", "Group", "Meaning", "Cases"], rows)


def suite_tables(suite: Suite, suite_dir: Path, screen_summary: dict | None = None) -> list[Table]:
    tables = [table_composition(suite), table_categories_by_source(suite), table_screening(suite, suite_dir, screen_summary)]
    if screen_summary:
        tables.append(table_mutations(screen_summary))
    return tables + [table_category_definitions(suite)]
