"""`verifierbench judge --logs LOGDIR`: judges `inspect eval --no-score` logs later, with the coupled path's scores.

Each log's samples carry their frozen verifier in the store (harness/freeze.py); the log is scored with the same
`hidden_cases` scorer and options it was made with (suite, rounds), through Inspect's own `score`, so a judged log is
what `inspect eval` would have written, and the leaderboard reads it like any other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from verifierbench.core.errors import UserError

HIDDEN_CASES = "hidden_cases"


def judge_logs(log_dir: Path, backend: str | None = None, ray_address: str | None = None, rescore: bool = False,
               on_log: Callable[[str, str], None] | None = None, on_skip: Callable[[str, str], None] | None = None) -> list[Path]:
    """Scores every verifierbench log under `log_dir` that has no hidden_cases score yet (all with `rescore`),
    writing each back in place; returns the logs judged. `on_log(path, summary)` reports each one, `on_skip(path,
    why)` each log left as it was because it cannot be judged (another task's, or a run that did not finish)."""
    from inspect_ai import score
    from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log

    from verifierbench.scorers.hidden_cases import hidden_cases

    infos = list_eval_logs(str(log_dir))
    if not infos:
        raise UserError(f"{log_dir}: no Inspect logs there")
    judged = []
    for info in infos:
        log = read_eval_log(info)
        if log.eval.task.split("/")[-1] != "verifierbench":
            if on_skip:
                on_skip(info.name, f"not a VerifierBench log (task {log.eval.task})")
            continue
        if log.status != "success":  # a run that did not finish generating: its verifiers may be missing or half-written
            if on_skip:
                error = (log.error.message or "").strip().splitlines()[0][:300] if log.error and (log.error.message or "").strip() else ""
                on_skip(info.name, f"status {log.status}, not judged (run it to completion, e.g. `inspect eval-retry`)"
                        + (f": {error}" if error else ""))
            continue
        if not rescore and log.results and any(s.name == HIDDEN_CASES for s in log.results.scores):
            continue
        options = next((dict(s.options or {}) for s in log.eval.scorers or [] if s.name.split("/")[-1] == HIDDEN_CASES),
                       {"suite": log.eval.task_args.get("suite")})
        scorer = hidden_cases(suite=options.get("suite"), rounds=int(options.get("rounds") or 3),
                              backend=backend, ray_address=ray_address)
        scored = score(log, scorer, action="overwrite", display="none", copy=False)
        write_eval_log(scored, info.name)
        judged.append(Path(info.name))
        if on_log:
            metrics = {m.name: m.value for s in (scored.results.scores if scored.results else []) for m in s.metrics.values()}
            on_log(info.name, ", ".join(f"{k} {v:.2f}" for k, v in metrics.items() if k in ("BA_norm", "TPR", "TNR", "FPR_h")))
    return judged
