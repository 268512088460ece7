"""Suite composition (paper Tables 1, 6 and 10): tasks by source and type, cases by label and category."""

from __future__ import annotations

from collections import Counter, defaultdict

from verifierbench.suite.store import Suite


def suite_stats(suite: Suite) -> dict:
    tasks = list(suite.tasks.values())
    cases = list(suite.cases.values())
    source_of = {t.id: t.source.value for t in tasks}
    by_source_and_category: dict[str, Counter] = defaultdict(Counter)
    per_task: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for case in cases:
        by_source_and_category[source_of[case.task_id]][case.category.value] += 1
    for task in tasks:
        own = suite.cases_by_task.get(task.id, [])
        per_task[task.source.value].append((len(own), sum(c.label.value == "PASS" for c in own)))
    return {
        "tasks": {
            "total": len(tasks),
            "by_source": dict(sorted(Counter(t.source.value for t in tasks).items())),
            "by_type": dict(sorted(Counter(t.type.value for t in tasks).items())),
        },
        "cases": {
            "total": len(cases),
            "by_label": dict(sorted(Counter(c.label.value for c in cases).items())),
            "by_category": dict(sorted(Counter(c.category.value for c in cases).items())),
            "by_source_and_category": {s: dict(sorted(c.items())) for s, c in sorted(by_source_and_category.items())},
        },
        "per_task_by_source": {
            s: {"cases": round(sum(n for n, _ in v) / len(v), 2), "positives": round(sum(p for _, p in v) / len(v), 2)}
            for s, v in sorted(per_task.items())
        },
    }
