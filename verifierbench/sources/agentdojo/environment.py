"""The public environment of an AgentDojo task: the suite's environment with the task's injections
and the user task's initial setup, copied fresh for every replay; calls run through AgentDojo's own
`FunctionsRuntime`, and observations are rendered the way AgentDojo shows them to agents."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from verifierbench.sources.agentdojo import data
from verifierbench.sources.interaction.environment import PublicEnvironment, Replay


@dataclass
class Run:
    """A replay with what the reference needs: the environments before and after, and the call traces."""

    replay: Replay
    pre: Any
    post: Any
    traces: list[Any]


@functools.lru_cache(maxsize=64)
def _pristine(ref: data.TaskRef) -> Any:
    task_suite = data.suite(ref.suite)
    environment = task_suite.load_and_inject_default_environment(dict(data.injections(ref)))
    return data.user_task(ref).init_environment(environment)


def observation_text(result: Any, error: str | None) -> str:
    """AgentDojo's rendering of a tool result, with string lists sorted (see `canonical`)."""
    import yaml
    from agentdojo.agent_pipeline.tool_execution import tool_result_to_str

    return f"Error: {error}" if error else tool_result_to_str(result, dump_fn=lambda data: yaml.safe_dump(canonical(data)))


def canonical(value: Any) -> Any:
    """Lists of strings sorted. Some AgentDojo tools build lists from sets (calendar participants), whose
    order changes with each process's hash seed; sorted, the same calls give the same observations
    and state in every process. The order of such lists carries no meaning in these environments."""
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        items = [canonical(v) for v in value]
        return sorted(items) if items and all(isinstance(v, str) for v in items) else items
    return value


class AgentDojoEnvironment(PublicEnvironment):
    def __init__(self, ref: data.TaskRef) -> None:
        self.ref = ref

    def run(self, calls: list[dict[str, Any]]) -> Run:
        from agentdojo.functions_runtime import FunctionCall, FunctionsRuntime

        pre = _pristine(self.ref).model_copy(deep=True)
        post = pre.model_copy(deep=True)
        runtime = FunctionsRuntime(data.suite(self.ref.suite).tools)
        observations, traces = [], []
        for call in calls:
            result, error = runtime.run_function(post, call["name"], dict(call["arguments"]), raise_on_error=False)
            traces.append(FunctionCall(function=call["name"], args=dict(call["arguments"])))
            observations.append({"name": call["name"], "arguments": call["arguments"], "result": observation_text(result, error)})
        return Run(Replay(observations, canonical(post.model_dump(mode="json"))), pre, post, traces)

    def replay(self, calls: list[dict[str, Any]]) -> Replay:
        return self.run(calls).replay

    def tools(self) -> list[dict[str, Any]]:
        return data.tool_definitions(self.ref.suite)


def gold_calls(ref: data.TaskRef) -> list[dict[str, Any]]:
    """The user task's ground-truth calls (AgentDojo's `ground_truth` on the task's initial environment)."""
    return _ground_truth_calls(data.user_task(ref), ref)


def injection_calls(ref: data.TaskRef) -> list[dict[str, Any]]:
    """The injection task's ground-truth calls, the same way."""
    return _ground_truth_calls(data.injection_task(ref), ref)


def _ground_truth_calls(task: Any, ref: data.TaskRef) -> list[dict[str, Any]]:
    pre = AgentDojoEnvironment(ref).run([]).pre
    return [{"name": c.function, "arguments": dict(c.args)} for c in task.ground_truth(pre)]


def environment_for(reference: dict[str, Any]) -> AgentDojoEnvironment:
    return AgentDojoEnvironment(data.TaskRef.from_reference(reference))
