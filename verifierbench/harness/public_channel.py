"""run_public and reset in container sandboxes (docker, k8s).

The vgb sandbox binds its sample's run_public socket into every command. A container cannot be handed a host
socket per sample, so there the same host-side PublicService (same budget, same counters, nothing of it in the
container) is reached through Inspect's `sandbox_service()`: code in the container (`vgb_env.run_public`) writes a
request file under /var/tmp/sandbox-services/vgb_public/, which the harness process polls, answers and removes.
The run_public and reset tools call the service directly, as in vgb (harness/sample_service.py holds it).
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

import anyio
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import SandboxEnvironment, sandbox, sandbox_service

from verifierbench.harness.sample_service import container_service, sync_counters
from verifierbench.public_env.service import PublicService

SERVICE_NAME = "vgb_public"  # vgb_env looks for /var/tmp/sandbox-services/vgb_public/vgb_public.py


@solver
def with_public_channel(inner: Solver) -> Solver:
    """Runs `inner` with the sample's run_public service reachable from the container, when the sample's task has
    a public environment and its sandbox is not vgb (which has its own socket).

    Args:
      inner: The harness's solver.
    """
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment, task_environment

        box = sandbox()
        service, _ = task_environment(state.metadata) if not _is_vgb(box, VgbSandboxEnvironment) else (None, ())
        if service is None:
            return await inner(state, generate)

        service.start()  # its worker serves the container's requests and the tools', through its socket
        token = container_service.set(service)
        try:
            async with serving(service, box):
                state = await inner(state, generate)
        finally:
            container_service.reset(token)
            service.stop()
            sync_counters(service)
        return state

    return solve


def _is_vgb(box: SandboxEnvironment, vgb: type) -> bool:
    try:
        box.as_type(vgb)  # sandbox() is a proxy: isinstance would not see through it
    except TypeError:
        return False
    return True


@asynccontextmanager
async def serving(service: PublicService, box: SandboxEnvironment) -> AsyncIterator[None]:
    """Serves `service` to code in the container `box` for the duration of the block.

    Args:
      service: The sample's PublicService (budget and counters stay in it, on the host).
      box: The sample's container sandbox.
    """
    async def request(request: Any) -> dict[str, Any]:
        return await asyncio.to_thread(service.handle, request)

    finished = False
    started = anyio.Event()
    async with anyio.create_task_group() as group:
        # As the container's default user (agent in sandboxes/docker, root in SWE-bench images), who owns the
        # service directory: the user the agent's commands run as.
        group.start_soon(lambda: sandbox_service(SERVICE_NAME, {"request": request}, lambda: finished, box, started=started))
        await started.wait()
        try:
            yield
        finally:
            finished = True  # the service loop ends at its next poll
