"""`verifierbench screen --backend ray`: tasks screened on the nodes of a Ray cluster, one task an item.

Screening runs only trusted code (the reference deciders on the suite's own cases and mutants; a code task's test runs
inside the node's sandbox runner), so a node screens a whole task and returns its record as JSON text. A task whose
node is lost, or that a node refuses (it has another suite at that path), runs again on another
(cluster/node_actors.py), so each is screened exactly once. The nodes need the
suite at the same path, the same install of verifierbench and, for code tasks, the test environments (docs/cluster.md).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Iterator

from verifierbench.cluster.node_actors import NodeActors
from verifierbench.cluster.ray_judge import connect, require_ray
from verifierbench.core.errors import UserError
from verifierbench.core.schema import Task
from verifierbench.suite.store import Suite, load_suite


class NodeScreener:
    """The node side (wrapped with `ray.remote` by NodeActors): screens one task of a suite it loads once."""

    def __init__(self) -> None:
        self._suites: dict[str, Suite] = {}
        self._lock = threading.Lock()

    def screen(self, suite_dir: str, suite_version: str, task_id: str) -> str:
        """The task's screening record as JSON; {"problem": ...} when this node has another suite at that path."""
        from verifierbench.screening.run import screen_task

        with self._lock:
            if suite_dir not in self._suites:
                self._suites[suite_dir] = load_suite(Path(suite_dir))
            suite = self._suites[suite_dir]
        if suite.manifest.version != suite_version:
            return json.dumps({"problem": f"this node has suite {suite.manifest.version} at {suite_dir}, not {suite_version}"})
        return json.dumps(screen_task(suite.tasks[task_id], suite))


def refused_record(task_id: str, text: str) -> tuple[tuple[str, str] | None, tuple[str, str] | None]:
    """A {"problem": ...} reply is this node's refusal: the task goes to another node first."""
    try:
        refused = "problem" in json.loads(text)
    except (ValueError, TypeError):
        refused = False
    return (None, (task_id, text)) if refused else ((task_id, text), None)


class RayScreen:
    """Screens tasks on the cluster at `address`; `screen_tasks` is what screening/run.py's `screen` takes."""

    def __init__(self, address: str, suite_dir: Path, slots: int | None = None) -> None:
        require_ray()
        self.suite_dir = str(Path(suite_dir).resolve())
        self.suite_version = load_suite(Path(self.suite_dir)).manifest.version
        connect(address)
        self._nodes: NodeActors[str] = NodeActors(NodeScreener, (), slots)

    def screen_tasks(self, suite: Suite, tasks: list[Task]) -> Iterator[tuple[str, dict[str, Any]]]:
        """(task id, record) in completion order."""
        if suite.manifest.version != self.suite_version:
            raise UserError(f"suite {suite.manifest.version} is not the one at {self.suite_dir} ({self.suite_version})")

        def start(actor: Any, task_id: str) -> Any:
            return actor.screen.remote(self.suite_dir, self.suite_version, task_id)

        for task_id, text in self._nodes.run([t.id for t in tasks], start, partition=refused_record):
            record = json.loads(text)
            if not isinstance(record, dict) or "problem" in record:
                raise UserError(f"screening {task_id} on the cluster: {record.get('problem') if isinstance(record, dict) else record!r}")
            if record.get("task_id") != task_id:
                raise RuntimeError(f"a node returned the record of {record.get('task_id')!r} for {task_id}")
            yield task_id, record

    def close(self) -> None:
        self._nodes.close()

    def __enter__(self) -> "RayScreen":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
