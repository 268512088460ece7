"""The reviewer (Inspect model role `reviewer`): re-judges each witness against the task's requirements
alone, as valid, questionable or invalid (testjack App. D). Only valid witnesses refute.

Without a reviewer model, deterministic witnesses are valid by rule (their labels follow from operators
over the answer key, exactly like the hidden suite's, and the reference confirmed them); LLM witnesses
stay questionable, because nothing but another reader can tell whether the requirements ask for them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import json
import re

from verifierbench.audit.witness import INVALID, QUESTIONABLE, VALID, Review, Witness
from verifierbench.core.schema import Task

if TYPE_CHECKING:  # only annotations: judging and auditing import nothing of Inspect
    from inspect_ai.model import Model

PROMPT = """You review one test candidate for a verifier. Judge it against the task's requirements alone.

## Task requirements
{instruction}

## Candidate
```json
{candidate}
```

The candidate's author claims the correct decision is {label}: {requirement}.

Is that claim required by the task as stated? Answer VALID when the requirements clearly give this decision,
INVALID when they do not (an invented rule, an incidental detail, or the opposite decision), and QUESTIONABLE
when they are ambiguous. Start your reply with the verdict word, then one sentence of evidence."""

VERDICT = re.compile(r"\b(INVALID|QUESTIONABLE|VALID)\b")


def by_rule(witness: Witness) -> Review:
    if witness.auditor == "deterministic":
        return Review(VALID, "rule:operator-label", f"{witness.operator}: label follows from the operator; reference agrees")
    return Review(QUESTIONABLE, "rule:no-reviewer", "no reviewer model bound; an LLM witness does not refute unreviewed")


async def review(model: Model | None, task: Task, witness: Witness) -> Review:
    if model is None:
        return by_rule(witness)
    text = PROMPT.format(instruction=task.instruction, candidate=json.dumps(witness.candidate, indent=2),
                         label=witness.label.value, requirement=witness.requirement)
    reply = (await model.generate(text)).completion
    found = VERDICT.search(reply.upper())
    verdict = {"VALID": VALID, "INVALID": INVALID, "QUESTIONABLE": QUESTIONABLE}[found.group(1)] if found else QUESTIONABLE
    return Review(verdict, str(model), reply.strip()[:500])
