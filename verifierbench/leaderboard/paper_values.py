"""Published result tables transcribed from the VerifierBench paper.

Source: VerifierBench paper (arXiv:2610.28679, https://arxiv.org/abs/2610.28679), read
in a text version extracted from its PDF. Locations (page = printed page number; line =
line in that text version, which is not part of the repository):

- Table 2  (main results, common Pi harness): page 6, rows at lines 436-472,
  caption at line 474. The rows are interleaved with Table 3 (native-harness
  comparison); TPR/TNR also agree with Figure 3 (lines 380-401).
- Table 12 (alternative harness configurations): page 17, rows at lines
  1440-1456, caption at line 1458.
- Table 16 (tool-call ranking, 95 tasks): page 19, rows at lines 1596-1614,
  caption at line 1617.
- Table 17 (state-based ranking, 80 tasks): page 20, rows at lines 1623-1641,
  caption at line 1644.
- Table 18 (code-based ranking, 47 tasks): page 20, rows at lines 1648-1666,
  caption at line 1669.

In the PDF text every caption sits *below* its table, which is how rows were
assigned to tables.

Values are as published: percentages/points rounded independently to one
decimal place, so BA_norm may differ from TPR + TNR - 100 by up to 0.1.
Rows are kept in the paper's order (ranked by BA_norm, descending; the paper
ranks on unrounded scores, so rounded ties keep the published order).
"""

from __future__ import annotations

from typing import NamedTuple


class Row(NamedTuple):
    model: str
    harness: str
    ba_norm: float
    tpr: float | None
    tnr: float | None
    fpr_h: float | None


# Table 2 (page 6, lines 436-474). Rank 1..19, then the constant baseline.
TABLE_2: list[Row] = [
    Row("GPT-6-astra", "Pi", 62.1, 67.4, 94.6, 7.4),
    Row("Claude Opus 4.8", "Pi", 54.0, 67.7, 86.3, 13.5),
    Row("Kimi K3", "Pi", 53.4, 70.2, 83.2, 13.4),
    Row("GPT-5.6-sol", "Pi", 52.9, 56.8, 96.0, 0.8),
    Row("GPT-5.6-terra", "Pi", 52.9, 56.5, 96.3, 3.6),
    Row("GLM-5.2", "Pi", 48.8, 68.1, 80.8, 12.1),
    Row("Doubao Seed 2.1 Pro", "Pi", 46.8, 57.0, 89.9, 11.4),
    Row("GPT-5.5", "Pi", 46.6, 61.6, 85.1, 9.9),
    Row("DeepSeek V4 Pro", "Pi", 44.8, 65.5, 79.2, 10.1),
    Row("DeepSeek V4 Flash", "Pi", 40.5, 60.7, 79.8, 8.0),
    Row("Qwen3.7 Plus", "Pi", 40.2, 57.6, 82.6, 13.6),
    Row("Gemini 3.5 Flash", "Pi", 35.7, 52.4, 83.3, 13.2),
    Row("Kimi K2.6", "Pi", 35.2, 52.5, 82.7, 4.6),
    Row("Doubao Seed 2.0 Code", "Pi", 29.7, 45.0, 84.8, 12.3),
    Row("Doubao Seed 2.0 Lite", "Pi", 26.8, 41.1, 85.7, 10.5),
    Row("Doubao Seed 2.0 Pro", "Pi", 22.8, 27.4, 95.4, 6.8),
    Row("GPT-5.1", "Pi", 22.2, 35.2, 87.1, 9.7),
    Row("Gemini 2.5 Pro", "Pi", 14.2, 31.7, 82.5, 4.0),
    Row("Doubao Seed 2.0 Mini", "Pi", 10.6, 21.1, 89.5, 3.7),
    # Published as "Constant/random 0.0 — — —".
    Row("Constant/random", "-", 0.0, None, None, None),
]

