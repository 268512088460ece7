"""The caller's side of the Ray backend: chunks of case runs spread over one NodeJudge actor per node.

Chunks are a (verifier, task) group of cases for tool-call and state tasks (each call is one judgment round), cut
into pieces of at most CHUNK_CASES so that a few large tasks still spread over every node, and one case for code
tasks. A chunk whose actor dies (its node was lost) goes back in the queue and runs on another
node (cluster/node_actors.py); an outcome is yielded only when its chunk comes back whole, so every case is decided
exactly once. Cases a node refuses go to a node that has not refused them, and come back U with the last node's
reason only when every alive node has refused them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Iterator

from verifierbench.core import verifier_files
from verifierbench.cluster.backend import CaseRun, ExecutorConfig
from verifierbench.cluster.node import NodeJudge
from verifierbench.cluster.node_actors import NodeActors
from verifierbench.core.errors import UserError
from verifierbench.executor import Outcome
from verifierbench.executor.staging import FrozenVerifier
from verifierbench.core.protocol import Decision
from verifierbench.sources.formats.registry import format_of
from verifierbench.suite.store import load_suite

NAMESPACE = "verifierbench"
LOOPBACK = "127.0.0.1"
# A chunk's cases at most: small enough that a run of a few tasks keeps every node's slots busy to the end, large
# enough that a Ray call (a few ms) stays small beside the chunk's runs (tool-call cases take about 5 ms each).
CHUNK_CASES = 16
OUTCOME_FIELDS = {"confidence": (float, int, type(None)), "reason": (str, type(None)), "problem": (str, type(None)),
                  "exit_status": (int, type(None)), "timed_out": (bool,), "wall_time_s": (float, int),
                  "stderr_tail": (str,), "isolation": (str,), "path": (str,)}


# Ray rewrites a loopback cluster address to this host's interface address (services.resolve_ip_for_localhost)
# unless told that "clusters" are off, which makes its own address loopback: for a cluster on loopback, set before
# Ray is first imported. A cluster across hosts is named by a real address and keeps Ray's behaviour.
LOOPBACK_ONLY_ENV = ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


def is_loopback(address: str) -> bool:
    return address == "local" or address.rpartition(":")[0] in ("127.0.0.1", "localhost", "[::1]")


def require_ray() -> None:
    """A one-line error where Ray is not installed."""
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise UserError("the ray backend needs Ray: pip install 'verifierbench[ray]'")


def connect(address: str) -> None:
    """Joins the cluster at `address` as a driver (`local`: a one-node cluster of our own on loopback, for trials).
    On a loopback cluster the driver, too, binds loopback only."""
    if is_loopback(address):
        os.environ.setdefault(*LOOPBACK_ONLY_ENV)
    import ray

    if ray.is_initialized():
        return
    node_ip = LOOPBACK if is_loopback(address) else None
    if address == "local":
        ray.init(include_dashboard=False, namespace=NAMESPACE, log_to_driver=False, _node_ip_address=node_ip)
    else:
        ray.init(address=address, namespace=NAMESPACE, log_to_driver=False, _node_ip_address=node_ip)


class RayJudge:
    """Executor-like: `freeze`/`freeze_copy` stage verifiers here (for their hashes and files), `run_cases` runs on
    the cluster. The nodes need the suite at the same path and the same install of verifierbench."""

    def __init__(self, config: ExecutorConfig, address: str, suite_dir: str) -> None:
        require_ray()
        self.config = config
        self.staging = config.make()  # stages verifiers; never runs one
        self.slots = self.staging.slots
        self.suite_dir = str(Path(suite_dir).resolve())
        self.suite_version = load_suite(Path(self.suite_dir)).manifest.version
        connect(address)
        self._nodes: NodeActors[tuple[str, list[dict[str, Any]]]] = NodeActors(NodeJudge, (config.to_json(),), config.slots)
        self._files: dict[str, list[Any]] = {}  # verifier hash -> [object ref of its files]

    # -- executor-like API ------------------------------------------------------------------

    def freeze(self, verifier: "str | Path | FrozenVerifier") -> FrozenVerifier:
        return self.staging.freeze(verifier)

    def freeze_copy(self, verifier: "str | Path") -> FrozenVerifier:
        return self.staging.freeze_copy(verifier)

    def close(self) -> None:
        self._nodes.close()
        self.staging.close()

    def __enter__(self) -> "RayJudge":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- judging ----------------------------------------------------------------------------

    def run_cases(self, runs: Iterable[CaseRun]) -> Iterator[Outcome]:
        """Outcomes in completion order; chunks of a lost node run again elsewhere (cluster/node_actors.py)."""

        def start(actor: Any, chunk: tuple[str, list[dict[str, Any]]]) -> Any:
            verifier_hash, items = chunk
            return actor.run_chunk.remote(self.suite_dir, self.suite_version, verifier_hash, self._files[verifier_hash],
                                          json.dumps(items))

        for (_, items), text in self._nodes.run(self._chunks(runs), start, partition=split_refused):
            yield from parse_outcomes(text, [item["key"] for item in items])

    def _chunks(self, runs: Iterable[CaseRun]) -> list[tuple[str, list[dict]]]:
        import ray

        groups: dict[tuple[str, str], list[dict]] = {}
        code: list[tuple[str, list[dict]]] = []
        for run in runs:
            digest = run.verifier.sha256
            if digest not in self._files:
                files, skipped = read_staged(run.verifier.directory)
                self._files[digest] = [ray.put(files)] if not skipped else [ray.put({})]
            item = {"task_id": run.task.id, "key": run.key, "candidate": run.candidate}
            if format_of(run.task).runs_tests:  # a long run: a chunk of its own
                code.append((digest, [item]))
            else:
                groups.setdefault((digest, run.task.id), []).append(item)
        # Code cases first: they are the long ones, so they start before the short chunks fill the slots.
        return code + [(digest, items[i:i + CHUNK_CASES]) for (digest, _), items in groups.items()
                       for i in range(0, len(items), CHUNK_CASES)]


def read_staged(directory: Path) -> tuple[dict[str, dict[str, str]], list[str]]:
    """A staged verifier's regular files as the log keeps them; links are listed as skipped (a node refuses it)."""
    files: dict[str, dict[str, str]] = {}
    skipped: list[str] = []
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames.sort()
        for name in sorted(filenames + [d for d in dirnames if (Path(dirpath) / d).is_symlink()]):
            path = Path(dirpath) / name
            relative = str(path.relative_to(directory))
            if path.is_symlink():
                skipped.append(relative)
            else:
                files[relative] = verifier_files.encode(path.read_bytes())
    return files, skipped


