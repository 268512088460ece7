"""Each harness on a tool-call, a state and a code task with a model-free policy, one `inspect eval` per harness and
suite: per sample wall time, model turns, and, against the default harness of the same run on the same samples, the
**added seconds per model turn** and the **fixed seconds per sample** (issue 53's targets: <= 0.25 s and <= 3 s).

A sample's time splits at its model events: `span` runs from the first model call's start to the last one's end,
the rest (sandbox set-up, the CLI's start-up, scoring) is outside it. Per harness and sample:
added per turn = span / turns - default's span / default's turns; fixed = (wall - span) - default's (wall - span).
Each call's own seconds and the gaps between calls (the CLI's turn: its tools, its own work) are listed per sample.
Each CLI's start-up (`--version` on its checked vgb toolchain; node's own, `node -e 0`) is reported apart.

`--delay S` puts the model behind a loopback OpenAI-compatible server (Inspect's `openai-api` provider) that answers
with the same policy after S seconds, to show the ratio a real model would see. That server has no sample store, so
the policy there skips its look at the public environment on state and code tasks (one turn fewer, for every harness).

    .venv/bin/python benchmarks/harness_overhead.py --suite tool-call=DIR --suite state=DIR --suite code=DIR \\
        --harness default --harness pi@vgb --harness claude_code@docker --limit 3 [--delay 5] [--out rows.jsonl] \\
        [--keep-logs DIR]

A harness is NAME[@SANDBOX] (vgb unless named); docker needs the project's engine and the image of
scripts/harness-clis.sh.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from inspect_ai.log import list_eval_logs, read_eval_log

REPO_ROOT = Path(__file__).resolve().parents[1]
INSPECT = str(Path(sys.executable).parent / "inspect")


def run(harness: str, sandbox: str, suite: Path, limit: int, model_args: list[str], extra: list[str],
        keep: Path | None = None) -> dict:
    """One eval's row; its log is kept under `keep` (a directory of its own) when given, else removed."""
    with tempfile.TemporaryDirectory(prefix="vgb-harness-bench-") as scratch:
        log_dir = str(keep) if keep else scratch
        started = time.monotonic()
        result = subprocess.run([INSPECT, "eval", "verifierbench/verifierbench", *model_args, "-T", f"suite={suite}",
                                 "-T", f"harness={harness}", "-T", f"sandbox={sandbox}", "--limit", str(limit), *extra,
                                 "--log-dir", log_dir], capture_output=True, text=True, cwd=REPO_ROOT,
                                env={**os.environ, "INSPECT_DISPLAY": "none", "LOCAL_API_KEY": "unused"})
        elapsed = time.monotonic() - started
        logs = list_eval_logs(log_dir)
        if result.returncode != 0 or not logs:
            return {"error": (result.stderr + result.stdout)[-1500:]}
        log = read_eval_log(logs[0])
    samples = log.samples or []
    decisions = [d for s in samples if "hidden_cases" in s.scores for case in s.scores["hidden_cases"].metadata.get("cases", [])
                 for d in case["decisions"]]
    return {
        "status": log.status, "eval_s": round(elapsed, 1), "samples": {str(s.id): timing(s) for s in samples},
        "errors": [str(s.error.message)[:200] for s in samples if s.error],
        "P": decisions.count("P"), "F": decisions.count("F"), "U": decisions.count("U"),
        "submitted": [s.scores["hidden_cases"].value.get("submitted") for s in samples if "hidden_cases" in s.scores],
        "harness_version": (log.eval.metadata or {}).get("harness_version"),
        "harness_transport": (log.eval.metadata or {}).get("harness_transport"),
    }


