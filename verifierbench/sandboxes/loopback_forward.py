"""In the vgb sandbox, in front of `pi` (harness/pi_vgb.py): the bridge's endpoint on the sandbox's own loopback.

Standard library only. Listens on 127.0.0.1:PORT of the command's network namespace (bubblewrap's, loopback only),
pipes each connection to the host's bridge socket (bound read-only into the sandbox), copies the CLI's configuration
into its fresh home, then runs the command after `--` and exits with its status. It is the sandbox's pid 1: when it
exits, whatever the command left running dies with the pid namespace.

    python3 loopback_forward.py PORT SOCKET HOME_TEMPLATE -- COMMAND...
"""

import os
import shutil
import socket
import subprocess
import sys
import threading


def pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while True:
            data = source.recv(1 << 16)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        try:
            target.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def serve(listener: socket.socket, path: str) -> None:
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(path)
        except OSError:
            client.close()
            upstream.close()
            continue
        threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
        threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()


def main(argv: list[str]) -> int:
    if len(argv) < 5 or argv[3] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    port, path, template, command = int(argv[0]), argv[1], argv[2], argv[4:]
    shutil.copytree(template, os.environ["HOME"], dirs_exist_ok=True)
    listener = socket.create_server(("127.0.0.1", port))  # before the command starts: no race for its first request
    threading.Thread(target=serve, args=(listener, path), daemon=True).start()
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
