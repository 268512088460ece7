"""The caller's side of the Ray backend: chunks of case runs spread over one NodeJudge actor per node.

Chunks are a (verifier, task) group of cases for tool-call and state tasks (each call is one judgment round) and
one case for code tasks. A chunk whose actor dies (its node was lost) goes back in the queue and runs on another
node; an outcome is yielded only when its chunk comes back whole, so every case is decided exactly once.
"""

from __future__ import annotations

import collections
import json
import logging
import os
from pathlib import Path
from typing import Any, Iterable, Iterator

from verifierbench import verifier_files
from verifierbench.cluster.backend import CaseRun, ExecutorConfig
from verifierbench.cluster.node import NodeJudge
from verifierbench.errors import UserError
from verifierbench.executor import Outcome
from verifierbench.executor.runner import FrozenVerifier
from verifierbench.protocol import Decision
from verifierbench.kinds import kind_of
from verifierbench.suite import load_suite

logger = logging.getLogger(__name__)
NAMESPACE = "verifierbench"
LOOPBACK = "127.0.0.1"
OUTCOME_FIELDS = {"confidence": (float, int, type(None)), "reason": (str, type(None)), "problem": (str, type(None)),
                  "exit_status": (int, type(None)), "timed_out": (bool,), "wall_time_s": (float, int),
                  "stderr_tail": (str,), "isolation": (str,), "path": (str,)}


# Ray rewrites a loopback cluster address to this host's interface address (services.resolve_ip_for_localhost)
# unless told that "clusters" are off, which makes its own address loopback: for a cluster on loopback, set before
# Ray is first imported. A cluster across hosts is named by a real address and keeps Ray's behaviour.
LOOPBACK_ONLY_ENV = ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


def is_loopback(address: str) -> bool:
    return address == "local" or address.rpartition(":")[0] in ("127.0.0.1", "localhost", "[::1]")


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
        try:
            import importlib.util

            if importlib.util.find_spec("ray") is None:
                raise ImportError("ray")
        except ImportError:
            raise UserError("the ray backend needs Ray: pip install 'verifierbench[ray]'") from None
        self.config = config
        self.staging = config.make()  # stages verifiers; never runs one
        self.slots = self.staging.slots
        self.suite_dir = str(Path(suite_dir).resolve())
        self.suite_version = load_suite(Path(self.suite_dir)).manifest.version
        connect(address)
        self._actors: dict[str, Any] = {}  # node id -> actor
        self._capacity: dict[str, int] = {}  # node id -> chunks in flight at most (its slots)
        self._files: dict[str, list] = {}  # verifier hash -> [object ref of its files]
        self._lost: set[str] = set()  # nodes whose actor died: never used again in this run (a restarted node has a new id)

    # -- executor-like API ------------------------------------------------------------------

    def freeze(self, verifier: "str | Path | FrozenVerifier") -> FrozenVerifier:
        return self.staging.freeze(verifier)

    def freeze_copy(self, verifier: "str | Path") -> FrozenVerifier:
        return self.staging.freeze_copy(verifier)

    def close(self) -> None:
        import ray

        for actor in self._actors.values():
            ray.kill(actor)
        self._actors.clear()
        self.staging.close()

    def __enter__(self) -> "RayJudge":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- judging ----------------------------------------------------------------------------

    def run_cases(self, runs: Iterable[CaseRun]) -> Iterator[Outcome]:
        """Outcomes in completion order; chunks of a lost node run again elsewhere."""
        import ray
        from ray.exceptions import RayActorError

        pending = collections.deque(self._chunks(runs))
        in_flight: dict[Any, tuple[str, tuple[str, list[dict]]]] = {}  # ref -> (node id, chunk)
        load: collections.Counter[str] = collections.Counter()
        while pending or in_flight:
            self._refresh_actors(need=bool(pending))
            for node in sorted(self._actors, key=lambda n: load[n]):
                while pending and load[node] < self._capacity[node]:
                    chunk = pending.popleft()
                    verifier_hash, items = chunk
                    ref = self._actors[node].run_chunk.remote(self.suite_dir, self.suite_version, verifier_hash,
                                                               self._files[verifier_hash], json.dumps(items))
                    in_flight[ref] = (node, chunk)
                    load[node] += 1
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                node, chunk = in_flight.pop(ref)
                load[node] -= 1
                try:
                    text = ray.get(ref)
                except RayActorError as exc:  # the node (or its actor) is gone: its chunks run elsewhere
                    logger.warning("judging node %s lost (%s); its chunks go to the other nodes", node[:12],
                                   str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
                    self._forget(node)
                    pending.append(chunk)
                    continue
                yield from parse_outcomes(text, [item["key"] for item in chunk[1]])

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
            if kind_of(run.task).runs_tests:  # a long run: a chunk of its own
                code.append((digest, [item]))
            else:
                groups.setdefault((digest, run.task.id), []).append(item)
        # Code cases first: they are the long ones, so they start before the short chunks fill the slots.
        return code + [(digest, items) for (digest, _), items in groups.items()]

    def _refresh_actors(self, need: bool) -> None:
        """One actor per alive node with CPUs (made on first sight); with work left and none alive, an error."""
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        alive = {n["NodeID"]: n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0}
        for node in [n for n in self._actors if n not in alive]:
            self._forget(node)
        for node_id, node in alive.items():
            if node_id in self._actors or node_id in self._lost:
                continue
            cpus = int(node["Resources"]["CPU"])
            slots = self.config.slots or cpus
            remote = ray.remote(NodeJudge).options(
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
                num_cpus=0, max_concurrency=slots, max_restarts=0)
            self._actors[node_id] = remote.remote(self.config.to_json())
            self._capacity[node_id] = slots
        if need and not self._actors:
            raise UserError("the Ray cluster has no alive node with CPUs to judge on")

    def _forget(self, node: str) -> None:
        self._lost.add(node)
        self._actors.pop(node, None)
        self._capacity.pop(node, None)


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