# Table 12 (page 17, lines 1440-1458). Ordered by BA_norm, same order as Table 11.
TABLE_12: list[Row] = [
    Row("Claude Opus 4.8", "Claude Code", 66.2, 75.8, 90.4, 7.8),
    Row("GPT-6-astra", "Claude Code", 61.1, 68.0, 93.2, 9.6),
    Row("GPT-6-astra", "Codex", 58.0, 66.2, 91.8, 9.2),
    Row("GPT-6-astra", "mini-swe", 54.9, 61.9, 93.0, 9.5),
    Row("GPT-6-astra", "OpenClaw", 51.1, 63.2, 87.9, 9.1),
    Row("Gemini 3.5 Flash", "Gemini CLI", 50.7, 59.2, 91.5, 7.7),
    Row("Qwen3.7 Plus", "Claude Code", 48.9, 59.7, 89.1, 11.5),
    Row("GPT-5.6-sol", "Claude Code", 46.3, 49.0, 97.4, 2.3),
    Row("Qwen3.7 Plus", "mini-swe", 40.5, 53.3, 87.1, 12.7),
    Row("Qwen3.7 Plus", "OpenClaw", 39.9, 51.2, 88.6, 10.7),
    Row("GPT-5.6-sol", "mini-swe", 35.8, 38.4, 97.4, 1.1),
    Row("GPT-5.6-sol", "OpenClaw", 35.1, 38.7, 96.4, 0.6),
    Row("GPT-5.6-terra", "Codex", 31.0, 39.2, 91.8, 4.7),
    Row("GPT-5.5", "Codex", 30.3, 41.2, 89.1, 6.2),
    Row("GPT-5.6-sol", "Codex", 26.2, 32.3, 93.9, 1.0),
    Row("Qwen3.7 Plus", "Codex", 26.1, 34.0, 92.1, 6.5),
    Row("Gemini 2.5 Pro", "Gemini CLI", 5.0, 23.7, 81.3, 3.5),
]

# Table 16: tool-call tasks (95), Pi harness (page 19, lines 1596-1617).
TABLE_16: list[Row] = [
    Row("GPT-5.6-sol", "Pi", 85.2, 86.5, 98.7, 1.8),
    Row("GPT-6-astra", "Pi", 83.0, 92.8, 90.2, 17.1),
    Row("Kimi K2.6", "Pi", 79.6, 87.1, 92.5, 10.4),
    Row("GLM-5.2", "Pi", 75.9, 93.3, 82.6, 25.7),
    Row("DeepSeek V4 Flash", "Pi", 74.7, 87.8, 86.9, 18.2),
    Row("GPT-5.6-terra", "Pi", 74.6, 77.6, 96.9, 6.1),
    Row("Kimi K3", "Pi", 72.8, 92.2, 80.6, 31.0),
    Row("DeepSeek V4 Pro", "Pi", 71.0, 88.3, 82.7, 22.7),
    Row("Claude Opus 4.8", "Pi", 68.0, 92.1, 75.9, 31.1),
    Row("Doubao Seed 2.1 Pro", "Pi", 67.3, 83.2, 84.1, 22.5),
    Row("GPT-5.5", "Pi", 65.6, 87.4, 78.2, 23.2),
    Row("Gemini 3.5 Flash", "Pi", 64.6, 87.9, 76.7, 30.5),
    Row("GPT-5.1", "Pi", 59.1, 73.9, 85.2, 20.4),
    Row("Qwen3.7 Plus", "Pi", 57.5, 73.7, 83.9, 21.9),
    Row("Doubao Seed 2.0 Code", "Pi", 56.2, 73.7, 82.5, 23.3),
    Row("Gemini 2.5 Pro", "Pi", 54.8, 62.8, 92.0, 8.1),
    Row("Doubao Seed 2.0 Lite", "Pi", 53.7, 70.9, 82.9, 20.4),
    Row("Doubao Seed 2.0 Pro", "Pi", 44.3, 52.2, 92.1, 13.8),
    Row("Doubao Seed 2.0 Mini", "Pi", 26.9, 42.2, 84.7, 7.8),
]

