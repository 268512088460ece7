"""Selects and builds SWE-bench Verified code tasks: instances selected with a seed (47 from django, astropy and
matplotlib as in the paper, the paper's named instances first), each built by `instance_build` (its checkout, its gold
test outcomes, its cases, and C1 replay through the reference verifier) or excluded.

Where the data comes from: `--swebench-instances` / `--swebench-repos`, else the offline copy beside
the project when present (`instances.SHARED_COPY`), else the dataset hub at the pinned revision.
Where tests run: in the no-Docker sandbox, against a checkout exported from the clone, with the
instance's own test environment (`venv_store`: SWE-bench's specification of its repository and version,
made from this machine's Python 3.11 and the package index) and its own test command (django's
tests/runtests.py, pytest elsewhere).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Callable

from verifierbench.core.errors import UserError
from verifierbench.sources.base import SourcePaths
from verifierbench.sources.swebench import instances, prerequisites, venv_store
from verifierbench.sources.swebench.checkout_cleanup import checkouts_in, drop_unused_checkouts
from verifierbench.sources.swebench.instance_build import construct_or_exclude
from verifierbench.sources.swebench.task_record import upstream_version
from verifierbench.construction.replay import Replayed
from verifierbench.construction.selection import Selection

PAPER_REPOS = ("django/django", "astropy/astropy", "matplotlib/matplotlib")
QUOTA = 47
FORCED = ("django__django-11734", "django__django-11740", "django__django-11848", "django__django-12155",
          "matplotlib__matplotlib-14623")


def unavailable_reason() -> str:
    try:
        import docker

        docker.from_env(timeout=3).ping()
    except Exception as e:  # noqa: BLE001 - any failure means no engine
        return (f"no Docker engine for SWE-bench's environment images ({type(e).__name__}) and no --swebench-repos DIR "
                "of local clones to test against")
    return ("a Docker engine is present, but running tests in SWE-bench's environment images is not supported yet; "
            "pass --swebench-repos DIR of local clones")


def _ordered(rows: list[instances.Instance], seed: int, ids: list[str] | None) -> tuple[list[instances.Instance], bool]:
    if ids:
        by_id = {i.instance_id: i for i in rows}
        unknown = [i for i in ids if i not in by_id]
        if unknown:
            raise UserError(f"--swebench-ids: no instance {unknown[0]} in the instances read")
        return [by_id[i] for i in ids], False
    paper = [i for i in rows if i.repo in PAPER_REPOS]
    pool = sorted(paper or rows, key=lambda i: i.instance_id)
    random.Random(f"{seed}:swebench").shuffle(pool)
    return [i for i in pool if i.instance_id in FORCED] + [i for i in pool if i.instance_id not in FORCED], bool(paper)


def build(seed: int, instances_path: str | None = None, repos: str | None = None, store: Path | None = None,
          ids: str | None = None, say: Callable[[str], None] = lambda line: None) -> Selection:
    """The code tasks of a build: instances walked in the seeded order until the quota is retained.

    Args:
        seed: the build's seed.
        instances_path: the SWE-bench rows (None: the offline copy, else the dataset hub).
        repos: the directory of local clones (None: the offline copy's).
        store: where checkouts go (the build passes `<suite>/checkouts`).
        ids: these instances instead of the seeded selection (comma-separated).
        say: the build's progress lines.

    Returns:
        The retained and excluded instances, and the selection's record.

    Raises:
        UserError: no rows, no clones to test against, or no instance could be tried.
    """
    chosen = instances.selected_ids(ids)  # an id named twice is refused before any data is read (no copy, no network)
    for note in prerequisites.build_notes():  # in the first second, not when the walk reaches such an instance
        say(f"build: swebench: {note}")
    rows, bad_rows = _read_rows(instances_path, say)
    repos_dir = _repos_dir(repos)
    exported_before = checkouts_in(store)
    ordered, paper_only = _ordered(rows, seed, chosen)
    quota = len(ordered) if chosen else QUOTA
    result = Selection(record={"seed": seed, "quota": quota, "forced": list(FORCED), "ids": chosen,
                               "instances": instances_path or instances.default_instances() or f"hub@{instances.revision()}",
                               "paper_repos_only": paper_only, "swebench": upstream_version(),
                               "python": venv_store.python_version(),
                               "no_clone": [], "not_pytest": [], "bad_rows": bad_rows, "walked": []})
    if not (instances_path or instances.default_instances()):
        result.record["hub_commit"] = instances.hub_commit()
    for number, inst in enumerate(ordered, 1):
        if len(result.retained) >= quota:
            break
        clone = _clone_to_try(inst, repos_dir, result.record)
        if clone is None:
            continue
        result.record["walked"].append(inst.instance_id)
        say(f"build: swebench: {inst.instance_id} ({len(result.retained)}/{quota} retained, {number} walked) ...")
        _keep(result, inst, construct_or_exclude(inst, clone, seed, store, say), say)
    drop_unused_checkouts(store, exported_before, {r.task.reference["checkout"] for r in result.retained})
    if not result.retained and not result.excluded:
        raise UserError(_nothing_tried(result.record, repos_dir, ordered))
    return result


def _read_rows(instances_path: str | None, say: Callable[[str], None]) -> tuple[list[instances.Instance], list[str]]:
    """The instances read, and why rows were skipped; UserError when none was read."""
    bad_rows: list[str] = []
    rows = instances.load(instances_path, bad_rows)
    for reason in bad_rows:
        say(f"build: swebench: skipped a row: {reason}")
    if not rows:
        raise UserError(bad_rows[0] if bad_rows else "no SWE-bench instances were read")
    return rows, bad_rows


def _repos_dir(repos: str | None) -> Path:
    """The clones' directory; UserError when there is none (or no engine for upstream's images, said why)."""
    repos_dir = instances.repos_dir(repos)
    if repos_dir is None:
        raise UserError(unavailable_reason())
    if not repos_dir.is_dir():
        raise UserError(f"--swebench-repos {repos_dir} is not a directory")
    return repos_dir


def _clone_to_try(inst: instances.Instance, repos_dir: Path, record: dict[str, Any]) -> Path | None:
    """The instance's local clone when it can be tried here; None (noted in the record) when it cannot."""
    clone = instances.local_clone(repos_dir, inst.repo)
    if clone is None:
        record["no_clone"].append(inst.instance_id)
        return None
    if not venv_store.has_spec(inst.repo) and not all("::" in t for t in inst.fail_to_pass + inst.pass_to_pass):
        # A repository SWE-bench gives no environment for runs the harness's pytest: it needs node ids.
        record["not_pytest"].append(inst.instance_id)
        return None
    return clone


