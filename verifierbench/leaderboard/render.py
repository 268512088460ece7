"""Writes tables as CSV, Markdown and LaTeX, and one self-contained HTML page (jinja2) with the
figures embedded. Each float is rounded on its own to one decimal (`metrics.display`)."""

from __future__ import annotations

import base64
import csv
import io
from pathlib import Path

from jinja2 import Environment, select_autoescape

from verifierbench.leaderboard.tables import Cell, Table
from verifierbench.core.metrics import display


def cell(value: Cell) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return display(value)
    return str(value)


def to_csv(table: Table) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.columns)
    writer.writerows([[cell(v) for v in row] for row in table.rows])
    return out.getvalue()


def to_markdown(table: Table) -> str:
    def line(values: list[str]) -> str:
        return "| " + " | ".join(v.replace("|", "\\|").replace("\n", "<br>") for v in values) + " |"

    lines = [f"### {table.title}", "", line(table.columns), line(["---"] * len(table.columns))]
    lines += [line([cell(v) for v in row]) for row in table.rows]
    if table.note:
        lines += ["", table.note]
    return "\n".join(lines) + "\n"


_TEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "→": r"$\to$"}


def tex_escape(text: str) -> str:
    return "".join(_TEX_ESCAPES.get(c, c) for c in text)


def to_latex(table: Table) -> str:
    spec = "l" * 2 + "r" * (len(table.columns) - 2)
    lines = [r"\begin{table}[t]", r"\centering", r"\small", rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(tex_escape(c) for c in table.columns) + r" \\", r"\midrule"]
    lines += [" & ".join(tex_escape(cell(v)) for v in row) + r" \\" for row in table.rows]
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{tex_escape(table.title)}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 2em; font-size: 14px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f0f0f0; }
figure { display: inline-block; margin: 0 1em 2em 0; }
img { max-width: 640px; border: 1px solid #ddd; }
img[data-figure="figure4_category_heatmap"] { max-width: min(100%, 1100px); }  /* cells readable at page width */
.note { color: #666; font-size: 13px; }
table[data-table="tasks"] td { white-space: pre-wrap; vertical-align: top; max-width: 50em; }
</style></head><body>
<h1>{{ title }}</h1>
<p class="note">{{ subtitle }}</p>
{% for table in tables %}
<h2 id="{{ table.key }}">{{ table.title }}</h2>
<table class="leaderboard" data-table="{{ table.key }}">
<thead><tr>{% for c in table.columns %}<th>{{ c }}</th>{% endfor %}</tr></thead>
<tbody>{% for row in table.cells %}<tr>{% for v, numeric in row %}<td{% if numeric %} class="num"{% endif %}>{{ v }}</td>{% endfor %}</tr>{% endfor %}</tbody>
</table>
{% if not table.cells %}<p class="note">No configuration in these logs applies.</p>{% endif %}
{% if table.note %}<p class="note">{{ table.note }}</p>{% endif %}
{% endfor %}
<h2>Figures</h2>
{% for name, data in figures %}
<figure><img alt="{{ name }}" data-figure="{{ name }}" onload="this.dataset.loaded = this.naturalWidth" src="data:image/png;base64,{{ data }}"><figcaption>{{ name }}</figcaption></figure>
{% endfor %}
</body></html>
"""


def to_html(tables: list[Table], figures: dict[str, bytes], title: str, subtitle: str) -> str:
    env = Environment(autoescape=select_autoescape(default=True, default_for_string=True))
    rows = [{"key": t.key, "title": t.title, "columns": t.columns, "note": t.note,
             "cells": [[(cell(v), isinstance(v, (int, float))) for v in row] for row in t.rows]} for t in tables]
    encoded = [(name, base64.b64encode(data).decode("ascii")) for name, data in figures.items()]
    return env.from_string(PAGE).render(title=title, subtitle=subtitle, tables=rows, figures=encoded)


def write_all(tables: list[Table], figures: dict[str, bytes], out: Path, figures_dir: Path, title: str, subtitle: str) -> list[Path]:
    """Writes every table in three formats, the figures as PNG, and index.html; returns the paths."""
    out.mkdir(parents=True, exist_ok=True)
    figures_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for table in tables:
        for suffix, render in ((".csv", to_csv), (".md", to_markdown), (".tex", to_latex)):
            path = out / f"{table.key}{suffix}"
            path.write_text(render(table), encoding="utf-8")
            written.append(path)
    for name, data in figures.items():
        path = figures_dir / f"{name}.png"
        path.write_bytes(data)
        written.append(path)
    (out / "tables.md").write_text("\n".join(to_markdown(t) for t in tables), encoding="utf-8")
    index = out / "index.html"
    index.write_text(to_html(tables, figures, title, subtitle), encoding="utf-8")
    return written + [out / "tables.md", index]
