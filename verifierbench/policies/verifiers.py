"""The verifiers the model-free policies write, from what the task shows (its task.json).

- `always_accept` / `always_reject`: constant decisions (BA_norm 0 by construction).
- `random`: PASS or FAIL from a seeded hash of the candidate (deterministic per case and seed).
- `heuristic`: checks a careful reader could write without solving the task. Tool-call tasks: at
  least one call, known function names, required arguments present, no unknown arguments, JSON types
  and enums as declared, string arguments grounded in the request, and raw text that names the
  parsed calls. State tasks: some action, known tools (the customer's
  own calls checked against the task's `user_tools`), a replay with `vgb_env.run_public` whose
  observations match the recorded results (errors shown as "Error: ..."), no failure as the last call, and a final
  answer. Code tasks: a
  non-empty diff that leaves test code alone and does not consult the test runner, applies to the
  checkout, and keeps the repository's existing tests of the touched modules that pass on the base passing
  (`run_public`; the base is run only when the candidate's run fails), run in
  proportion to the task's budget: at most 5 django test modules, or on pytest repositories at most 3 test
  files and about 60 KB of test code (but always one), those named after a touched module first, smallest first.
"""

from __future__ import annotations

import json

POLICIES = ("always_accept", "always_reject", "random", "heuristic")

_HEADER = '''import hashlib, json, sys

with open(sys.argv[1]) as f:
    candidate = json.load(f)


def decide(decision, reason=""):
    with open(sys.argv[2], "w") as out:
        json.dump({"decision": decision, "reason": reason}, out)
    sys.exit(0)

'''

