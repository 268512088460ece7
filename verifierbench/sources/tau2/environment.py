"""The public environment of a tau2 task: what `run_public` replays (docs/state-suite.md).

`Tau2Environment.replay(calls)` applies tool calls in order to a fresh copy of the task's initial environment,
with the package's own tool implementations (`RetailAgentTools`, `BankingAgentTools`, `BankingUserTools`), and
returns every observation and the resulting public state. Decisions taken here, each for a documented trap
(`docs/source-notes.md`, tau2):

- **Fresh environment, deep-copied initial state (trap 2).** Every replay starts from the domain database as
  shipped; banking applies the task's `initial_state` through the package's `apply_initial_state`, but on a
  copy made for this replay only. The package's initializer merges the task's records into the live DB by
  reference, so tool writes leaked into what its scorer re-reads (task_051's gold scored 0).
- **No argument casting; integral floats normalised (trap 1).** Inspect casts tool arguments to the declared
  types (`100000` -> `100000.0`), which changed ids derived from the value and failed the expected-DB check on
  19 banking tasks. We call the tool methods with the arguments as recorded (upstream semantics) and, so that
  `100000` and `100000.0` are one value, turn every integral float into an int before the call (also inside the
  JSON-string `arguments` of the discoverable-tool wrappers). Both sides of every comparison go through this.
- **Discoverable-tool log rows (trap 3).** Banking logs each `call_discoverable_agent_tool` (and each user-side
  discoverable call, and each tool given to the user) as a DB row, even for read-only tools, so a permitted extra
  read changed the DB hash. Upstream fixed this later (tau2-bench #329). The public state leaves out the rows
  that only record access to a *read-only* discoverable tool (`READ_ONLY_AGENT_DISCOVERABLE`,
  `READ_ONLY_USER_DISCOVERABLE`): the log rows of those calls and the "GIVEN" rows of read-only user tools. Rows
  of every other discoverable tool stay: for some (the initial-transfer protocol tools) the row is the only
  trace of the action.
- **No temp files (trap 5).** The package's retail loader gunzips the DB to a temp file it never deletes; we
  read the gzip in memory once per process.
- **Tool surface.** Bare upstream names (the package prefixes banking's with `banking_`). Retail: the agent's 15
  tools. Banking: the agent's 14 tools plus `grep` (knowledge-base search, read-only); customer calls
  (`role: "user"`) may use only the user tools the task lists (upstream `user_tools`). Results are what the
  package's tool wrappers return (strings); a failed call (`ToolError`, bad arguments, unknown tool) gives an
  observation with `error`, which a record shows as the result `"Error: <message>"`.

Cost: the pristine DB is loaded once per process. Retail replays copy on write: entities (orders, users,
products) are deep-copied when a tool first reads them by key, and the state's canonical JSON is assembled from
per-entity strings cached for untouched entities, so `state_hash` is free; see `benchmarks/run_public_tau2.py`.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import inspect as pyinspect
import json
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from verifierbench.core.hashing import canonical_json, content_hash
from verifierbench.sources.interaction.environment import PublicEnvironment, Replay, requested_calls
from verifierbench.sources.tau2 import data

# Wrappers whose `arguments` is a JSON string of the wrapped tool's arguments.
DISCOVERABLE_WRAPPERS = frozenset({"call_discoverable_agent_tool", "call_discoverable_user_tool", "give_discoverable_user_tool"})
# Discoverable tools that only read (checked by tests/sources/tau2: replaying them changes nothing but their log).
READ_ONLY_AGENT_DISCOVERABLE = frozenset({
    "get_all_user_accounts_by_user_id_3847", "get_atm_deposit_images_8473", "get_bank_account_transactions_9173",
    "get_closure_reason_history_8293", "get_credit_limit_increase_history_4829", "get_debit_cards_by_account_id_7823",
    "get_debit_dispute_status_7483", "get_payment_history_6183", "get_pending_replacement_orders_5765",
    "get_user_dispute_history_7291",
})
READ_ONLY_USER_DISCOVERABLE = frozenset({"get_card_last_4_digits"})  # get_referral_link writes a referral
# table -> rows left out of banking's public state
LOG_TABLES = {
    "agent_discoverable_tools": READ_ONLY_AGENT_DISCOVERABLE,
    "user_discoverable_tool_calls": READ_ONLY_USER_DISCOVERABLE,
    "user_discoverable_tools": READ_ONLY_USER_DISCOVERABLE,
}
ERROR_PREFIX = "Error: "
_MEMO_SIZE = 2048


@dataclass
class Tau2Replay(Replay):
    """A replay whose state hash was computed from the state's canonical JSON while building it
    (equal to `content_hash(state)`; do not mutate `state`)."""

    precomputed_hash: str = field(default="", repr=False)

    @property
    def state_hash(self) -> str:
        return self.precomputed_hash or content_hash(self.state)

    def to_json(self) -> dict[str, Any]:
        return {"observations": self.observations, "state": self.state, "state_hash": self.state_hash}


def recorded_result(observation: dict[str, Any]) -> str:
    """What an interaction record shows as the result of a replayed call."""
    result: str = observation["result"] if "result" in observation else ERROR_PREFIX + observation["error"]
    return result


def normalise_arguments(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Integral floats become ints (also inside a discoverable wrapper's JSON `arguments` string)."""
    out: dict[str, Any] = _integral(copy.deepcopy(arguments))
    if name in DISCOVERABLE_WRAPPERS and isinstance(out.get("arguments"), str):
        try:
            inner = json.loads(out["arguments"])
        except ValueError:
            return out
        if not _finite(inner):
            raise _CallError("arguments must be JSON values (no NaN or infinity)")
        if isinstance(inner, dict):
            out["arguments"] = json.dumps(_integral(inner))
    return out


