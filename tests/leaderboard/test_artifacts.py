"""`verifierbench leaderboard` and `paper` from logs of five configurations of the model-free
policies (one audited by TestJack in the same eval): every table, figure and the HTML page, checked in
headless chromium."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess

import pytest

from tests.cli.test_cli import cli
from tests.conftest import first_tasks, logs_of, private_copy, skip_unless_required
from tests.harness.inspect_cli import inspect
from verifierbench.leaderboard.tables import AUDIT_COLUMNS, CI_COLUMN, TABLE2_COLUMNS
from verifierbench.core.metrics import display

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("bwrap_available")]
SHARED_RUNS = ["verifierbench/always_accept", "verifierbench/always_reject"]  # bfcl_policy_logs' (the same options)
# single_reply_logs' (the heuristic through the single-reply harness, the same tasks) is the sixth configuration.
OWN_RUNS = [  # made here
    ("verifierbench/heuristic", "-T", "audit=true"),  # hidden_cases, then the TestJack audit: the audited columns
    ("verifierbench/heuristic", "--reasoning-effort", "high"),
]
CONFIGURATIONS = len(SHARED_RUNS) + 1 + len(OWN_RUNS)  # one log and one leaderboard row each
TABLES = ["table_02_main", "table_16_tool_call", "table_11_harness", "table_13_effort", "table_15_budget", "table_19_groups",
          "table_20_rejection", "table_21_valid", "table_22_concentration", "table_23_acceptance", "table_24_audited_sources"]
LEADERBOARD_TABLES = ["runs", *TABLES, "tasks"]  # the leaderboard adds every run's status and coverage, and its per-task view
FIGURES = ["tpr_tnr", "figure4_category_heatmap", "figure5_concentration"]


@pytest.fixture(scope="module")
def logs(tmp_path_factory, bfcl_suite, bfcl_policy_logs, single_reply_logs):
    root = logs_of(bfcl_policy_logs, SHARED_RUNS, tmp_path_factory.mktemp("five") / "logs")
    logs_of(single_reply_logs, ["verifierbench/heuristic"], root)
    for model, *extra in OWN_RUNS:
        result = inspect("eval", "verifierbench/verifierbench", "--model", model, "-T", f"suite={bfcl_suite}",
                         "-T", f"task_ids={first_tasks(bfcl_suite, 6)}", "--log-dir", str(root), *extra)
        assert result.returncode == 0, result.stderr[-3000:]
    return root


@pytest.fixture(scope="module")
def written(logs, tmp_path_factory):
    out = tmp_path_factory.mktemp("board")
    result = cli("leaderboard", str(logs), "--out", str(out / "tables"), "--figures", str(out / "figures"))
    assert result.returncode == 0, result.stderr
    assert "verifierbench/heuristic [single_reply]" in result.stdout and "Constant/random" in result.stdout
    return out


@pytest.fixture(scope="module")
def ranked(logs) -> dict:
    """`leaderboard --no-write --json` on the logs, once for the tests that read its rows."""
    result = cli("leaderboard", str(logs), "--no-write", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def rows(path):
    with open(path) as handle:
        return list(csv.DictReader(handle))


def test_every_table_in_three_formats_and_every_figure(written):
    for table in LEADERBOARD_TABLES:
        for suffix in (".csv", ".md", ".tex"):
            assert (written / "tables" / f"{table}{suffix}").stat().st_size > 0, table + suffix
    for figure in FIGURES:
        assert (written / "figures" / f"{figure}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(rows(written / "tables" / "table_02_main.csv")) == CONFIGURATIONS + 1  # plus the constant/random baseline row
    assert "\\begin{tabular}" in (written / "tables" / "table_02_main.tex").read_text()


def test_ba_norm_is_tpr_plus_tnr_minus_100_and_types_use_the_same_round(ranked):
    result = ranked
    assert len(result) == CONFIGURATIONS
    for name, r in result.items():
        assert r["BA_norm"] == pytest.approx(r["TPR"] + r["TNR"] - 100), name
        assert r["by_type"]["tool-call"]["BA_norm"] == pytest.approx(r["BA_norm"])  # one type: the same verifiers and round
    assert result["verifierbench/always_reject"]["TNR"] == 100.0


def test_the_main_table_gives_a_bootstrap_interval_from_the_median_round(ranked, written):
    result = ranked
    for name, r in result.items():
        low, high = r["BA_norm_ci"]
        assert low <= r["BA_norm"] <= high, name
    assert result["verifierbench/always_reject"]["BA_norm_ci"] == [0.0, 0.0]  # every task 0: nothing to resample
    table = {r["Configuration"]: r for r in rows(written / "tables" / "table_02_main.csv")}
    heuristic = table["verifierbench/heuristic"]
    low, high = result["verifierbench/heuristic"]["BA_norm_ci"]
    assert heuristic[CI_COLUMN] == f"[{display(low)}, {display(high)}]" and low < high
    assert CI_COLUMN in (written / "tables" / "index.html").read_text()


def test_a_truncated_log_among_good_ones_is_skipped_with_a_warning(logs, tmp_path):
    mixed = tmp_path / "mixed"
    shutil.copytree(logs, mixed)
    good = sorted(mixed.glob("*.eval"))[0]
    truncated = mixed / ("2026-01-01T00-00-00+00-00_truncated_" + good.name.split("_", 1)[1])
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    (mixed / "EXPECTED_ERROR").touch()  # the truncation is the point: scripts/check_eval_logs.py skips it
    result = cli("leaderboard", str(mixed), "--no-write", "--json")
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)) == CONFIGURATIONS
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    (warning,) = [line for line in warnings if truncated.name in line]
    assert "not a readable Inspect log" in warning
    assert warnings == [warning]  # every other log is complete (its six tasks named by task_ids, all scored)


def test_the_per_task_view_names_each_task_in_its_source(written):
    tasks = rows(written / "tables" / "tasks.csv")
    assert tasks and all(r["Source"] == "bfcl" and r["Source id"] not in ("", "-") for r in tasks)


def test_harness_and_effort_tables_pair_configurations(written):
    (harness,) = rows(written / "tables" / "table_11_harness.csv")
    assert harness["Harness"] == "single_reply" and harness["Model"] == "verifierbench/heuristic"
    delta = float(harness["BA_norm alternative"]) - float(harness["BA_norm default"])
    assert float(harness["Delta BA_norm"]) == pytest.approx(delta, abs=0.11)  # each value rounded on its own
    (effort,) = rows(written / "tables" / "table_13_effort.csv")
    assert effort["Effort"] == "high"


def test_the_page_shows_every_table_and_figure_in_headless_chromium(written, tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        skip_unless_required("browser", "chromium is not installed and could not be (scripts/test.sh installs it as root with apt)")
    page = (written / "tables" / "index.html").resolve().as_uri()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    shot = tmp_path / "page.png"
    subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1400,2400", page], capture_output=True, timeout=120)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    dom = subprocess.run([browser, *flags, "--virtual-time-budget=5000", "--dump-dom", page], capture_output=True, text=True, timeout=120).stdout
    assert dom.count('class="leaderboard"') == len(LEADERBOARD_TABLES)
    assert "verifierbench/heuristic" in dom
    for figure in FIGURES:  # each image decoded by the browser: its onload recorded a non-zero width
        assert f'data-figure="{figure}"' in dom
    loaded = [int(v) for v in re.findall(r'data-loaded="(\d+)"', dom)]
    assert len(loaded) == len(FIGURES) and min(loaded) > 0
    # The audited columns beside the hidden-suite ones, as the browser parsed the page: values for the audited configuration only.
    main = dom[dom.index('data-table="table_02_main"'):]
    main = main[:main.index("</table>")]
    assert re.findall(r"<th>(.*?)</th>", main) == TABLE2_COLUMNS + AUDIT_COLUMNS
    cells = {row[1]: dict(zip(TABLE2_COLUMNS + AUDIT_COLUMNS, row)) for row in
             (re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr>(.*?)</tr>", main, re.S)) if row}
    heuristic = cells["verifierbench/heuristic"]
    assert re.fullmatch(r"-?\d+\.\d", heuristic["Audited BA_norm"]) and re.fullmatch(r"\d+/\d+", heuristic["Perfect→refuted"])
    assert cells["verifierbench/always_accept"]["Audited BA_norm"] == "-"


def test_audited_columns_agree_with_the_audit_scorer_in_the_log(logs, ranked, written):
    from inspect_ai.log import read_eval_log

    audited_log = next(l for l in (read_eval_log(str(p)) for p in logs.glob("*.eval"))
                       if any(s.name == "testjack_audit" for s in l.results.scores))
    metrics = next(s for s in audited_log.results.scores if s.name == "testjack_audit").metrics
    result = ranked
    audit = result["verifierbench/heuristic"]["audited"]
    assert audit["n_tasks"] == 6 and audit["BA_norm"] == pytest.approx(metrics["BA_norm"].value)
    assert audit["refuted_share"] == pytest.approx(metrics["refuted_rate"].value)
    assert audit["BA_norm"] <= result["verifierbench/heuristic"]["BA_norm"]  # witnesses only add cases it gets wrong
    assert result["verifierbench/always_accept"]["audited"] is None
    row = next(r for r in rows(written / "tables" / "table_24_audited_sources.csv") if r["Configuration"] == "verifierbench/heuristic")
    assert row["Source"] == "bfcl" and row["Audited/N"] == "6/6"


def test_logs_without_audit_scores_render_as_before(logs, tmp_path):
    from inspect_ai.log import read_eval_log

    plain = tmp_path / "plain"
    plain.mkdir()
    for path in logs.glob("*.eval"):
        if read_eval_log(str(path), header_only=True).eval.model in ("verifierbench/always_accept", "verifierbench/always_reject"):
            shutil.copy(path, plain / path.name)
    result = cli("leaderboard", str(plain), "--out", str(tmp_path / "tables"), "--figures", str(tmp_path / "figures"))
    assert result.returncode == 0, result.stderr
    with open(tmp_path / "tables" / "table_02_main.csv") as handle:
        assert next(csv.reader(handle)) == TABLE2_COLUMNS  # the audit columns left out, not empty
    assert not (tmp_path / "tables" / "table_24_audited_sources.csv").exists()
    assert "Audited" not in (tmp_path / "tables" / "index.html").read_text()


def test_paper_regenerates_suite_tables_and_compares_with_the_published_values(logs, bfcl_suite, tmp_path):
    suite = private_copy(bfcl_suite, tmp_path)
    assert cli("screen", "--suite", str(suite), "--out", str(tmp_path / "screening")).returncode == 0
    result = cli("paper", "--logs", str(logs), "--suite", str(suite), "--screening", str(tmp_path / "screening"),
                 "--out", str(tmp_path / "paper"), "--figures", str(tmp_path / "fig"))
    assert result.returncode == 0, result.stderr
    for table in ("table_01_suite", "table_06_cases", "table_08_screening", "table_09_mutations", "table_10_categories", "comparison_table_02",
                  "comparison_table_12", "comparison_table_16", "comparison_table_17", "comparison_table_18", *TABLES):
        assert (tmp_path / "paper" / f"{table}.csv").exists(), table
    compared = rows(tmp_path / "paper" / "comparison_table_02.csv")
    gpt = next(r for r in compared if r["Model"] == "GPT-5.1")
    assert (gpt["BA_norm (paper)"], gpt["TPR (paper)"], gpt["TNR (paper)"]) == ("22.2", "35.2", "87.1")
    assert any(r["Model"] == "verifierbench/heuristic" and r["BA_norm (ours)"] != "-" and r["95% CI (ours)"].startswith("[")
               for r in compared)
    # Every configuration of the logs in every comparison (Table 12, of alternative harnesses: the single_reply one),
    # with its harness, the harness's version and the tasks it was ranked on.
    for number in ("02", "12", "16"):
        ours = [r for r in rows(tmp_path / "paper" / f"comparison_table_{number}.csv") if r["N (paper)"] == "-"]
        single = next(r for r in ours if r["Model"] == "verifierbench/heuristic [single_reply]")
        assert (single["Harness (ours)"], single["N (ours)"]) == ("single_reply", "6")
        assert single["Harness version (ours)"].startswith("verifierbench task ")
        assert len(ours) == (1 if number == "12" else CONFIGURATIONS), number
    screening = rows(tmp_path / "paper" / "table_08_screening.csv")
    assert screening[0]["Source"] == "bfcl" and screening[0]["Build excluded D"] == "5" and screening[0]["Retained"] == "45"
    (mutations,) = rows(tmp_path / "paper" / "table_09_mutations.csv")
    assert int(mutations["Operators"]) >= 9 and mutations["Detected"] == mutations["Configurations"]
    assert "Paper Table 2 against ours" in result.stdout


def test_logs_from_before_task_version_1_b_read_as_before(logs, ranked, bfcl_suite, tmp_path):
    """Logs written before 1-B (metrics named `BA_norm[bfcl]`, a `round` metric, no suite path or hash) rank as the same
    logs do now, beside new ones; `paper` finds the suite through the new logs."""
    from inspect_ai.log import EvalMetric, read_eval_log, write_eval_log

    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for number, path in enumerate(sorted(logs.glob("*.eval"))):
        log = read_eval_log(str(path))
        if number % 2 == 0:  # every other log as the older version wrote it
            score = log.results.scores[0]
            renamed = {}
            for name, value in score.metrics.items():
                sliced = re.fullmatch(r"(BA_norm|TPR|TNR|FPR_h)_(.+)", name)
                if name != "BA_norm_stderr":
                    old_name = f"{sliced[1]}[{sliced[2]}]" if sliced else name
                    renamed[old_name] = EvalMetric(name=old_name, value=value.value)
            renamed["round"] = EvalMetric(name="round", value=1.0)
            score.metrics = renamed
            log.eval.metadata = {k: v for k, v in log.eval.metadata.items() if k not in ("suite_dir", "suite_hash")}
            log.eval.task_version = 1
        write_eval_log(log, str(mixed / path.name))
    before = ranked
    after = json.loads(cli("leaderboard", str(mixed), "--no-write", "--json").stdout)
    assert {n: (r["BA_norm"], r["TPR"], r["TNR"], r["BA_norm_ci"]) for n, r in after.items()} == \
           {n: (r["BA_norm"], r["TPR"], r["TNR"], r["BA_norm_ci"]) for n, r in before.items()}
    result = cli("paper", "--logs", str(mixed), "--screening", str(tmp_path / "none"), "--out", str(tmp_path / "paper"),
                 "--figures", str(tmp_path / "fig"))
    assert result.returncode == 0, result.stderr
    assert f"suite {bfcl_suite}" in (tmp_path / "paper" / "index.html").read_text()
