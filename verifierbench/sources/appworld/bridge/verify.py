"""Runs in the sandbox with AppWorld's site-packages on the path (stdlib + appworld only).

The candidate file holds a request: {"op": "probe"} | {"op": "tasks", "split": str} |
{"op": "evaluate", "task_id": str, "code": str}. The result file gets {"decision": "PASS", "result": ...}.
AppWorld writes experiment outputs under its root, so the root is a scratch directory whose `data`
links to the read-only data mounted at /appworld/data.
"""

import json
import os
import sys
import tempfile
from typing import Any

DATA = os.environ.get("VGB_APPWORLD_DATA", "/appworld/data")


def _root() -> str:
    root = tempfile.mkdtemp(prefix="appworld-")
    os.symlink(DATA, os.path.join(root, "data"))
    os.environ["APPWORLD_ROOT"] = root
    return root


def probe(request: dict[str, Any]) -> dict[str, Any]:
    import appworld
    from appworld.task import load_task_ids

    return {"version": appworld.__version__, "splits": {s: len(load_task_ids(s)) for s in ("train", "dev")}}


def tasks(request: dict[str, Any]) -> dict[str, Any]:
    from appworld.task import Task, load_task_ids

    out = []
    for task_id in load_task_ids(request["split"]):
        task = Task.load(task_id=task_id, load_ground_truth=True, ground_truth_mode="full")
        out.append({"task_id": task_id, "instruction": task.instruction, "supervisor": dict(task.supervisor),
                     "datetime": str(task.datetime), "allowed_apps": list(task.allowed_apps),
                     "solution_code": task.ground_truth.compiled_solution_code})
    return {"tasks": out}


def evaluate(request: dict[str, Any]) -> dict[str, Any]:
    from appworld import AppWorld

    code = request["code"]
    if "def solution(" in code:  # the ground truth's convention (appworld.verify): define, then call
        code = code + "\nsolution(apis, requester)"
    with AppWorld(task_id=request["task_id"], experiment_name="verifierbench", raise_on_failure=False,
                  ground_truth_mode="full") as world:
        output = world.execute(code) if code.strip() else ""
        tracker = world.evaluate()
        report = tracker.to_dict()
    return {"success": bool(report["success"]), "pass_count": len(report.get("passes", [])),
            "failures": [str(f)[:500] for f in report.get("failures", [])][:20], "output": str(output)[-2000:]}


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as handle:
        request = json.load(handle)
    _root()
    result = {"probe": probe, "tasks": tasks, "evaluate": evaluate}[request["op"]](request)
    with open(sys.argv[2], "w", encoding="utf-8") as handle:
        json.dump({"decision": "PASS", "result": result}, handle, default=str)


main()
