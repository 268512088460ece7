"""The verifiers the model-free policies write survive the single-reply harness's code-block extraction."""

from __future__ import annotations

import ast
import json

from verifierbench.harness.agents import extract_code
from verifierbench.policies.verifiers import _literal, verifier_source


def test_a_prompt_with_code_fences_does_not_cut_the_verifier_short():
    prompt = "## How to answer\nReply with the complete content of verify.py in one ```python code block.\n"
    source = verifier_source("heuristic", {"instruction": prompt, "tools": [{"name": "f`x`", "parameters": {}}]})
    assert "```" not in source
    assert extract_code(f"```python\n{source}```\n") == source
    compile(source, "verify.py", "exec")


def test_embedded_values_round_trip_without_backticks():
    value = {"text": "a ```python block``` and `code`"}
    literal = _literal(value)
    assert "`" not in literal and json.loads(ast.literal_eval(literal)) == value
