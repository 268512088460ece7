"""The tiny source's tasks: each a request, one tool, one expected call; five hand-made cases per task."""

from __future__ import annotations

from verifierbench.core.schema import Task
from verifierbench.sources.formats.tool_calls import TOOL_CALLS
from verifierbench.sources.toolcall import task as toolcall_task
from verifierbench.sources.toolcall.candidate import candidate, render_json
from verifierbench.construction.drafts import Draft
from verifierbench.construction.replay import replay
from verifierbench.construction.selection import Selection
from verifierbench.sources.toolcall.naive_checks import naive_checks_fooled
from verifierbench.sources.toolcall.reference import decide

TOOL = {"name": "get_weather", "description": "The weather in a city.",
        "parameters": {"type": "dict", "properties": {"city": {"type": "string", "description": "the city"}},
                       "required": ["city"]}}
TASKS = {"weather_paris": "Paris", "weather_oslo": "Oslo"}


def make_task(source_id: str, city: str) -> Task:
    expected = [{"name": "get_weather", "arguments": {"city": city}}]
    return Task.create(source="tiny", source_id=source_id, format=TOOL_CALLS,
                       instruction=toolcall_task.instruction(f"What is the weather in {city}?", [TOOL]),
                       environment=toolcall_task.environment([TOOL]),
                       reference={"checker": "tiny", "functions": [TOOL], "expected": expected})


def drafts(city: str) -> list[Draft]:
    gold = [{"name": "get_weather", "arguments": {"city": city}}]
    wrong = [{"name": "get_weather", "arguments": {"city": city + "x"}}]
    return [Draft("gold", candidate(gold), "gold"),
            Draft("cosmetic", candidate(gold, raw=render_json(gold)), "json_rendering"),
            Draft("near_miss", candidate(wrong), "value_changed"),
            Draft("base", candidate([]), "no_calls"),
            Draft("hack", candidate(gold, raw="[]"), "parsed_disagrees_with_raw")]


def select_tasks(seed: int, only: list[str] | None = None) -> Selection:
    result = Selection(record={"seed": seed})
    for source_id, city in TASKS.items():
        if only is not None and source_id not in only:
            continue
        result.retained.append(replay(make_task(source_id, city), drafts(city), decide, fooled=naive_checks_fooled))
    return result
