"""The paper's configurations as Inspect tasks, each with its model bound (verifierbench/configurations.py).

    inspect eval-set tasks/paper_configurations.py --log-dir logs/paper

needs the providers' API keys; the 19 Pi configurations run in the default `vgb` sandbox, no Docker (the toolchain
of `python -m verifierbench.harness.pi_vgb fetch`), the 17 alternatives (the other CLIs) need the Docker engine
and the image of scripts/harness-clis.sh. `-T harness=default` runs one with the no-Docker stand-in instead.
Offline dry run: VERIFIERBENCH_CONFIG_MODEL=verifierbench/always_reject.
Generated from CONFIGURATIONS; task options (-T) pass through.
"""

from inspect_ai import Task, task

from verifierbench.configurations import configuration_task


@task
def gpt_5_6_sol_pi(**options) -> Task:
    return configuration_task("gpt_5_6_sol_pi", **options)


@task
def gpt_6_astra_pi(**options) -> Task:
    return configuration_task("gpt_6_astra_pi", **options)


@task
def kimi_k2_6_pi(**options) -> Task:
    return configuration_task("kimi_k2_6_pi", **options)


@task
def glm_5_2_pi(**options) -> Task:
    return configuration_task("glm_5_2_pi", **options)


@task
def deepseek_v4_flash_pi(**options) -> Task:
    return configuration_task("deepseek_v4_flash_pi", **options)


@task
def gpt_5_6_terra_pi(**options) -> Task:
    return configuration_task("gpt_5_6_terra_pi", **options)


@task
def kimi_k3_pi(**options) -> Task:
    return configuration_task("kimi_k3_pi", **options)


@task
def deepseek_v4_pro_pi(**options) -> Task:
    return configuration_task("deepseek_v4_pro_pi", **options)


@task
def claude_opus_4_8_pi(**options) -> Task:
    return configuration_task("claude_opus_4_8_pi", **options)


@task
def doubao_seed_2_1_pro_pi(**options) -> Task:
    return configuration_task("doubao_seed_2_1_pro_pi", **options)


@task
def gpt_5_5_pi(**options) -> Task:
    return configuration_task("gpt_5_5_pi", **options)


@task
def gemini_3_5_flash_pi(**options) -> Task:
    return configuration_task("gemini_3_5_flash_pi", **options)


@task
def gpt_5_1_pi(**options) -> Task:
    return configuration_task("gpt_5_1_pi", **options)


@task
def qwen3_7_plus_pi(**options) -> Task:
    return configuration_task("qwen3_7_plus_pi", **options)


@task
def doubao_seed_2_0_code_pi(**options) -> Task:
    return configuration_task("doubao_seed_2_0_code_pi", **options)


@task
def gemini_2_5_pro_pi(**options) -> Task:
    return configuration_task("gemini_2_5_pro_pi", **options)


@task
def doubao_seed_2_0_lite_pi(**options) -> Task:
    return configuration_task("doubao_seed_2_0_lite_pi", **options)


@task
def doubao_seed_2_0_pro_pi(**options) -> Task:
    return configuration_task("doubao_seed_2_0_pro_pi", **options)


@task
def doubao_seed_2_0_mini_pi(**options) -> Task:
    return configuration_task("doubao_seed_2_0_mini_pi", **options)


@task
def claude_opus_4_8_claude_code(**options) -> Task:
    return configuration_task("claude_opus_4_8_claude_code", **options)


@task
def gpt_6_astra_claude_code(**options) -> Task:
    return configuration_task("gpt_6_astra_claude_code", **options)


@task
def gpt_6_astra_codex(**options) -> Task:
    return configuration_task("gpt_6_astra_codex", **options)


@task
def gpt_6_astra_mini_swe(**options) -> Task:
    return configuration_task("gpt_6_astra_mini_swe", **options)


@task
def gpt_6_astra_openclaw(**options) -> Task:
    return configuration_task("gpt_6_astra_openclaw", **options)


@task
def gemini_3_5_flash_gemini_cli(**options) -> Task:
    return configuration_task("gemini_3_5_flash_gemini_cli", **options)


@task
def qwen3_7_plus_claude_code(**options) -> Task:
    return configuration_task("qwen3_7_plus_claude_code", **options)


@task
def gpt_5_6_sol_claude_code(**options) -> Task:
    return configuration_task("gpt_5_6_sol_claude_code", **options)


@task
def qwen3_7_plus_mini_swe(**options) -> Task:
    return configuration_task("qwen3_7_plus_mini_swe", **options)


@task
def qwen3_7_plus_openclaw(**options) -> Task:
    return configuration_task("qwen3_7_plus_openclaw", **options)


@task
def gpt_5_6_sol_mini_swe(**options) -> Task:
    return configuration_task("gpt_5_6_sol_mini_swe", **options)


@task
def gpt_5_6_sol_openclaw(**options) -> Task:
    return configuration_task("gpt_5_6_sol_openclaw", **options)


@task
def gpt_5_6_terra_codex(**options) -> Task:
    return configuration_task("gpt_5_6_terra_codex", **options)


@task
def gpt_5_5_codex(**options) -> Task:
    return configuration_task("gpt_5_5_codex", **options)


@task
def gpt_5_6_sol_codex(**options) -> Task:
    return configuration_task("gpt_5_6_sol_codex", **options)


@task
def qwen3_7_plus_codex(**options) -> Task:
    return configuration_task("qwen3_7_plus_codex", **options)


@task
def gemini_2_5_pro_gemini_cli(**options) -> Task:
    return configuration_task("gemini_2_5_pro_gemini_cli", **options)
