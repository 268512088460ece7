"""The backend a run asked for, made: the local executor, or the Ray backend. Kept apart from backend.py (the
interface both implement), which the Ray side imports: so the interface never imports an implementation."""

from __future__ import annotations

from verifierbench.cluster.backend import Backend, ExecutorConfig, resolve_backend
from verifierbench.core.errors import UserError


def make_backend(config: ExecutorConfig, backend: str | None = None, ray_address: str | None = None,
                 suite_dir: str | None = None) -> Backend:
    """A local executor, or the Ray backend (`ray` needs the suite's directory, which every node must see)."""
    name, address = resolve_backend(backend, ray_address)
    if name == "local":
        return config.make()
    if suite_dir is None:
        raise UserError("the ray backend needs the suite directory")
    from verifierbench.cluster.ray_judge import RayJudge

    return RayJudge(config, address or "", suite_dir)