def _integral(value: Any) -> Any:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_integral(v) for v in value]
    if isinstance(value, dict):
        return {k: _integral(v) for k, v in value.items()}
    return value


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _finite(v) for k, v in value.items())
    return value is None or isinstance(value, (str, int, bool))


def _plain(cls: type) -> type:
    """The package's tool methods on a plain class: the same code, without Inspect's store (which pushes every
    field read through a pydantic TypeAdapter and every write through a validation of all fields)."""
    namespace = {k: v for k, v in vars(cls).items()
                 if not k.startswith("__") and (pyinspect.isfunction(v) or isinstance(v, (staticmethod, classmethod)))}
    namespace.pop("initialize", None)
    return type(f"Plain{cls.__name__}", (), namespace)


# ---- retail: copy-on-write over a pristine DB loaded once -------------------------------------------------------

class _CopyOnRead(dict[str, Any]):
    """A table of pristine entities: the first read by key gives this replay its own deep copy. Iteration reads the
    pristine entities, which the retail tools only read (a test checks the pristine DB never changes)."""

    def __init__(self, pristine: dict[str, Any]):
        super().__init__(pristine)
        self.touched: set[str] = set()
        self.reshaped = False

    def __getitem__(self, key: str) -> Any:
        if key not in self.touched and dict.__contains__(self, key):
            value = dict.__getitem__(self, key).model_copy(deep=True)
            dict.__setitem__(self, key, value)
            self.touched.add(key)
            return value
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if dict.__contains__(self, key) else default

    def __setitem__(self, key: str, value: Any) -> None:
        self.touched.add(key)
        self.reshaped = self.reshaped or not dict.__contains__(self, key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: str) -> None:
        self.touched.discard(key)
        self.reshaped = True
        dict.__delitem__(self, key)

    def pop(self, key: str, *default: Any) -> Any:
        self.reshaped = True
        self.touched.discard(key)
        return dict.pop(self, key, *default)


class _Retail:
    TABLES = ("orders", "products", "users")  # RetailDB's fields, in canonical (sorted) order

    def __init__(self) -> None:
        from inspect_evals.tau2.retail.data_model import RetailDB
        from inspect_evals.tau2.retail.RetailAgentTools import RetailAgentTools

        with gzip.open(data.domain_dir("retail") / "db.json.gz", "rt", encoding="utf-8") as f:
            self.db = RetailDB.model_validate(json.load(f))
        self.db_class = RetailDB
        self.tools_class = _plain(RetailAgentTools)
        self.tables: dict[str, dict[str, Any]] = {t: getattr(self.db, t) for t in self.TABLES}
        self.entity_json = {t: {k: canonical_json(v.model_dump(mode="json")) for k, v in table.items()} for t, table in self.tables.items()}
        self.table_json = {t: _object_json(sorted(rows), rows) for t, rows in self.entity_json.items()}
        self.names = [d["name"] for d in data.agent_tools("retail")]

    def fresh(self) -> tuple[Any, dict[str, _CopyOnRead]]:
        tables: dict[str, Any] = {t: _CopyOnRead(table) for t, table in self.tables.items()}
        tools = self.tools_class()
        tools.db = self.db_class.model_construct(**tables)
        tools.initialized = True
        return tools, tables

    def state_json(self, tables: dict[str, _CopyOnRead]) -> str:
        parts = []
        for t in self.TABLES:
            table = tables[t]
            if not table.touched and not table.reshaped:
                text = self.table_json[t]
            else:
                rows = {k: (canonical_json(dict.__getitem__(table, k).model_dump(mode="json")) if k in table.touched
                            else self.entity_json[t][k]) for k in table}
                text = _object_json(sorted(rows), rows)
            parts.append(f"{json.dumps(t)}:{text}")
        return "{" + ",".join(parts) + "}"

    def call(self, tools: Any, role: str, name: str, arguments: dict[str, Any]) -> str:
        if role != "assistant":
            raise _CallError("the customer has no tools in the retail domain")
        if name not in self.names:
            raise _CallError(f"Unknown tool '{name}'")
        if name == "calculate":
            return _calculate(**arguments)
        if name == "transfer_to_human_agents":  # the package's wrapper, like calculate
            _check_arguments(lambda summary: None, arguments)
            return "Transfer successful"
        method = getattr(tools, name)
        _check_arguments(method, arguments)
        result = method(**arguments)
        return result if isinstance(result, str) else json.dumps(result, sort_keys=True)


