"""Inspect entry point (`[project.entry-points.inspect_ai]`): imported by Inspect to find the
task `verifierbench/verifierbench`, the `vgb` and `verifierbench-docker` sandboxes, the `verifierbench/...` model-free
policies and the scorers."""

import functools
from typing import Any, Callable

from inspect_ai.scorer import Scorer
# What @scorer registers with. Not public API, and no public one does this (inspect_ai 0.3.285): @scorer(name=...)
# prefixes the package's name to any name, and registry_lookup finds an unqualified name only among inspect_ai's own.
from verifierbench.inspect_api.private import scorer_register
from inspect_ai.util import registry_info

from verifierbench.sandboxes.vgb_provider import VgbSandboxEnvironment  # noqa: F401
from verifierbench.sandboxes.docker_provider import RetryingDockerSandbox  # noqa: F401
from verifierbench.task import verifierbench  # noqa: F401
from verifierbench.policies.provider import verifierbench_policies  # noqa: F401
from verifierbench.scorers.hidden_cases import hidden_cases
from verifierbench.scorers.testjack_audit import testjack_audit


def register_unqualified(factory: Callable[..., Scorer]) -> None:
    """Also registers a scorer under its unqualified name (`hidden_cases`).

    Inspect records a log's scorers by that name, and `inspect score LOG` looks it up as written, while @scorer
    registered it as `verifierbench/hidden_cases`: without this, a `--no-score` log of this package needs
    `--scorer verifierbench/hidden_cases` to be scored. A wrapper, so the factory keeps its qualified registry name.

    Args:
        factory: a @scorer factory of this package.
    """
    info = registry_info(factory)

    @functools.wraps(factory)
    def unqualified(*args: Any, **kwargs: Any) -> Scorer:
        return factory(*args, **kwargs)

    scorer_register(unqualified, name=info.name.split("/")[-1], metadata=info.metadata)


for _factory in (hidden_cases, testjack_audit):
    register_unqualified(_factory)
