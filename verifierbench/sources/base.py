"""The source interface: what one upstream benchmark gives the rest of the harness.

A source is declared in its own folder (`sources/<name>/source.py`, one `SOURCE = Source(...)`) and named by one
line in `sources/registry.py`. Its hooks are `"module:function"` names, imported only when first used: an exported
reference verifier runs `decide` inside the sandbox with the standard library only, so declaring a source must not
import its build (pydantic, datasets) or its upstream packages.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SourcePaths:
    """Where sources without an installable package find their data (None: the default/env var)."""

    acebench_dir: str | None = None
    swebench_instances: str | None = None
    swebench_repos: str | None = None
    checkouts: Path | None = None  # where code tasks' checkouts go (build_suite: <suite>/checkouts)
    swebench_ids: str | None = None  # these instances instead of the seeded selection


@dataclass(frozen=True)
class Source:
    """One upstream benchmark. Every hook is a `"module:function"` name; None: the source has no such part.

    Args:
        name: the source's name, as in `--source`, `Task.source` and its reference records' `checker`.
        select: `(seed, paths: SourcePaths, say) -> Selection`: seeded selection, case generation and C1 replay.
        decide: `(reference, candidate) -> (PASS?, reason)`: the reference decision (stdlib plus upstream only).
        decide_reusing: the same decision, allowed to reuse a recorded run of identical inputs (code tasks' test-run
            cache, `sources/swebench/runcache.py`); screening's C1 calls it, C2 never. None: `decide`.
        built_by_default: False for a source built only when named (`--source`), such as code tasks.
        environment: `(reference) -> ServedEnvironment`: the public environment `run_public` serves.
        read_only_inputs: `(reference) -> ((host path, sandbox path), ...)`: mounted read-only in every run.
        case_timeout: `(reference) -> seconds`: the wall-clock limit of one verifier run on a case of this task,
            instead of the executor's (code tasks: the task's budget, from its gold test run).
        answer_key: `(reference) -> ToolCallSpec`: the answer key the tool-call case generators, the deterministic
            auditor's generators and the mutation operators read.
        check_calls: `(reference, calls) -> (PASS?, reason)`: the source's own checker on parsed tool calls
            (the tool-call reference decision and the C6 mutants call it).
        expected_calls: `(reference) -> calls`: the answer key's first acceptable call list (C6 mutants).
        mutation_operators: the C6 operators screening applies to its reference (a tuple; its protocol is the
            task type's: screening/mutants.py, screening/state_mutants.py, sources/swebench/mutants.py).
        audit_generators: `(task, round, seed) -> [Proposal]`: the deterministic auditor's fresh candidates.
        docker_compose: `(task) -> Path`: the task's own Docker compose file (its environment image), used in place
            of the default sandbox under `-T sandbox=docker`.
        preload: modules the reference imports lazily (upstream packages, seconds to import): an exported
            reference's trusted warm sandbox imports them once before its cases (export.py, executor/warm.py).
        warm_up: `(reference) -> None`: loads what deciding on that task reads (its data, environment, expected
            state) into the reference's own caches; a trusted warm sandbox calls it once before forking its cases.
        gold_record: `(reference) -> record`: a state task's gold interaction record (screening's C7 naive views).
        replay_results: `(reference, calls) -> [result]`: what the environment returns for each call, replayed
            from the initial state (C7's "recorded results trusted" view).
        shares: the shared folder under sources/ whose code is part of this source's reference ("toolcall").
        upstream: the distribution whose release decides with our code (its version is in the reference's version).
    """

    name: str
    select: str
    decide: str
    decide_reusing: str | None = None
    built_by_default: bool = True
    environment: str | None = None
    read_only_inputs: str | None = None
    case_timeout: str | None = None
    answer_key: str | None = None
    check_calls: str | None = None
    expected_calls: str | None = None
    mutation_operators: str | None = None
    audit_generators: str | None = None
    docker_compose: str | None = None
    preload: tuple[str, ...] = ()
    warm_up: str | None = None
    gold_record: str | None = None
    replay_results: str | None = None
    shares: str | None = None
    upstream: str | None = None