def _object_json(keys: list[str], rows: dict[str, str]) -> str:
    return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{rows[k]}" for k in keys) + "}"


def _calculate(expression: Any = None, **extra: Any) -> str:
    """The package's `calculate` tool (an Inspect wrapper, not a method), run synchronously."""
    from inspect_ai.tool import ToolError
    from inspect_evals.tau2.common.tools import _evaluate_arithmetic

    if extra or not isinstance(expression, str):
        raise _CallError("Invalid arguments for calculate: expected one string argument `expression`")
    if not all(char in "0123456789+-*/(). " for char in expression):
        raise _CallError("Invalid characters in expression")
    try:
        return str(round(float(_evaluate_arithmetic(expression)), 2))
    except ToolError as e:
        raise _CallError(str(e)) from None
    except ArithmeticError as e:
        raise _CallError(f"Cannot evaluate expression: {e}") from None


# ---- banking: a fresh copy of the (small) DB per replay ---------------------------------------------------------

class _Banking:
    def __init__(self) -> None:
        from inspect_evals.tau2.banking.BankingAgentTools import BankingAgentTools
        from inspect_evals.tau2.banking.BankingUserTools import BankingUserTools
        from inspect_evals.tau2.banking.data_model import TransactionalDB

        self.db_text = (data.domain_dir("banking_knowledge") / "db.json").read_text(encoding="utf-8")
        self.db_class = TransactionalDB
        self.agent_class = _plain(BankingAgentTools)
        self.user_class = _plain(BankingUserTools)
        self.agent_names = [d["name"] for d in data.agent_tools("banking_knowledge")]

    def fresh(self, task: dict[str, Any]) -> tuple[Any, Any, Any]:
        from inspect_evals.tau2.banking.environment import apply_initial_state
        from inspect_evals.tau2.data_model.tasks import InitialState

        db = self.db_class.model_validate(json.loads(self.db_text))
        agent, user = self.agent_class(), self.user_class()
        agent.db, agent.initialized, agent.agent_unlocked_tools, agent.user_given_tools_state = db, True, {}, {}
        user.db, user.initialized = db, True
        if task.get("initial_state"):
            # A copy per replay (trap 2): the package merges these records into the DB by reference.
            initial = InitialState.model_validate(json.loads(json.dumps(task["initial_state"])))
            apply_initial_state(agent, user, initial)
        return agent, user, db

    def state(self, db: Any) -> dict[str, Any]:
        state: dict[str, Any] = db.model_dump(mode="json")
        for table, read_only in LOG_TABLES.items():
            rows = state[table]["data"]
            state[table]["data"] = {k: v for k, v in rows.items() if not (isinstance(v, dict) and v.get("tool_name") in read_only)}
        return state

    def call(self, agent: Any, user: Any, user_tools: frozenset[str], role: str, name: str, arguments: dict[str, Any]) -> str:
        if role == "user":
            if name not in user_tools:
                raise _CallError(f"Tool '{name}' is not available to the customer in this task")
            target = user
        else:
            if name not in self.agent_names:
                raise _CallError(f"Unknown tool '{name}'")
            if name == "grep":
                from inspect_evals.tau2.banking.tools import _get_knowledge_base

                _check_arguments(lambda pattern: None, arguments)
                return _get_knowledge_base().grep(arguments["pattern"])
            target = agent
        method = getattr(target, name)
        _check_arguments(method, arguments)
        result = method(**arguments)
        return result if isinstance(result, str) else json.dumps(result, sort_keys=True)


class _CallError(Exception):
    pass


def _check_arguments(function: Callable[..., Any], arguments: dict[str, Any]) -> None:
    """Missing or unexpected arguments give an error observation before the tool runs."""
    try:
        pyinspect.signature(function).bind(**arguments)
    except TypeError as e:
        raise _CallError(f"Invalid arguments: {e}") from None


