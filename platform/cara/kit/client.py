"""The address of the client behind a request, for abuse limits.

The peer of the connection is the client, unless the peer is one of the configured proxies
(`TRUSTED_PROXIES`, empty by default): then `X-Forwarded-For` is read from the right, past
every trusted proxy, and the first other address is the client. A header sent by anyone else
is ignored, so rotating it does not rotate the limits' keys.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from starlette.requests import HTTPConnection

from cara.config import get_settings

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(proxies: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(p.strip(), strict=False) for p in proxies if p.strip())


def _ip(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(value.strip())
    except ValueError:
        return None


def _trusted(address: str, networks: tuple[Network, ...]) -> bool:
    ip = _ip(address)
    return ip is not None and any(ip in network for network in networks)


def client_address(conn: HTTPConnection) -> str:
    peer = conn.client.host if conn.client else "unknown"
    networks = _networks(tuple(get_settings().trusted_proxies))
    if not networks or not _trusted(peer, networks):
        return peer
    forwarded = ",".join(conn.headers.getlist("x-forwarded-for"))
    hops = [h.strip() for h in forwarded.split(",") if h.strip()]
    for hop in reversed(hops):
        if _trusted(hop, networks):
            continue
        ip = _ip(hop)
        # Something that is not an address is not a client to key limits on: the proxy is.
        return str(ip) if ip is not None else peer
    return peer
