"""The paper's 36 model-harness configurations (paper Table 2 and Tables 11-12, App. E).

19 models with the common harness (the paper's Pi harness: `-T harness=pi`, the pi CLI at the paper's 0.84.2 in
the default `vgb` sandbox, no Docker: `python -m verifierbench.harness.pi_vgb fetch` caches its toolchain) and 17
alternative configurations, each CLI at the paper's version (scripts/harness-clis.sh): Claude Code in the `vgb`
sandbox as Pi is (harness/model_endpoint.py), the others in the Docker sandbox.
Passing `harness=default` runs a configuration with the default ReAct harness instead: a stand-in, not the
paper's harness. Model ids are Inspect model names; edit them to match the provider
you use. `tasks/paper_configurations.py` turns each runnable configuration into an Inspect task
with its model bound, for `inspect eval-set`.

`VERIFIERBENCH_CONFIG_MODEL=verifierbench/<policy>` replaces every model with a model-free policy:
a dry run of the whole set offline.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from inspect_ai import Task, task_with

from verifierbench.harness import registry as harnesses

OVERRIDE_ENV = "VERIFIERBENCH_CONFIG_MODEL"

MODELS = {
    "GPT-5.6-sol": "openai/gpt-5.6-sol",
    "GPT-6-astra": "openai/gpt-6-astra",
    "Kimi K2.6": "openrouter/moonshotai/kimi-k2.6",
    "GLM-5.2": "openrouter/z-ai/glm-5.2",
    "DeepSeek V4 Flash": "openrouter/deepseek/deepseek-v4-flash",
    "GPT-5.6-terra": "openai/gpt-5.6-terra",
    "Kimi K3": "openrouter/moonshotai/kimi-k3",
    "DeepSeek V4 Pro": "openrouter/deepseek/deepseek-v4-pro",
    "Claude Opus 4.8": "anthropic/claude-opus-4-8",
    "Doubao Seed 2.1 Pro": "openrouter/bytedance/doubao-seed-2.1-pro",
    "GPT-5.5": "openai/gpt-5.5",
    "Gemini 3.5 Flash": "google/gemini-3.5-flash",
    "GPT-5.1": "openai/gpt-5.1",
    "Qwen3.7 Plus": "openrouter/qwen/qwen3.7-plus",
    "Doubao Seed 2.0 Code": "openrouter/bytedance/doubao-seed-2.0-code",
    "Gemini 2.5 Pro": "google/gemini-2.5-pro",
    "Doubao Seed 2.0 Lite": "openrouter/bytedance/doubao-seed-2.0-lite",
    "Doubao Seed 2.0 Pro": "openrouter/bytedance/doubao-seed-2.0-pro",
    "Doubao Seed 2.0 Mini": "openrouter/bytedance/doubao-seed-2.0-mini",
}

# Paper harness name -> our harness, from the harness registry (each record's display name); a label with no
# registered harness has no Inspect agent (not runnable).
HARNESS_NAMES = {record.display_name: record.name for record in harnesses.HARNESSES.values()}

ALTERNATIVES = [  # paper Table 12, in its order
    ("Claude Opus 4.8", "Claude Code"), ("GPT-6-astra", "Claude Code"), ("GPT-6-astra", "Codex"),
    ("GPT-6-astra", "mini-swe"), ("GPT-6-astra", "OpenClaw"), ("Gemini 3.5 Flash", "Gemini CLI"),
    ("Qwen3.7 Plus", "Claude Code"), ("GPT-5.6-sol", "Claude Code"), ("Qwen3.7 Plus", "mini-swe"),
    ("Qwen3.7 Plus", "OpenClaw"), ("GPT-5.6-sol", "mini-swe"), ("GPT-5.6-sol", "OpenClaw"),
    ("GPT-5.6-terra", "Codex"), ("GPT-5.5", "Codex"), ("GPT-5.6-sol", "Codex"), ("Qwen3.7 Plus", "Codex"),
    ("Gemini 2.5 Pro", "Gemini CLI"),
]


@dataclass(frozen=True)
class Configuration:
    model_label: str
    harness_label: str

    @property
    def name(self) -> str:
        slug = f"{self.model_label}_{self.harness_label}".lower()
        return "".join(c if c.isalnum() else "_" for c in slug).replace("__", "_")

    @property
    def harness(self) -> str | None:
        return HARNESS_NAMES.get(self.harness_label)

    @property
    def model(self) -> str:
        return os.environ.get(OVERRIDE_ENV) or MODELS[self.model_label]

    @property
    def runnable(self) -> bool:
        return self.harness is not None


# The paper's (Table 2, then Table 12), then those an added harness declares (its record's `configurations`).
CONFIGURATIONS = [Configuration(label, "Pi") for label in MODELS] + [Configuration(m, h) for m, h in ALTERNATIVES] + \
    [Configuration(m, record.display_name) for record in harnesses.HARNESSES.values() for m in record.configurations]
BY_NAME = {c.name: c for c in CONFIGURATIONS}


def configuration_task(name: str, **options) -> Task:
    """The VerifierBench task of one configuration, its model bound (so `inspect eval-set` needs no --model)."""
    from verifierbench.task import as_harness, verifierbench

    config = BY_NAME[name]
    if config.harness is None:  # not runnable
        raise ValueError(f"configuration {name}: the {config.harness_label} harness has no Inspect agent")
    harness = options.pop("harness", config.harness)  # `-T harness=default`: the no-Docker stand-in
    if "vgb" not in harnesses.get(harness).sandboxes:  # pi runs in the no-Docker sandbox too (docs/isolation.md)
        options.setdefault("sandbox", "docker")  # the CLI agents run inside a container (verifierbench/sandboxes/README.md)
    base = verifierbench(harness=as_harness(harness), **options)
    return task_with(base, name=f"verifierbench_{name}", model=config.model,
                     metadata={**(base.metadata or {}), "configuration": name, "model_label": config.model_label,
                               "harness_label": config.harness_label})
