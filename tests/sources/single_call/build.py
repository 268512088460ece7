"""The single-call source's tasks: each a request, two tools, one expected call; five hand-made cases per task."""

from __future__ import annotations

from typing import Any

from tests.sources.single_call.format import SINGLE_CALL
from verifierbench.construction.drafts import Draft
from verifierbench.construction.replay import replay
from verifierbench.construction.selection import Selection
from verifierbench.core.schema import Task
from verifierbench.sources import registry

TOOLS = [{"name": "set_alarm", "description": "Sets an alarm.",
          "parameters": {"hour": "integer, 0-23", "minute": "integer, 0-59, default 0"}},
         {"name": "cancel_alarms", "description": "Cancels every alarm.", "parameters": {}}]
TASKS = {"alarm_7": 7, "alarm_22": 22}


def make_task(source_id: str, hour: int) -> Task:
    expected = {"name": "set_alarm", "arguments": {"hour": hour, "minute": 0}}
    return Task.create(source="single_call_demo", source_id=source_id, format=SINGLE_CALL,
                       instruction=f"Wake me at {hour}:00. Reply with one call, as the example candidate shows.",
                       environment={"tools": TOOLS},
                       reference={"checker": "single_call_demo", "expected": expected, "defaults": {"minute": 0}})


def drafts(hour: int) -> list[Draft]:
    def call(name: str, **arguments: Any) -> dict[str, Any]:
        return {"call": {"name": name, "arguments": arguments}}

    return [Draft("gold", call("set_alarm", hour=hour, minute=0), "gold"),
            Draft("cosmetic", call("set_alarm", hour=float(hour), minute=0), "number_as_float"),
            Draft("near_miss", call("set_alarm", hour=hour + 1, minute=0), "hour_off_by_one"),
            Draft("base", call("cancel_alarms"), "other_tool"),
            Draft("hack", call("set_alarm", hour=str(hour), minute=0), "number_as_text")]


def select_tasks(seed: int) -> Selection:
    from tests.sources.single_call.checks import naive_checks_fooled

    decide = registry.source("single_call_demo").decide
    result = Selection(record={"seed": seed})
    for source_id, hour in TASKS.items():
        result.retained.append(replay(make_task(source_id, hour), drafts(hour), decide, fooled=naive_checks_fooled))
    return result