_HEURISTIC = '''
TOOLS = json.loads(__TOOLS__)
REQUEST = json.loads(__REQUEST__).lower()
TYPES = {
    "string": (str,), "integer": (int,), "number": (int, float), "float": (int, float), "boolean": (bool,),
    "array": (list,), "list": (list,), "tuple": (list,), "dict": (dict,), "object": (dict,),
}


def norm(name):
    return name.replace(".", "_")


USER_TOOLS = {norm(name) for name in json.loads(__USER_TOOLS__)}


def type_ok(value, schema):
    kind = (schema or {}).get("type")
    allowed = TYPES.get(kind)
    if allowed is None:
        return True
    if isinstance(value, bool) and bool not in allowed:
        return False
    return isinstance(value, allowed)


def grounded(value):
    words = [w for w in "".join(c if c.isalnum() else " " for c in value.lower()).split() if len(w) >= 3]
    return not words or any(w in REQUEST for w in words)


tools = {norm(t["name"]): t for t in TOOLS}
if isinstance(candidate, dict) and "diff" in candidate:  # a code task: a diff against /repo
    import os, re, vgb_env

    MAX_FILES, MAX_BYTES = 3, 60_000  # pytest: the test modules one run_public may run (see below)

    diff = candidate.get("diff")
    if not isinstance(diff, str) or "@@" not in diff:
        decide("FAIL", "no change")
    touched = re.findall(r"^\\+\\+\\+ b/(\\S+)", diff, re.M) + re.findall(r"^--- a/(\\S+)", diff, re.M)
    for path in touched:
        name = os.path.basename(path)
        if "tests/" in path or name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
            decide("FAIL", "edits test code: " + path)
    added = [line for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    if any("pytest" in line for line in added):
        decide("FAIL", "production code refers to the test runner")
    modules = {os.path.splitext(os.path.basename(p))[0] for p in touched if p.endswith(".py")} - {"__init__"}
    modules |= {m.lstrip("_") for m in modules if m.lstrip("_")}  # a private module (_axes) is tested as its public name
    tests = []
    for root, dirs, files in os.walk("/repo"):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if (name.startswith("test_") or name == "tests.py") and name.endswith(".py"):
                path = os.path.join(root, name)
                with open(path, errors="replace") as handle:
                    text = handle.read()
                if any(re.search(r"\\b" + re.escape(m) + r"\\b", text) for m in modules):
                    # Test files named after a touched module first (test_<module>.py, then a name containing it), then
                    # the smallest: the closest and cheapest.
                    exact = name in {"test_" + m + ".py" for m in modules}
                    rank = 0 if exact else 1 if any(m in name for m in modules) else 2
                    tests.append((rank, len(text), os.path.relpath(path, "/repo")))
    tests.sort()
    if os.path.isfile("/repo/tests/runtests.py"):  # django's runner takes labels (tests/a/b.py -> a.b), and is slower
        tests = [p[len("tests/"):-len(".py")].replace("/", ".") for _, _, p in tests[:20] if p.startswith("tests/")][:5]
    else:
        # pytest runs whole modules, and a repository's biggest (matplotlib's test_axes) take many minutes: the
        # closest first (named after a touched module, then the other related ones), smallest first, at most MAX_FILES
        # and MAX_BYTES of test code but always one, so the run fits the task's budget (set by its own hidden tests).
        chosen, size = [], 0
        for _, length, path in tests[:MAX_FILES]:
            if chosen and size + length > MAX_BYTES:
                break
            chosen.append(path)
            size += length
        tests = chosen
    try:
        run = vgb_env.run_public(diff=diff, tests=tests)
    except Exception as error:
        decide("FAIL", "cannot run: " + str(error))
    if not run.get("applied"):
        decide("FAIL", "the diff does not apply")
    if tests and run.get("exit_code") != 0:
        # Only tests that pass on the unchanged checkout count (a second run, which the task's budget allows for): an
        # environment's own failures, such as matplotlib's image comparisons under Debian's FreeType, are not the diff's.
        try:
            base = vgb_env.run_public(diff="", tests=tests)
        except Exception as error:
            decide("FAIL", "existing tests fail, and the base cannot run: " + str(error))
        now = run.get("outcomes") or {}
        if base.get("exit_code") == 0 or not now or any(
                outcome == "passed" and now.get(test) != "passed" for test, outcome in (base.get("outcomes") or {}).items()):
            decide("FAIL", "existing tests fail")
    decide("PASS", "applies and keeps the existing tests passing")
if isinstance(candidate, dict) and "messages" in candidate:  # a state task: an interaction record
    import vgb_env

    # A call sits on the message that made it: the customer's own calls (tau2 `user_tools`) on user messages.
    made = [(m.get("role"), c) for m in candidate.get("messages") or [] if isinstance(m, dict) for c in m.get("tool_calls") or []]
    calls = [c for _, c in made]
    if not calls:
        decide("FAIL", "no action taken")
    for role, call in made:
        offered = USER_TOOLS if role == "user" else tools
        if norm(str(call.get("name"))) not in offered:
            decide("FAIL", "unknown " + ("customer " if role == "user" else "") + "tool " + str(call.get("name")))
    try:
        replayed = vgb_env.run_public(candidate)
    except Exception as error:  # the budget spent, or a malformed record
        decide("FAIL", "cannot replay: " + str(error))
    shown = []  # what a record shows for each replayed call: its result, or "Error: <message>" (the candidate format)
    for seen in replayed["observations"]:
        shown.append(seen["result"] if "result" in seen else "Error: " + str(seen.get("error")))
    for call, result in zip(calls, shown):
        if call.get("result") != result:
            decide("FAIL", "recorded result of " + str(call.get("name")) + " differs from the replay")
    # A failed lookup the assistant recovers from is part of a valid interaction; ending on a failure is not.
    if shown and str(shown[-1]).startswith("Error"):
        decide("FAIL", "the last tool call failed")
    if not str(candidate.get("final_response") or "").strip():
        decide("FAIL", "no final answer")
    decide("PASS", "the record replays and answers")
if not isinstance(candidate, dict) or not isinstance(candidate.get("parsed"), list) or not candidate["parsed"]:
    decide("FAIL", "no tool call")
raw = candidate.get("raw") if isinstance(candidate.get("raw"), str) else ""
for call in candidate["parsed"]:
    if not isinstance(call, dict) or not isinstance(call.get("arguments"), dict):
        decide("FAIL", "malformed call")
    tool = tools.get(norm(str(call.get("name"))))
    if tool is None:
        decide("FAIL", "unknown function " + str(call.get("name")))
    if str(call["name"]).split(".")[-1] not in raw:
        decide("FAIL", "raw text does not name " + str(call["name"]))
    params = (tool.get("parameters") or {})
    props = params.get("properties") or {}
    for name in params.get("required") or []:
        if name not in call["arguments"]:
            decide("FAIL", "missing required argument " + name)
    for name, value in call["arguments"].items():
        if name not in props:
            decide("FAIL", "unknown argument " + name)
        if not type_ok(value, props[name]):
            decide("FAIL", "argument " + name + " has the wrong type")
        if "enum" in props[name] and value not in props[name]["enum"]:
            decide("FAIL", "argument " + name + " outside its enum")
        if isinstance(value, str) and not grounded(value):
            decide("FAIL", "argument " + name + " is not grounded in the request")
decide("PASS", "calls are well-formed")
'''


