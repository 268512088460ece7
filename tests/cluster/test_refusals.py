"""A node that refuses work (it cannot make what a case needs) hands it to a node that has not refused it; only
when every alive node has refused does the refusal come back, as U with the reason. On the real two-worker cluster,
with a stand-in actor that refuses everything on one chosen node."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from verifierbench.cluster.node_actors import NodeActors
from verifierbench.cluster.ray_judge import split_refused
from verifierbench.cluster.ray_screen import refused_record


def test_a_reply_splits_into_decided_and_refused_cases():
    chunk = ("abc", [{"key": "c1"}, {"key": "c2"}, {"key": "c3"}])
    reply = json.dumps([{"key": "c1", "decision": "PASS"}, {"key": "c2", "decision": "U", "refused": True, "problem": "p"},
                        {"key": "c3", "decision": "FAIL", "refused": False}])
    done, refused = split_refused(chunk, reply)
    assert done is not None and refused is not None
    assert done[0] == ("abc", [{"key": "c1"}, {"key": "c3"}]) and [o["key"] for o in json.loads(done[1])] == ["c1", "c3"]
    assert refused[0] == ("abc", [{"key": "c2"}]) and json.loads(refused[1])[0]["problem"] == "p"
    assert split_refused(chunk, json.dumps([{"key": "c1", "decision": "PASS"}])) == ((chunk, '[{"key": "c1", "decision": "PASS"}]'), None)
    assert split_refused(chunk, '{"not": "a list"}') == ((chunk, '{"not": "a list"}'), None)  # left for the parser to reject
    assert refused_record("t1", '{"problem": "another suite"}') == (None, ("t1", '{"problem": "another suite"}'))
    assert refused_record("t1", '{"task_id": "t1"}') == (("t1", '{"task_id": "t1"}'), None)


def stand_in_class():
    """Defined in a function so Ray ships it by value (test modules are not importable on the workers)."""

    class RefusesOn:
        def __init__(self, refusing_nodes: list[str]) -> None:
            self.refusing_nodes = refusing_nodes

        def work(self, item: int) -> str:
            import ray

            node = ray.get_runtime_context().get_node_id()
            return json.dumps({"item": item, "node": node, "refused": node in self.refusing_nodes})

    return RefusesOn


def partition(item: int, text: str):
    return (None, (item, text)) if json.loads(text)["refused"] else ((item, text), None)


def run_on_cluster(cluster, env, refusing: list[str], calls: Counter[int]) -> list[dict]:
    import ray

    def start(actor, item: int):
        calls[item] += 1
        return actor.work.remote(item)

    ray.init(address=cluster.address, log_to_driver=False)
    try:
        nodes: NodeActors[int] = NodeActors(stand_in_class(), (refusing,), slots=1)
        try:
            return [json.loads(text) for _, text in nodes.run(range(12), start, partition)]
        finally:
            nodes.close()
    finally:
        ray.shutdown()


@pytest.mark.timeout(300)
def test_work_one_node_refuses_is_done_on_the_other_exactly_once(ray_cluster):
    cluster, env = ray_cluster
    refusing, willing = [node.node_id for node in cluster.worker_nodes]
    calls: Counter[int] = Counter()
    results = run_on_cluster(cluster, env, [refusing], calls)
    assert sorted(r["item"] for r in results) == list(range(12))  # each item handed on once
    assert {r["node"] for r in results} == {willing} and not any(r["refused"] for r in results)
    assert sum(calls.values()) > 12  # some went to the refusing node first


@pytest.mark.timeout(300)
def test_work_every_node_refuses_comes_back_once_as_the_refusal(ray_cluster):
    cluster, env = ray_cluster
    everyone = [node.node_id for node in cluster.worker_nodes]
    calls: Counter[int] = Counter()
    results = run_on_cluster(cluster, env, everyone, calls)
    assert sorted(r["item"] for r in results) == list(range(12)) and all(r["refused"] for r in results)
    assert calls == Counter({item: 2 for item in range(12)})  # each tried on both nodes, then its refusal handed on
