"""The paper's figures as PNG bytes (matplotlib, no display): TPR against TNR per configuration,
the Figure 4 heatmap (agreement and no-valid-output per category) and the Figure 5 bars
(share of false rejections from all-reject verifiers)."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from verifierbench.leaderboard.logs import ScoredRun  # noqa: E402
from verifierbench.core.schema import Category  # noqa: E402


def _png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def tpr_tnr(scored: list[ScoredRun]) -> bytes:
    fig, ax = plt.subplots(figsize=(6, 5))
    for s in scored:
        ax.scatter(s.result["TNR"], s.result["TPR"], s=30)
        ax.annotate(s.run.name, (s.result["TNR"], s.result["TPR"]), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.plot([0, 100], [100, 0], color="#999", linewidth=0.8, linestyle="--", label="BA_norm = 0")
    ax.set(xlim=(-2, 102), ylim=(-2, 102), xlabel="TNR (%)", ylabel="TPR (%)", title="TPR against TNR per configuration")
    ax.legend(loc="lower left", fontsize=8)
    return _png(fig)


def category_heatmap(scored: list[ScoredRun]) -> bytes:
    categories = [c for c in Category if any(c.value in s.result["by_category"] for s in scored)]
    agreement, missing = [], []
    for s in scored:
        a_row, m_row = [], []
        for c in categories:
            counts = s.result["by_category"].get(c.value, {"P": 0, "F": 0, "U": 0})
            total = counts["P"] + counts["F"] + counts["U"]
            agree = counts["P"] if c.label.value == "PASS" else counts["F"]
            a_row.append(100 * agree / total if total else float("nan"))
            m_row.append(100 * counts["U"] / total if total else float("nan"))
        agreement.append(a_row)
        missing.append(m_row)
    # The two panels stacked, not side by side: the page shows the figure at its width, and a wide pair of panels
    # shrinks to unreadable cells there.
    panel_height = 1.6 + 0.45 * len(scored)
    fig, axes = plt.subplots(2, 1, figsize=(max(7.0, 3.5 + 0.6 * len(categories)), 2 * panel_height + 1.5),
                             constrained_layout=True)
    for ax, data, title, cmap in ((axes[0], agreement, "agreement with label (%)", "RdYlGn"), (axes[1], missing, "no valid output (%)", "Greys")):
        image = ax.imshow(data, vmin=0, vmax=100, cmap=cmap, aspect="auto")
        ax.set_xticks(range(len(categories)), [c.value for c in categories], rotation=35, ha="right", fontsize=10)
        ax.set_yticks(range(len(scored)), [s.run.name for s in scored], fontsize=10)
        ax.set_title(title, fontsize=12)
        for i, row in enumerate(data):
            for j, value in enumerate(row):
                if value == value:  # not NaN
                    ax.text(j, i, f"{value:.0f}", ha="center", va="center", fontsize=9)
        fig.colorbar(image, ax=ax, fraction=0.03)
    fig.suptitle("Figure 4: per-category agreement and invalid outputs", fontsize=13)
    return _png(fig)


def concentration_bars(scored: list[ScoredRun]) -> bytes:
    names = [s.run.name for s in scored]
    shares = [s.result["all_reject"]["share_cases"] or 0.0 for s in scored]
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.35 * len(scored)))
    ax.barh(range(len(names)), shares, color="#c0504d")
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.invert_yaxis()
    ax.set(xlim=(0, 100), xlabel="false rejections of positives from all-reject verifiers (%)",
           title="Figure 5: all-reject concentration")
    return _png(fig)


def all_figures(scored: list[ScoredRun]) -> dict[str, bytes]:
    return {"tpr_tnr": tpr_tnr(scored), "figure4_category_heatmap": category_heatmap(scored),
            "figure5_concentration": concentration_bars(scored)}