def timing(sample: Any) -> dict[str, float]:
    """Wall time, model turns, the span of the model calls (first start to last end) of one sample, and what came
    before the first call (sandbox set-up, the CLI's start-up) and after the last (the CLI's exit, scoring)."""
    calls = [e for e in sample.events if e.event == "model"]
    if not calls:
        return {"wall_s": round(sample.total_time or 0, 2), "turns": 0, "span_s": 0.0}
    first, last = min(e.timestamp for e in calls), max(e.completed or e.timestamp for e in calls)
    started, ended = sample.events[0].timestamp, max(e.timestamp for e in sample.events)
    ordered = sorted(calls, key=lambda e: e.timestamp)
    return {"wall_s": round(sample.total_time or 0, 2), "turns": len(calls), "span_s": round((last - first).total_seconds(), 2),
            "lead_s": round((first - started).total_seconds(), 2), "tail_s": round((ended - last).total_seconds(), 2),
            # each model call's own seconds, and the seconds between one call's answer and the next call (the CLI's turn)
            "calls_s": [round(((e.completed or e.timestamp) - e.timestamp).total_seconds(), 2) for e in ordered],
            "gaps_s": [round((after.timestamp - (before.completed or before.timestamp)).total_seconds(), 2)
                       for before, after in zip(ordered, ordered[1:])]}


def against(row: dict, baseline: dict) -> dict:
    """Added seconds per model turn and fixed seconds per sample against the baseline's samples of the same ids
    (means over the samples both ran)."""
    added, fixed = [], []
    for sample_id, mine in row["samples"].items():
        base = baseline["samples"].get(sample_id)
        if not base or not mine["turns"] or not base["turns"]:
            continue
        added.append(mine["span_s"] / mine["turns"] - base["span_s"] / base["turns"])
        fixed.append((mine["wall_s"] - mine["span_s"]) - (base["wall_s"] - base["span_s"]))
    return {"added_s_per_turn": round(statistics.mean(added), 3) if added else None,
            "fixed_s_per_sample": round(statistics.mean(fixed), 2) if fixed else None}


def summary(row: dict) -> dict:
    samples = list(row.get("samples", {}).values())
    return {"mean_wall_s": round(statistics.mean(s["wall_s"] for s in samples), 2) if samples else None,
            "turns": [s["turns"] for s in samples]}


# -- the CLIs' start-up ---------------------------------------------------------------------------------------------

def cli_startup(repeat: int = 3) -> dict:
    """Median seconds of node's own start (`node -e 0`) and of each CLI's start on its checked vgb toolchain (host, no
    sandbox, a fresh HOME): `--version`, or for mini-swe-agent (which has none) importing its CLI and litellm. What a
    CLI spends here it spends again before its first model call in every sample."""
    from verifierbench.harness import claude_vgb, codex_vgb, gemini_vgb, mini_vgb, openclaw_vgb, pi_vgb

    node = pi_vgb.toolchain().node
    bin_of = {"pi": pi_vgb.toolchain().tree, "gemini": gemini_vgb.toolchain().tree, "openclaw": openclaw_vgb.toolchain().tree}
    commands = {"node_e0_s": [node, "-e", "0"],
                **{f"{cli}_version_s": [node, f"{tree}/node_modules/.bin/{cli}", "--version"] for cli, tree in bin_of.items()},
                "claude_version_s": [claude_vgb.toolchain(), "--version"],
                "codex_version_s": [f"{codex_vgb.toolchain()}/codex", "--version"],
                "mini_import_s": [mini_vgb.PYTHON, "-c", "import minisweagent.run.mini, litellm"]}

    # offline, as in the sandbox: pi's update check and litellm's price list are not fetched
    quiet = {"PATH": "/usr/local/bin:/usr/bin:/bin", "PI_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
             "PYTHONPATH": mini_vgb.toolchain(), "NODE_OPTIONS": pi_vgb.NODE_OPTIONS}

    def median(argv: list[str]) -> float:
        times = []
        for _ in range(repeat):
            with tempfile.TemporaryDirectory(prefix="vgb-cli-home-") as home:
                started = time.monotonic()
                subprocess.run(argv, capture_output=True, check=True, env={**quiet, "HOME": home})
                times.append(time.monotonic() - started)
        return round(statistics.median(times), 3)

    return {name: median(argv) for name, argv in commands.items()}


# -- the delayed loopback model -------------------------------------------------------------------------------------

