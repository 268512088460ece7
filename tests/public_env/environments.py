"""Stand-in public environments for the service's tests. Each is built in a run_public worker process (public_env.pool)
from a recipe, so what a test observes of it goes through files, never through its objects. Light imports: a worker
imports this module to build them."""

from __future__ import annotations

import time
from pathlib import Path

from verifierbench.sources.interaction.environment import ServedEnvironment


class Logged:
    """Logs each run_public to `log` (one line each); `hold`: "spin" (a replay that never ends, burning CPU, like a
    catastrophic regular expression), "sleep" (one that waits 60 s), "allocate" (one that fills 1 GiB) or "" (answers at once)."""

    def __init__(self, log: str, hold: str = "") -> None:
        self.log, self.hold = Path(log), hold

    def run_request(self, request: dict) -> dict:
        with self.log.open("a") as f:
            f.write("run\n")
        if self.hold == "spin":
            while True:
                pass
        if self.hold == "sleep":
            time.sleep(60)
        if self.hold == "allocate":  # 1 GiB touched page by page: under the worker's RLIMIT_AS, past a small cgroup
            held = bytearray(1 << 30)
            for page in range(0, len(held), 4096):
                held[page] = 1
        return {"ok": True, "calls": len(request.get("calls", []))}

    def reset_reply(self) -> dict:
        with self.log.open("a") as f:
            f.write("reset\n")
        end = time.process_time() + 0.01  # costs 10 ms of CPU, like a replay of the initial state
        while time.process_time() < end:
            pass
        return {"state": {}, "state_hash": "initial"}


class Unencodable(ServedEnvironment):
    """Answers with a value JSON cannot hold (an environment's bug)."""

    def run_request(self, request: dict) -> dict:
        return {"state": {1, 2}}

    def reset_reply(self) -> dict:
        return {"state": {}, "state_hash": "initial"}


def lines(log: str) -> list[str]:
    path = Path(log)
    return path.read_text().splitlines() if path.exists() else []


class Sandboxed(ServedEnvironment):
    """Runs a verifier in an executor sandbox per request, as a code task's environment runs its tests (the worker, in a
    memory cgroup of the harness's, makes its sandbox's below its own); answers with the worker's memory cgroup."""

    def __init__(self, directory: str) -> None:
        self.verifier = Path(directory) / "verify.py"
        self.verifier.write_text("import json, sys\njson.dump({'decision': 'PASS'}, open(sys.argv[2], 'w'))\n")

    def run_request(self, request: dict) -> dict:
        from verifierbench.executor import Executor, Job, memcg  # here: the other environments' workers skip them

        with Executor(isolation="bwrap", slots=1, warm=False) as executor:
            outcome = executor.run(Job(self.verifier, {}, key="sandboxed"))
        found = memcg.hierarchy()
        return {"decision": outcome.decision.value, "cgroup": str(found.own) if found else None}

    def reset_reply(self) -> dict:
        return {"state": {}, "state_hash": "initial"}


class SlowToBuild(Logged):
    """A Logged environment whose build (its reset reply, computed when a worker builds it) burns `build_s` of CPU, as
    AgentDojo's import and first reset take seconds."""

    def __init__(self, log: str, build_s: float) -> None:
        super().__init__(log)
        self.build_s = build_s

    def reset_reply(self) -> dict:
        end = time.process_time() + self.build_s
        while time.process_time() < end:
            pass
        return super().reset_reply()