Chunk = tuple[str, list[dict[str, Any]]]  # (verifier hash, items)


def split_refused(chunk: Chunk, text: str) -> tuple[tuple[Chunk, str] | None, tuple[Chunk, str] | None]:
    """A node's reply split into the cases it decided and those it refused, each with its own part of the chunk.
    A reply that is not a list of outcomes is left whole, for parse_outcomes to reject."""
    digest, items = chunk
    data = json.loads(text)
    if not isinstance(data, list) or not all(isinstance(o, dict) for o in data):
        return (chunk, text), None
    refused_keys = {str(o.get("key")) for o in data if o.get("refused") is True}
    if not refused_keys:
        return (chunk, text), None

    def part(refused: bool) -> tuple[Chunk, str] | None:
        chosen = [item for item in items if (item["key"] in refused_keys) == refused]
        outcomes = [o for o in data if (str(o.get("key")) in refused_keys) == refused]
        return ((digest, chosen), json.dumps(outcomes)) if chosen or outcomes else None

    return part(False), part(True)


def parse_outcomes(text: str, keys: list[str]) -> Iterator[Outcome]:
    """Checks a node's JSON against the chunk (one outcome per key, known fields, right types) and makes Outcomes.
    A reply that does not fit is a harness fault, not the verifier's: raised, never guessed into decisions."""
    data = json.loads(text)
    if not isinstance(data, list) or sorted(str(o.get("key")) for o in data if isinstance(o, dict)) != sorted(keys):
        raise RuntimeError(f"a node returned outcomes for other cases than it was given ({len(keys)} expected)")
    for entry in data:
        fields = {name: entry[name] for name in OUTCOME_FIELDS if name in entry}
        for name, value in fields.items():
            if not isinstance(value, OUTCOME_FIELDS[name]):
                raise RuntimeError(f"a node returned {name}={value!r} for case {entry['key']}")
        yield Outcome(key=str(entry["key"]), decision=Decision(entry["decision"]), **fields)