def delayed_policy_server(policy: str, delay_s: float) -> ThreadingHTTPServer:
    """An OpenAI-compatible chat-completions server on 127.0.0.1 that answers with the model-free `policy` (run in
    this process, on one event loop of its own) after `delay_s` seconds; `server.server_port` is its port."""
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    model = asyncio.run_coroutine_threadsafe(_make_model(policy), loop).result()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            started = time.monotonic()
            completion = asyncio.run_coroutine_threadsafe(_answer(model, request), loop).result()
            time.sleep(max(0.0, delay_s - (time.monotonic() - started)))
            data = json.dumps(completion).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


async def _make_model(policy: str) -> Any:
    import verifierbench._registry  # noqa: F401 - registers the policies as Inspect models
    from inspect_ai.model import get_model

    return get_model(f"verifierbench/{policy}")


async def _answer(model: Any, request: dict) -> dict:
    from inspect_ai.model import messages_from_openai
    from inspect_ai.tool import ToolInfo, ToolParams

    messages = await messages_from_openai(request.get("messages", []))
    tools = [ToolInfo(name=t["function"]["name"], description=t["function"].get("description", ""),
                      parameters=ToolParams(**(t["function"].get("parameters") or {})))
             for t in request.get("tools") or [] if t.get("type") == "function"]
    output = await model.generate(messages, tools=tools)
    message = output.message
    calls = [{"id": call.id, "type": "function", "function": {"name": call.function, "arguments": json.dumps(call.arguments)}}
             for call in message.tool_calls or []]
    reply: dict[str, Any] = {"role": "assistant", "content": message.text or ""}
    if calls:
        reply["tool_calls"] = calls
    return {"id": "chatcmpl-delayed", "object": "chat.completion", "created": int(time.time()), "model": "delayed",
            "choices": [{"index": 0, "message": reply, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def engine_environment() -> None:
    """Points this process (and so Inspect) at the engine of scripts/docker-engine.sh unless DOCKER_HOST is set."""
    if "DOCKER_HOST" in os.environ:
        return
    exports = subprocess.run(["bash", str(REPO_ROOT / "scripts" / "docker-engine.sh"), "env"], capture_output=True,
                             text=True).stdout
    for item in exports.removeprefix("export ").split():
        name, value = item.split("=", 1)
        os.environ[name] = value.replace("$PATH", os.environ.get("PATH", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", action="append", required=True, help="LABEL=DIR")
    parser.add_argument("--harness", action="append", required=True, help="NAME[@SANDBOX]; default is always run")
    parser.add_argument("--limit", type=int, default=3)
    parser.add_argument("--policy", default="heuristic")
    parser.add_argument("--delay", type=float, help="seconds: the policy behind a delayed loopback server")
    parser.add_argument("--out")
    parser.add_argument("--keep-logs", type=Path, help="DIR: keep each eval's log under DIR/SUITE-HARNESS-SANDBOX")
    parser.add_argument("extra", nargs="*", help="more inspect eval arguments (after --)")
    args = parser.parse_args()
    harnesses = [("default", "vgb")] + [tuple((h + "@vgb").split("@")[:2]) for h in args.harness if h != "default"]
    if any(sandbox == "docker" for _, sandbox in harnesses):
        engine_environment()
    model_args = ["--model", f"verifierbench/{args.policy}"]
    if args.delay is not None:
        server = delayed_policy_server(args.policy, args.delay)
        model_args = ["--model", "openai-api/local/delayed", "--model-base-url",
                      f"http://127.0.0.1:{server.server_port}/v1", "--timeout", "600"]
    emit({"cli_startup": cli_startup()}, args.out)
    for label, directory in (item.split("=", 1) for item in args.suite):
        baseline: dict = {}
        for harness, sandbox in harnesses:
            row = {"suite": label, "harness": harness, "sandbox": sandbox, "delay_s": args.delay,
                   **run(harness, sandbox, Path(directory), args.limit, model_args, args.extra,
                         args.keep_logs / f"{label}-{harness}-{sandbox}" if args.keep_logs else None)}
            if "samples" in row:
                baseline = baseline or row
                row |= summary(row) | against(row, baseline)
            emit(row, args.out)


def emit(row: dict, out: str | None) -> None:
    print(json.dumps(row), flush=True)
    if out:
        with open(out, "a") as handle:
            handle.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
