"""tau2-bench tasks, policies and tool definitions read from the installed `inspect-evals` package.

`inspect-evals` 0.26.0 (`inspect_evals.tau2`) ships retail (114 tasks, ids "0".."113": upstream tau2-bench
commit 377cecf) and banking_knowledge (97 tasks, "task_001".."task_102" with gaps: upstream fcc9ed6).
Task records are the upstream JSON as shipped; our ids are `retail/<id>` and `banking_knowledge/<id>`.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import metadata, util
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from verifierbench.core.errors import UserError

if TYPE_CHECKING:
    from inspect_ai.tool import Tool

PINNED_VERSION = "0.26.0"
DOMAINS = ("retail", "banking_knowledge")
PACKAGE_PREFIX = "banking_"  # the package's banking tool names; upstream tau2 (and our records) use the bare names


def package_dir() -> Path:
    """Where `inspect_evals/tau2` is installed, found without importing it; UserError when it is not."""
    spec = util.find_spec("inspect_evals")
    if spec is None or not spec.submodule_search_locations:
        raise UserError("tau2 needs inspect-evals, which is not installed: pip install 'verifierbench[tau2]'")
    path = Path(list(spec.submodule_search_locations)[0]) / "tau2"
    if not (path / "data" / "domains" / "retail" / "tasks.json").is_file():
        raise UserError(f"{path}: the installed inspect-evals has no tau2 data (pip install inspect-evals=={PINNED_VERSION})")
    return path


def installed_version() -> str:
    return metadata.version("inspect-evals")


def domain_dir(domain: str) -> Path:
    if domain not in DOMAINS:
        raise ValueError(f"unknown tau2 domain {domain!r} (expected one of {', '.join(DOMAINS)})")
    return package_dir() / "data" / "domains" / domain


@lru_cache(maxsize=None)
def _tasks_text(domain: str) -> str:
    return (domain_dir(domain) / "tasks.json").read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def task_ids(domain: str) -> tuple[str, ...]:
    """Upstream ids in file order (retail: its "base" split, which is every task)."""
    records = json.loads(_tasks_text(domain))
    ids = [r["id"] for r in records]
    if domain == "retail":
        split = json.loads((domain_dir(domain) / "split_tasks.json").read_text(encoding="utf-8"))["base"]
        ids = [i for i in ids if i in set(split)]
    return tuple(ids)


def task(domain: str, task_id: str) -> dict[str, Any]:
    """One upstream task record (a fresh copy: callers may keep or change it)."""
    record: dict[str, Any] = json.loads(_task_json(domain, task_id))
    return record


@lru_cache(maxsize=None)
def _task_json(domain: str, task_id: str) -> str:
    for record in json.loads(_tasks_text(domain)):
        if record["id"] == task_id:
            return json.dumps(record)
    raise KeyError(f"tau2 {domain} has no task {task_id!r}")


def tasks(domain: str) -> dict[str, dict[str, Any]]:
    return {i: task(domain, i) for i in task_ids(domain)}


@lru_cache(maxsize=None)
def task_model(domain: str, task_id: str) -> Any:  # a Task; Any: callers read its optional evaluation_criteria unchecked
    """The package's pydantic `Task` (its evaluation helpers take it)."""
    from inspect_evals.tau2.data_model.tasks import Task

    return Task.model_validate(task(domain, task_id))


def source_id(domain: str, task_id: str) -> str:
    return f"{domain}/{task_id}"


def split_source_id(value: str) -> tuple[str, str]:
    domain, _, task_id = value.partition("/")
    if domain not in DOMAINS or not task_id:
        raise ValueError(f"not a tau2 source id: {value!r} (expected retail/<id> or banking_knowledge/<id>)")
    return domain, task_id


@lru_cache(maxsize=None)
def policy(domain: str) -> str:
    """The policy the agent was given: retail's policy.txt; banking's grep-configuration system prompt
    (the knowledge base itself is searched with the `grep` tool)."""
    if domain == "retail":
        from inspect_evals.tau2.retail.agents import get_domain_policy

        return get_domain_policy()
    from inspect_evals.tau2.banking.agents import _get_domain_policy

    return _get_domain_policy("grep")


def _definition(tool: Tool) -> dict[str, Any]:
    from inspect_ai.tool import ToolDef

    td = ToolDef(tool)
    name = td.name.split("/")[-1].removeprefix(PACKAGE_PREFIX)
    return {"name": name, "description": td.description, "parameters": td.parameters.model_dump(exclude_none=True)}


@lru_cache(maxsize=None)
def _definitions(domain: str) -> tuple[str, str]:
    if domain == "retail":
        from inspect_evals.tau2.retail.tools import all_retail_tools

        return json.dumps([_definition(t()) for t in all_retail_tools]), "[]"
    from inspect_evals.tau2.banking.tools import all_banking_agent_tools, banking_grep
    from inspect_evals.tau2.banking.user_tools import all_banking_user_tools

    agent = [_definition(t()) for t in all_banking_agent_tools] + [_definition(banking_grep())]
    return json.dumps(agent), json.dumps([_definition(t()) for t in all_banking_user_tools])


def agent_tools(domain: str) -> list[dict[str, Any]]:
    """The agent's tools as the package gives them (banking with the `grep` knowledge-base search), bare names."""
    tools: list[dict[str, Any]] = json.loads(_definitions(domain)[0])
    return tools


def user_tools(domain: str, task_id: str | None = None) -> list[dict[str, Any]]:
    """The customer's own tools: banking only; with a task, only those its `user_tools` list names (upstream)."""
    every: list[dict[str, Any]] = json.loads(_definitions(domain)[1])
    if task_id is None:
        return every
    allowed = set(task(domain, task_id).get("user_tools") or [])
    return [t for t in every if t["name"] in allowed]


@lru_cache(maxsize=None)
def _discoverable(kind: str) -> str:
    from inspect_evals.tau2.banking.BankingAgentTools import AGENT_DISCOVERABLE_TOOLS, BankingAgentTools
    from inspect_evals.tau2.banking.BankingUserTools import USER_DISCOVERABLE_TOOLS, BankingUserTools

    cls, names = (BankingAgentTools, AGENT_DISCOVERABLE_TOOLS) if kind == "agent" else (BankingUserTools, USER_DISCOVERABLE_TOOLS)
    out = []
    for name in sorted(names):
        # The package's own docstring parser: what `unlock_discoverable_agent_tool` tells the agent. It reads only
        # getattr(self, name), so a shim holding the method stands in for a tools instance (and its database).
        shim = SimpleNamespace(**{name: getattr(cls, name)})
        out.append(BankingAgentTools._parse_discoverable_docstring(shim, name))  # type: ignore[arg-type]
    return json.dumps(out)


def discoverable_tools(kind: str) -> list[dict[str, Any]]:
    """Banking's discoverable tools (`kind` "agent" or "user"): name, description, parameters. The knowledge base
    documents them; agents reach them through unlock/call_discoverable_agent_tool and give/call_discoverable_user_tool."""
    tools: list[dict[str, Any]] = json.loads(_discoverable(kind))
    return tools
