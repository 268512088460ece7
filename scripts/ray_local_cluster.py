"""A Ray cluster on this host, every process on loopback, with token authentication: for trials of `--backend ray`.

    .venv/bin/python scripts/ray_local_cluster.py [--workers 2] [--cpus 1] [--port 6390]

Prints the address and the two variables a driver needs, then runs until interrupted (Ctrl-C or SIGTERM), when it
stops every process it started. `ray start` cannot make such a cluster: a worker started with
RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 (which keeps Ray from rewriting 127.0.0.1 to the host's interface address) is
refused as a "multi-node cluster", and one started without it looks for the head on the interface address, where a
loopback head does not listen. Ray's own cluster_utils starts the nodes directly, so the pin holds for all of them.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import sys
import threading


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="worker nodes (the head gets no CPUs)")
    parser.add_argument("--cpus", type=int, default=1, help="CPUs per worker node")
    parser.add_argument("--port", type=int, default=6390, help="the head's port on 127.0.0.1")
    args = parser.parse_args()
    if args.workers < 1 or args.cpus < 1:
        parser.error("--workers and --cpus must be at least 1")
    token = os.environ.get("RAY_AUTH_TOKEN") or secrets.token_hex(32)
    os.environ.update({"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token})
    try:
        from ray.cluster_utils import Cluster
    except ImportError:
        print("ray_local_cluster: needs Ray: pip install 'verifierbench[ray]'", file=sys.stderr)
        return 2

    stop = threading.Event()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "node_ip_address": "127.0.0.1",
                                                            "gcs_server_port": args.port, "include_dashboard": False})
    try:
        for _ in range(args.workers):
            cluster.add_node(num_cpus=args.cpus, node_ip_address="127.0.0.1")
        cluster.wait_for_nodes()
        for signum in (signal.SIGINT, signal.SIGTERM):  # after the nodes start: Ray's node installs its own handler
            signal.signal(signum, lambda *_: stop.set())
        print(f"address: {cluster.address}")
        print(f"export RAY_AUTH_MODE=token RAY_AUTH_TOKEN={token}", flush=True)
        stop.wait()
    finally:
        cluster.shutdown()
    print("ray_local_cluster: stopped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
