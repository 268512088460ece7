"""The model transports: how a harness's model calls reach the eval's model, as each log records them
(`harness_transport`) and `-T transport` names them. Constants only, so the solvers import them without the registry
(harness/registry.py imports the solvers' modules)."""

IN_PROCESS = "inspect-model"  # the solver calls Inspect's model in the harness process
SANDBOX_BRIDGE = "inspect-sandbox-bridge"  # Inspect's sandbox_agent_bridge: a proxy in the container, polled every 2 s
# The project's own endpoint (harness/model_endpoint.py): a host socket bound into the vgb command (harness/pi_vgb.py)
# or the docker container (harness/endpoint_docker.py).
UNIX_SOCKET = "unix-socket"
TRANSPORT_KEY = "verifierbench:harness_transport"  # store: the sample's transport, `-T transport` or the record's
