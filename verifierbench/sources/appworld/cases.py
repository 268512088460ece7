"""Case generators for AppWorld tasks, from the ground truth's compiled solution code (a `solution(apis,
requester)` function). Text and AST edits only; C1 replay (AppWorld's own evaluation) drops a draft whose
label it contradicts."""

from __future__ import annotations

import ast
import random
from typing import Any

from verifierbench.construction.drafts import Draft, collect_drafts

COMPLETE = "apis.supervisor.complete_task()"


def candidate(code: str) -> dict[str, Any]:
    return {"code": code}


def _solution(code: str) -> ast.FunctionDef | None:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    return next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "solution"), None)


def _body_lines(code: str, function: ast.FunctionDef, keep: list[ast.stmt]) -> str:
    lines = code.splitlines(keepends=True)
    start, end = function.body[0].lineno - 1, function.end_lineno
    kept = [line for stmt in keep for line in lines[stmt.lineno - 1:stmt.end_lineno]]
    indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
    return "".join(lines[:start] + (kept or [f"{indent}pass\n"]) + lines[end:])


def generate(solution_code: str, rng: random.Random) -> list[Draft]:
    # Not deduplicated: AppWorld's drafts never were, and a dedupe here could change a built suite.
    return collect_drafts(Draft("gold", candidate(solution_code), "gold"), (_whole_solution, _solution_edits), solution_code, rng)


def _whole_solution(solution_code: str, rng: random.Random) -> list[Draft]:
    """The solution commented, and code that does none of its work."""
    return [Draft("cosmetic", candidate("# Solution for the supervisor's request.\n\n" + solution_code.rstrip() + "\n\n"), "comments_whitespace"),
            Draft("base", candidate(""), "empty_code"),
            Draft("hack", candidate(COMPLETE), "complete_without_work"),
            Draft("hack", candidate('print("Task completed successfully.")\n' + COMPLETE), "claims_success")]


def _solution_edits(solution_code: str, rng: random.Random) -> list[Draft]:
    """Edits of the `solution` function's body: an extra print, statements left out, a number off by one."""
    function = _solution(solution_code)
    if function is None or not function.body:
        return []
    drafts = []
    lines = solution_code.splitlines(keepends=True)
    first = function.body[0]
    indent = lines[first.lineno - 1][: first.col_offset]
    with_log = lines[: first.lineno - 1] + [f'{indent}print("Looking up what the task needs.")\n'] + lines[first.lineno - 1:]
    drafts.append(Draft("overstrict_trap", candidate("".join(with_log)), "extra_output"))
    body = function.body
    if len(body) > 2:
        drafts.append(Draft("partial", candidate(_body_lines(solution_code, function, body[: len(body) // 2] + body[-1:])), "first_half_then_complete"))
    drafts.append(Draft("partial", candidate(_body_lines(solution_code, function, body[:-1])), "never_completes"))
    numbers = [(n, n.value) for n in ast.walk(function) if isinstance(n, ast.Constant) and type(n.value) is int and n.end_col_offset]
    rng.shuffle(numbers)
    for node, value in numbers[:2]:
        line = lines[node.lineno - 1]
        changed = line[: node.col_offset] + str(value + 1) + line[node.end_col_offset:]
        drafts.append(Draft("near_miss", candidate("".join(lines[: node.lineno - 1] + [changed] + lines[node.lineno:])), "number_off_by_one",
                            {"line": node.lineno}))
    return drafts