_lock = threading.Lock()
_runtimes: dict[str, Any] = {}


def _runtime(domain: str) -> Any:  # _Retail or _Banking, by domain
    with _lock:
        if domain not in _runtimes:
            _runtimes[domain] = _Retail() if domain == "retail" else _Banking()
        return _runtimes[domain]


# ---- the environment --------------------------------------------------------------------------------------------

class Tau2Environment(PublicEnvironment):
    """One tau2 task's public environment (domain + task id); cheap to create, the domain data is shared."""

    def __init__(self, domain: str, task_id: str):
        self.domain, self.task_id = domain, task_id
        self.task = data.task(domain, task_id)
        self.user_tool_names = frozenset(self.task.get("user_tools") or []) if domain == "banking_knowledge" else frozenset()
        self._memo: OrderedDict[str, tuple[str, str]] = OrderedDict()
        self._memo_lock = threading.Lock()

    def tools(self) -> list[dict[str, Any]]:
        return data.agent_tools(self.domain)

    def user_tools(self) -> list[dict[str, Any]]:
        return data.user_tools(self.domain, self.task_id) if self.domain == "banking_knowledge" else []

    def replay(self, calls: list[dict[str, Any]]) -> Tau2Replay:
        observations, state_text, state_hash = self._execute(calls)
        return Tau2Replay(observations=observations, state=json.loads(state_text), precomputed_hash=state_hash)

    def run_request_text(self, request: dict[str, Any]) -> str:
        """The reply's JSON text around the state's canonical text as the replay built it: no parse, no re-encode."""
        observations, state_text, state_hash = self._execute(requested_calls(request))
        return f'{{"observations": {json.dumps(observations)}, "state": {state_text}, "state_hash": {json.dumps(state_hash)}}}'

    def run(self, calls: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
        """(observations, state hash) without building the state dict; memoised per call list."""
        key = json.dumps([[c.get("role") or "assistant", c.get("name"), c.get("arguments")] for c in calls], sort_keys=True, default=repr)
        with self._memo_lock:
            hit = self._memo.get(key)
            if hit is not None:
                self._memo.move_to_end(key)
        if hit is None:
            observations, _, state_hash = self._execute(calls)
            hit = (json.dumps(observations), state_hash)
            with self._memo_lock:
                self._memo[key] = hit
                if len(self._memo) > _MEMO_SIZE:
                    self._memo.popitem(last=False)
        return json.loads(hit[0]), hit[1]

    def _execute(self, calls: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str, str]:
        from inspect_ai.tool import ToolError

        runtime = _runtime(self.domain)
        if self.domain == "retail":
            tools, tables = runtime.fresh()
            invoke: Callable[[str, str, dict[str, Any]], str] = lambda role, name, args: runtime.call(tools, role, name, args)
        else:
            agent, user, db = runtime.fresh(self.task)
            invoke = lambda role, name, args: runtime.call(agent, user, self.user_tool_names, role, name, args)
        observations = []
        for call in calls:
            name, arguments, role = call.get("name"), call.get("arguments"), call.get("role") or "assistant"
            observation: dict[str, Any] = {"name": name, "arguments": copy.deepcopy(arguments)}
            try:
                if not isinstance(name, str) or not isinstance(arguments, dict) or role not in ("assistant", "user"):
                    raise _CallError("a call needs a string name, an object of arguments and role assistant or user")
                if not _finite(arguments):
                    raise _CallError("arguments must be JSON values (no NaN or infinity)")
                observation["result"] = invoke(role, name, normalise_arguments(name, arguments))
            except _CallError as e:
                observation["error"] = str(e)
            except ToolError as e:
                observation["error"] = str(e)
            except Exception as e:  # a tool crashing on odd input is an observation too, like upstream's
                observation["error"] = f"{type(e).__name__}: {e}"
            observations.append(observation)
        text = runtime.state_json(tables) if self.domain == "retail" else canonical_json(runtime.state(db))
        return observations, text, "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@lru_cache(maxsize=256)
def _environment(domain: str, task_id: str) -> Tau2Environment:
    return Tau2Environment(domain, task_id)


def environment_for(reference: dict[str, Any]) -> Tau2Environment:
    """The environment of the task a reference record describes (its `domain` and `task_id`)."""
    domain, task_id = reference.get("domain"), reference.get("task_id")
    if domain not in data.DOMAINS or not isinstance(task_id, str):
        raise ValueError(f"a tau2 reference names a domain ({'/'.join(data.DOMAINS)}) and a task_id")
    return _environment(domain, task_id)
