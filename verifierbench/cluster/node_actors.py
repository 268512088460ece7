"""Work spread over one long-lived actor per Ray node, surviving the loss of nodes: what the judging and the
screening backends share.

Each alive node with CPUs gets one actor of the given class (pinned to it, made on first sight), with as many items in
flight as its slots. An item whose actor dies (its node was lost) goes back in the queue and runs on another node; a
result is handed on only when its item comes back whole, so every item is done exactly once. The part of an item a
node refuses (it cannot make what the item needs) goes to a node that has not refused it; when every alive node has,
the refusal itself is handed on.
"""

from __future__ import annotations

import collections
import logging
from dataclasses import dataclass
from typing import Any, Callable, Generic, Iterable, Iterator, Optional, Tuple, TypeVar

from verifierbench.core.errors import UserError

logger = logging.getLogger(__name__)
Item = TypeVar("Item")
Done = Optional[Tuple[Item, Any]]  # an item (or the part of one) and its result
# Splits a node's result into the part of the item it decided and the part it refused (either may be None).
Partition = Callable[[Item, Any], Tuple[Done[Item], Done[Item]]]


@dataclass
class _Pending(Generic[Item]):
    item: Item
    refused_by: frozenset[str] = frozenset()  # nodes that refused it
    refusal: Done[Item] = None  # what to hand on if no other node will take it


class NodeActors(Generic[Item]):
    """One actor of `actor_class` per alive node with CPUs, and the items sent to them.

    Args:
        actor_class: a plain class (wrapped here with `ray.remote`), made with `init_args` on each node.
        init_args: its constructor's arguments (JSON-like: they travel to the node).
        slots: items in flight per node at most (None: the node's CPU count).
    """

    def __init__(self, actor_class: type, init_args: tuple[Any, ...], slots: int | None) -> None:
        self.actor_class = actor_class
        self.init_args = init_args
        self.slots = slots
        self._actors: dict[str, Any] = {}  # node id -> actor
        self._capacity: dict[str, int] = {}  # node id -> items in flight at most
        self._lost: set[str] = set()  # nodes whose actor died: never used again (a restarted node has a new id)

    def run(self, items: Iterable[Item], call: Callable[[Any, Item], Any],
            partition: Partition[Item] | None = None) -> Iterator[tuple[Item, Any]]:
        """(item, its result) in completion order.

        Args:
            items: the work.
            call: `call(actor, item)` starts an item on an actor and returns its object ref.
            partition: splits a result into (decided part, refused part), each an (item, result) or None. Without it,
                every result is handed on as it is.
        """
        import ray
        from ray.exceptions import RayActorError

        pending: collections.deque[_Pending[Item]] = collections.deque(_Pending(item) for item in items)
        in_flight: dict[Any, tuple[str, _Pending[Item]]] = {}  # ref -> (node id, entry)
        load: collections.Counter[str] = collections.Counter()
        while pending or in_flight:
            self._refresh(need=bool(pending))
            yield from self._refused_everywhere(pending)
            for node in sorted(self._actors, key=lambda n: load[n]):
                while load[node] < self._capacity[node]:
                    entry = _take(pending, node)
                    if entry is None:
                        break
                    in_flight[call(self._actors[node], entry.item)] = (node, entry)
                    load[node] += 1
            if not in_flight:
                continue
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                node, entry = in_flight.pop(ref)
                load[node] -= 1
                try:
                    result = ray.get(ref)
                except RayActorError as exc:  # the node (or its actor) is gone: its items run elsewhere
                    logger.warning("node %s lost (%s); its work goes to the other nodes", node[:12],
                                   str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
                    self._forget(node)
                    pending.append(entry)
                    continue
                done, refused = partition(entry.item, result) if partition else ((entry.item, result), None)
                if done is not None:
                    yield done
                if refused is not None:
                    logger.warning("node %s refused work; it goes to another node if one has not refused it", node[:12])
                    pending.append(_Pending(refused[0], entry.refused_by | {node}, refused))

    def close(self) -> None:
        import ray

        for actor in self._actors.values():
            ray.kill(actor)
        self._actors.clear()

    def _refresh(self, need: bool) -> None:
        """One actor per alive node with CPUs (made on first sight); with work left and none alive, an error."""
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        alive = {n["NodeID"]: n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0}
        for node in [n for n in self._actors if n not in alive]:
            self._forget(node)
        for node_id, node in alive.items():
            if node_id in self._actors or node_id in self._lost:
                continue
            slots = self.slots or int(node["Resources"]["CPU"])
            remote: Any = ray.remote(self.actor_class).options(
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
                num_cpus=0, max_concurrency=slots, max_restarts=0)
            self._actors[node_id] = remote.remote(*self.init_args)
            self._capacity[node_id] = slots
        if need and not self._actors:
            raise UserError("the Ray cluster has no alive node with CPUs to work on")

    def _refused_everywhere(self, pending: collections.deque[_Pending[Item]]) -> Iterator[tuple[Item, Any]]:
        """Hands on the refusals of items that every alive node has refused."""
        for entry in [e for e in pending if e.refusal is not None and set(self._actors) <= e.refused_by]:
            pending.remove(entry)
            assert entry.refusal is not None
            yield entry.refusal

    def _forget(self, node: str) -> None:
        self._lost.add(node)
        self._actors.pop(node, None)
        self._capacity.pop(node, None)


def _take(pending: collections.deque[_Pending[Item]], node: str) -> _Pending[Item] | None:
    """The first pending entry `node` has not refused (removed from the queue), or None."""
    for entry in pending:
        if node not in entry.refused_by:
            pending.remove(entry)
            return entry
    return None