# Table 17: state-based tasks (80), Pi harness (page 20, lines 1623-1644).
TABLE_17: list[Row] = [
    Row("Claude Opus 4.8", "Pi", 34.6, 41.2, 93.3, 0.5),
    Row("Qwen3.7 Plus", "Pi", 30.7, 49.0, 81.7, 10.5),
    Row("Doubao Seed 2.1 Pro", "Pi", 30.0, 36.1, 93.9, 3.6),
    Row("GPT-5.6-terra", "Pi", 30.0, 35.0, 95.0, 2.8),
    Row("GPT-6-astra", "Pi", 29.1, 31.0, 98.1, 0.2),
    Row("Gemini 3.5 Flash", "Pi", 27.6, 33.6, 94.0, 0.5),
    Row("GPT-5.5", "Pi", 19.0, 32.3, 86.7, 0.0),
    Row("Kimi K3", "Pi", 16.5, 38.6, 77.9, 0.5),
    Row("GPT-5.6-sol", "Pi", 16.1, 23.0, 93.1, 0.0),
    Row("Doubao Seed 2.0 Code", "Pi", 13.9, 27.5, 86.4, 6.5),
    Row("GLM-5.2", "Pi", 11.3, 39.9, 71.4, 3.0),
    Row("Doubao Seed 2.0 Lite", "Pi", 9.2, 21.1, 88.1, 5.0),
    Row("Doubao Seed 2.0 Pro", "Pi", 5.0, 7.5, 97.5, 2.5),
    Row("Doubao Seed 2.0 Mini", "Pi", 0.8, 4.7, 96.1, 0.9),
    Row("DeepSeek V4 Pro", "Pi", 0.6, 33.8, 66.9, 1.1),
    Row("GPT-5.1", "Pi", -4.8, 9.8, 85.4, 2.8),
    Row("Kimi K2.6", "Pi", -5.6, 23.6, 70.8, 0.5),
    Row("DeepSeek V4 Flash", "Pi", -7.8, 28.3, 63.8, 0.5),
    Row("Gemini 2.5 Pro", "Pi", -10.6, 10.9, 78.5, 1.5),
]

# Table 18: code-based tasks (47), Pi harness (page 20, lines 1648-1669).
TABLE_18: list[Row] = [
    Row("Kimi K3", "Pi", 76.9, 79.5, 97.5, 0.0),
    Row("GPT-6-astra", "Pi", 75.8, 78.3, 97.5, 0.0),
    Row("DeepSeek V4 Pro", "Pi", 66.8, 73.6, 93.2, 0.0),
    Row("Claude Opus 4.8", "Pi", 59.0, 63.4, 95.6, 0.0),
    Row("GLM-5.2", "Pi", 58.1, 65.1, 93.0, 0.0),
    Row("GPT-5.5", "Pi", 55.4, 59.1, 96.2, 0.0),
    Row("DeepSeek V4 Flash", "Pi", 53.9, 61.3, 92.7, 0.0),
    Row("GPT-5.6-sol", "Pi", 50.1, 54.5, 95.6, 0.0),
    Row("GPT-5.6-terra", "Pi", 47.9, 50.6, 97.3, 0.0),
    Row("Doubao Seed 2.1 Pro", "Pi", 34.2, 39.5, 94.8, 2.1),
    Row("Qwen3.7 Plus", "Pi", 21.4, 40.0, 81.4, 2.1),
    Row("Kimi K2.6", "Pi", 15.0, 31.9, 83.1, 0.0),
    Row("Doubao Seed 2.0 Pro", "Pi", 9.9, 11.2, 98.7, 0.0),
    Row("Doubao Seed 2.0 Code", "Pi", 3.1, 16.6, 86.5, 0.0),
    Row("Doubao Seed 2.0 Lite", "Pi", 2.3, 14.9, 87.4, 0.0),
    Row("Doubao Seed 2.0 Mini", "Pi", -5.6, 6.4, 88.0, 0.0),
    Row("GPT-5.1", "Pi", -6.4, 0.0, 93.6, 0.0),
    Row("Gemini 3.5 Flash", "Pi", -8.8, 12.8, 78.5, 0.0),
    Row("Gemini 2.5 Pro", "Pi", -25.9, 4.3, 69.9, 0.0),
]

TABLES: dict[str, list[Row]] = {
    "2": TABLE_2,
    "12": TABLE_12,
    "16": TABLE_16,
    "17": TABLE_17,
    "18": TABLE_18,
}

# The tasks each published table is computed on (its caption).
TASKS: dict[str, int] = {"2": 222, "12": 222, "16": 95, "17": 80, "18": 47}

CAPTIONS: dict[str, str] = {
    "2": "Main results with the common Pi harness, on the same 222 tasks and "
    "ordered by BA_norm = TPR + TNR - 100.",
    "12": "Full results for alternative harness configurations. The 17 "
    "configurations outside the common Pi harness, ordered by BA_norm and "
    "scored on the same 222 tasks as Table 2.",
    "16": "Tool-call verification ranking. All 19 models use the Pi harness, "
    "evaluated on the same 95 tasks.",
    "17": "State-based verification ranking. All 19 models use the Pi harness, "
    "evaluated on the same 80 tasks.",
    "18": "Code-based verification ranking. All 19 models use the Pi harness, "
    "evaluated on the same 47 tasks.",
}
