"""The running sample's run_public service, wherever it is served from, and its counters in the sample's store.

A vgb sandbox starts the service with the sandbox (sandboxes/vgb_provider.py); a container sandbox gets it from
harness/public_channel.py, which sets `container_service` while the harness solver runs. The run_public and reset
tools (harness/tools.py) and the scorer read it here, so neither module imports the other.
"""

from __future__ import annotations

from contextvars import ContextVar

from inspect_ai.util import sandbox, store

from verifierbench.public_env.service import PublicService

RUN_PUBLIC_USES = "cap_run_public"
BUDGET_BLOCKS = "cap_budget_blocks"
RESETS = "cap_resets"  # reset requests to run_public (budgeted too: public_env.service)

# The current sample's service in a container sandbox, for the run_public/reset tools (they run inside the solver's context).
container_service: ContextVar[PublicService | None] = ContextVar("verifierbench_container_public", default=None)


def current_service() -> PublicService | None:
    """The current sample's service: the container channel's, else the vgb sandbox's; None when it has none."""
    from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment

    if container_service.get() is not None:  # a container sandbox (harness/public_channel.py)
        return container_service.get()
    try:
        return sandbox().as_type(VgbSandboxEnvironment).public
    except (ProcessLookupError, RuntimeError, TypeError, ValueError):
        return None


def sync_counters(service: PublicService | None = None) -> None:
    """Copies the sample's run_public counters (tool calls and sandboxed calls alike) into the store.

    Args:
      service: The sample's PublicService; by default the current sample's.
    """
    service = service or current_service()
    if service is not None:
        store().set(RUN_PUBLIC_USES, service.uses)
        store().set(BUDGET_BLOCKS, service.blocks)
        store().set(RESETS, service.resets)
