"""Executor jobs for verifier runs that may call `run_public`: every state-task case gets a service of
its own, so each run has the evaluation budget to itself and no run sees another's calls."""

from __future__ import annotations

import threading
from typing import Any

from verifierbench.executor import Job
from verifierbench.public_env.registry import environment_for, has_environment
from verifierbench.public_env.service import PublicService
from verifierbench.schema import Task

EVALUATION_BUDGET = 20  # run_public calls per verifier run on one case (generation has its own budget)


class CaseJobs:
    """Makes jobs and owns their services: `done(key)` stops a job's service, `close()` stops the rest."""

    def __init__(self, budget: int = EVALUATION_BUDGET) -> None:
        self.budget = budget
        self.services: dict[str, PublicService] = {}
        self._stopping: list[threading.Thread] = []

    def job(self, task: Task, verifier: Any, candidate: Any, key: str) -> Job:
        if not has_environment(task):
            return Job(verifier, candidate, key=key)
        service = PublicService(environment_for(task), self.budget).start()
        self.services[key] = service
        return Job(verifier, candidate, key=key, public_socket_dir=str(service.directory))

    def done(self, key: str) -> None:
        """Stops the job's service in the background: a stop waits for the server loop's next poll."""
        service = self.services.pop(key, None)
        if service is not None:
            stopper = threading.Thread(target=service.stop, daemon=True)
            stopper.start()
            self._stopping.append(stopper)

    def close(self) -> None:
        for key in list(self.services):
            self.done(key)
        for stopper in self._stopping:
            stopper.join()
        self._stopping.clear()

    def __enter__(self) -> "CaseJobs":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
