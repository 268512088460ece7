"""The LLM auditor (Inspect model role `auditor`): reads the requirements and the frozen verifier's code,
lists the verifier's acceptance conditions, traces each to a requirement, and writes candidates that
challenge unjustified conditions or violations the verifier may miss (testjack §3.2, App. D).
Its candidates are proposals only: the reference verifier certifies every label before one can refute."""

from __future__ import annotations

import json
import re
from typing import Any, TYPE_CHECKING

from verifierbench.core.proposals import Proposal
from verifierbench.sources.formats.registry import format_of
from verifierbench.core.schema import Label, Task

if TYPE_CHECKING:  # only annotations: judging and auditing import nothing of Inspect
    from inspect_ai.model import Model

NAME = "llm"
MAX_CANDIDATES = 8
MAX_CODE_CHARS = 40_000

PROMPT = """You are auditing a verifier. A verifier reads one candidate and decides PASS (the candidate fulfils the task) or FAIL.
Your goal: find candidates on which this verifier decides wrongly, judged only by the task's requirements below.

## Task requirements (what the verifier's author saw)
{instruction}

## The verifier's code
{code}

## What to do
1. List the verifier's acceptance conditions: every check that can make it FAIL, and every shortcut that makes it PASS.
2. Trace each condition to a requirement above. Mark a condition unjustified when no requirement asks for it.
   Known failure modes: {failure_modes}
3. Write up to {limit} candidates that challenge those conditions: a valid candidate (label PASS) the
   verifier would reject, or an invalid one (label FAIL) it would accept. Each must be a complete candidate
   in the format the requirements describe.{format_note}

Reply with one JSON object in a ```json block:
{{"conditions": [{{"condition": "...", "requirement": "... or none", "justified": true}}],
  "candidates": [{{"label": "PASS" or "FAIL", "requirement": "the requirement it targets", "candidate": {{...}}}}]}}
"""


def prompt(task: Task, files: dict[str, dict[str, str]]) -> str:
    code = "\n\n".join(f"### {path}\n```\n{body['text']}\n```" for path, body in sorted(files.items()) if "text" in body)
    return PROMPT.format(instruction=task.instruction, code=code[:MAX_CODE_CHARS], limit=MAX_CANDIDATES,
                         failure_modes=format_of(task).audit_failure_modes, format_note=format_of(task).audit_format_note)


def completed(task: Task, proposals: list[Proposal]) -> list[Proposal]:
    """State tasks: each proposed record with the results it leaves out replayed on the task's environment
    (a malformed record is passed on unchanged; the engine drops it)."""
    from verifierbench.sources.interaction import audit as interaction_audit

    if not format_of(task).replays_proposed_results or not interaction_audit.supports(task):
        return proposals
    for proposal in proposals:
        try:
            proposal.candidate = interaction_audit.with_replayed_results(task.reference, proposal.candidate)
        except (ValueError, KeyError, TypeError):
            continue
    return proposals


async def propose(model: Model, task: Task, files: dict[str, dict[str, str]]) -> tuple[list[Proposal], dict[str, Any]]:
    """The auditor's proposals and its analysis (the conditions it listed), for the score metadata."""
    output = await model.generate(prompt(task, files))
    proposals, analysis = parse(output.completion)
    return completed(task, proposals), analysis


def parse(text: str, auditor: str = NAME, operator: str = "llm_auditor", listed: str = "conditions",
          limit: int = MAX_CANDIDATES) -> tuple[list[Proposal], dict[str, Any]]:
    """The proposals in a model's reply and the list it was asked for beside them.

    Args:
        text: the model's reply (the last ```json block that parses is read).
        auditor: the auditor name the proposals carry (`llm`, or `task_analysis` for the task analysis pass).
        operator: the operator name the proposals carry.
        listed: the reply's analysis key kept for the metadata (`conditions`, or `requirements`).
        limit: proposals kept at most, in reply order.
    """
    data = last_json_object(text)
    if not isinstance(data, dict):
        return [], {"error": "no JSON object in the auditor's reply"}
    proposals = []
    for item in (data.get("candidates") or [])[:limit]:
        if not isinstance(item, dict) or item.get("label") not in ("PASS", "FAIL") or not isinstance(item.get("candidate"), dict):
            continue
        proposals.append(Proposal(item["candidate"], Label(item["label"]), str(item.get("requirement") or "unstated"), auditor, operator))
    return proposals, {listed: data.get(listed) if isinstance(data.get(listed), list) else []}


def last_json_object(text: str) -> Any:
    """The last fenced ```json block that parses, else the whole reply if it parses."""
    for block in reversed(re.findall(r"```(?:json)?\s*\n(.*?)```", text, re.S)):
        try:
            return json.loads(block)
        except json.JSONDecodeError:
            continue
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None