def _keep(result: Selection, inst: instances.Instance, replayed: Replayed | dict[str, Any], say: Callable[[str], None]) -> None:
    """Adds one instance's build to the selection: retained, or excluded (before or after its task was made)."""
    exclusion: dict[str, Any] | None
    if isinstance(replayed, dict):  # excluded before a task was made
        exclusion = replayed
    else:
        result.dropped += replayed.dropped
        exclusion = replayed.exclusion
    if exclusion:
        result.excluded.append(exclusion)
        say(f"build: swebench: {inst.instance_id} excluded ({exclusion['code']}): "
            f"{exclusion['evidence']['reason'][:600]}")
    elif not isinstance(replayed, dict):
        result.retained.append(replayed)
        say(f"build: swebench: {inst.instance_id} retained, {len(replayed.cases)} cases")


def _nothing_tried(record: dict[str, Any], repos_dir: Path, ordered: list[instances.Instance]) -> str:
    """Why a build retained and excluded nothing: no instance could be tried."""
    if record["not_pytest"]:
        return (f"{len(record['not_pytest'])} instances of repositories without a SWE-bench environment "
                "specification name tests that are not pytest node ids, which the harness's own pytest cannot run")
    return f"no instance has a local clone in {repos_dir} (looked for e.g. {ordered[0].repo.replace('/', '__') if ordered else '-'})"


def select_tasks(seed: int, paths: SourcePaths, say: Callable[[str], None]) -> Selection:
    """The source hook (`Source.select`): instances, clones and chosen ids from the build's paths."""
    return build(seed, paths.get("swebench_instances"), paths.get("swebench_repos"), paths.checkouts, paths.get("swebench_ids"),
                 say=say)
