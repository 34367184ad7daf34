"""Prove a lab works: one TCP connection from the client's namespace to the server's.

Sockets are opened from this process in threads that joined each namespace (no ping,
no helper program), and the connection reports the source address the server saw:
the client's own address through a bridge or router, the DUT's WAN address through NAT.
"""

from __future__ import annotations

import socket

from wirespeed.errors import LabError
from wirespeed.hosts.netns import call_in_namespace

PROBE_TIMEOUT = 3.0


def _listener(address: str) -> socket.socket:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind((address, 0))  # an ephemeral port of the lab's own namespace
    listener.listen(1)
    return listener


def _client() -> socket.socket:
    return socket.socket(socket.AF_INET, socket.SOCK_STREAM)


def source_seen_by_server(client_namespace: str, server_namespace: str, address: str) -> str:
    """Connect from client_namespace to address (listened on in server_namespace);
    return the peer address the server's accept() saw."""
    listener = call_in_namespace(server_namespace, lambda: _listener(address))
    client: socket.socket | None = None
    try:
        port = listener.getsockname()[1]
        client = call_in_namespace(client_namespace, _client)
        client.settimeout(PROBE_TIMEOUT)
        listener.settimeout(PROBE_TIMEOUT)
        client.connect((address, port))
        accepted, peer = listener.accept()
        accepted.close()
        return str(peer[0])
    except OSError as error:
        raise LabError(
            f"the lab does not carry traffic: {client_namespace} cannot reach "
            f"{address} in {server_namespace} ({error.strerror or error})"
        ) from None
    finally:
        if client is not None:
            client.close()
        listener.close()
