"""A local Ray cluster for the ray backend's tests: a head (no CPUs, so nothing is judged there) and worker nodes,
every process on loopback, with token authentication. Skips with the reason when Ray is not installed."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import secrets
from typing import Any, Iterator

import pytest

LOOPBACK_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "token"}


@pytest.fixture(scope="session")
def ray_env():
    """The token and loopback pin, one per test process: Ray reads them once per process, so a second cluster
    started with a new token (the next module's) would be refused by its own driver."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip("the ray backend's tests need Ray: pip install 'verifierbench[ray]'")
    env = {**LOOPBACK_ENV, "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # before Ray is imported; the clusters' processes inherit them
    try:
        yield env
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextlib.contextmanager
def local_cluster(workers: int = 2) -> Iterator[Any]:
    """A head (no CPUs) and `workers` 1-CPU worker nodes on loopback; its processes inherit this process's
    environment as it is now (ray_env's token, and whatever a test set for the nodes)."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "node_ip_address": "127.0.0.1",
                                                            "include_dashboard": False})
    try:
        for _ in range(workers):
            cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")
        cluster.wait_for_nodes()
        yield cluster
    finally:
        cluster.shutdown()


@pytest.fixture(scope="session")
def ray_cluster(ray_env):
    """(cluster, the environment a driver needs: token and loopback pin): one cluster for the run's Ray tests, which
    all run on one xdist worker (tests/conftest.py). A test that harms its nodes takes `fresh_ray_cluster`."""
    with local_cluster() as cluster:
        yield cluster, ray_env


@pytest.fixture(scope="module")
def fresh_ray_cluster(ray_env):
    """A cluster of the module's own, as `ray_cluster`, for tests that kill or change its nodes."""
    with local_cluster() as cluster:
        yield cluster, ray_env
