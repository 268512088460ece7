"""A scripted Inspect model provider for tests that run the CLI in a subprocess: `scripted/NAME` answers each
prompt with the reply of the first needle found in it, from the JSON file [[needle, reply], ...] named by
$VERIFIERBENCH_SCRIPTED_REPLIES. Importing this module registers the provider."""

from __future__ import annotations

import json
import os
from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo

ENV = "VERIFIERBENCH_SCRIPTED_REPLIES"
# A `python -c` prefix that registers this provider, loaded from its file: the subprocess must not run with the
# repository on its path (cwd or PYTHONPATH), where the editable install's `verifierbench.egg-info` would be found
# first and Inspect, seeing no editable install, would register verifierbench's objects without their
# `verifierbench/` prefix (`--scorer verifierbench/testjack_audit` then "couldn't be loaded").
REGISTER = ("import importlib.util; spec = importlib.util.spec_from_file_location('scripted_model', "
            f"{__file__!r}); spec.loader.exec_module(importlib.util.module_from_spec(spec)); ")


@modelapi(name="scripted")
class ScriptedModel(ModelAPI):
    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **model_args: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        with open(os.environ[ENV], encoding="utf-8") as handle:
            self.replies = [(needle, reply) for needle, reply in json.load(handle)]

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> ModelOutput:
        text = "\n".join(m.text for m in input)
        reply = next((r for needle, r in self.replies if needle in text), None)
        if reply is None:
            raise ValueError(f"no scripted reply for a prompt starting {text[:80]!r}")
        output = ModelOutput.from_content(f"scripted/{self.model_name}", reply)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download (offline)
        return output
