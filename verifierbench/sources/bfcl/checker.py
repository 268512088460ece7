"""BFCL's own AST checker (`bfcl_eval.eval_checker.ast_eval.ast_checker`), loaded without its model registry.

`ast_checker` imports `MODEL_CONFIG_MAPPING` only to ask whether a model rewrote dots in function
names; that module also imports every provider SDK (anthropic, openai, google-genai, ...). We register
a one-entry stand-in for it before importing the checker, so the checker itself runs unmodified with
only the `bfcl_eval` package on the path (stdlib otherwise: this runs inside the sandbox too).
"""

from __future__ import annotations

import os
import sys
import tempfile
import types
from dataclasses import dataclass
from typing import Any, Callable

MODEL_NAME = "verifierbench-reference"  # dots in function names are kept as emitted
PINNED_VERSION = "2026.3.23"


@dataclass(frozen=True)
class _ModelConfig:
    underscore_to_dot: bool = False


def _checker() -> tuple[Callable[..., dict[str, Any]], Any]:
    os.environ.setdefault("BFCL_PROJECT_ROOT", os.path.join(tempfile.gettempdir(), "verifierbench-bfcl"))
    name = "bfcl_eval.constants.model_config"
    if name not in sys.modules:
        stand_in = types.ModuleType(name)
        # a bare ModuleType declares no attributes; ruff (B010) rules out setattr with a constant name
        stand_in.MODEL_CONFIG_MAPPING = {MODEL_NAME.replace("_", "/"): _ModelConfig()}  # type: ignore[attr-defined]
        sys.modules[name] = stand_in
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    return ast_checker, Language.PYTHON


def check(functions: list[dict[str, Any]], ground_truth: list[dict[str, Any]], category: str, calls: list[dict[str, Any]]) -> tuple[bool, str]:
    """BFCL's verdict on `calls` ([{"name", "arguments"}]) for one task; (valid, first error)."""
    ast_checker, python = _checker()
    model_output = [{c["name"]: c["arguments"]} for c in calls]
    result = ast_checker(functions, model_output, ground_truth, python, category, MODEL_NAME)
    return bool(result["valid"]), "; ".join(map(str, result.get("error", [])))[:500]