def verifier_source(policy: str, task: dict, seed: int = 0) -> str:
    """verify.py for a policy; `task` is the task.json the agent read (may be empty for constants)."""
    if policy == "always_accept":
        return _HEADER + 'decide("PASS")\n'
    if policy == "always_reject":
        return _HEADER + 'decide("FAIL")\n'
    if policy == "random":
        return _HEADER + (f'digest = hashlib.sha256(b"{int(seed)}:" + json.dumps(candidate, sort_keys=True).encode()).digest()\n'
                          'decide("PASS" if digest[0] % 2 else "FAIL")\n')
    if policy == "heuristic":
        tools = task.get("tools") or []
        user_tools = [t.get("name") if isinstance(t, dict) else t for t in task.get("user_tools") or []]
        request = user_request(task.get("instruction") or "")
        return ((_HEADER + _HEURISTIC).replace("__TOOLS__", _literal(tools)).replace("__USER_TOOLS__", _literal([str(n) for n in user_tools]))
                .replace("__REQUEST__", _literal(request)))
    raise ValueError(f"unknown policy {policy!r} (choose from {', '.join(POLICIES)})")


def _literal(value) -> str:
    """A Python literal of the value's JSON without backticks (JSON escapes them): the single-reply harness
    takes the verifier from a ``` block, and a prompt quoted in it must not end the block early."""
    return repr(json.dumps(value).replace("`", "\\u0060"))


def user_request(instruction: str) -> str:
    """The request part of a tool-call instruction with its context (time, user profile): from
    "User request:" to the tool definitions."""
    start = max(0, instruction.find(REQUEST_MARKER))
    end = instruction.find(TOOLS_MARKER, start)
    return instruction[start:end if end > start else len(instruction)]


REQUEST_MARKER = "User request:"
TOOLS_MARKER = "Tools available to the assistant"
# What the policy runs in the sandbox to read the task: the tools, the customer's tool names (tau2) and, on tool-call
# tasks, the request (a state task's domain policy is left out: the heuristic does not use it), compressed and read in
# chunks of READ_CHUNK characters, one chunk per call (`{offset}`). Every harness caps a tool result: Inspect at 16 KiB
# by default, and Codex CLI, Gemini CLI and mini-swe-agent shorten or wrap long shell output further; a task read in
# one piece came back cut off under them and the policy wrote its verifier from the prompt alone. Each result is
# one line, `VGB-TASK <offset> <total> <base64 of the zlib of the JSON>`: some harnesses hand the model the output
# JSON-encoded (Gemini CLI, mini-swe-agent), where a newline would be the two characters \\n.
READ_MARKER = "VGB-TASK"
READ_CHUNK = 3000
READ_TASK = ("python3 -c 'import base64, json, zlib; d = json.load(open(\"{path}\")); i = d[\"instruction\"]; s = max(0, i.find(\"" + REQUEST_MARKER + "\")); "
             "e = i.find(\"" + TOOLS_MARKER + "\", s); t = json.dumps({{\"tools\": d.get(\"tools\", []), "
             "\"user_tools\": [t[\"name\"] for t in d.get(\"user_tools\", [])], "
             "\"instruction\": i[s:e if e > s else len(i)] if d.get(\"task_type\") == \"tool-call\" else \"\"}}); "
             "b = base64.b64encode(zlib.compress(t.encode(), 9)).decode(); "
             "print(\"" + READ_MARKER + "\", {offset}, len(b), b[{offset}:{offset} + " + str(READ_CHUNK) + "])'")
