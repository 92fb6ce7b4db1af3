"""`python -m cara.serve`: the API server for deployments, with a graceful drain.

On SIGTERM (a rolling update, a scale-down) the process, in this order:

1. marks itself draining: `GET /api/health` answers 503, so the load balancer
   stops routing here, and new live sockets are closed with 1012;
2. ends every open live consultation with close code 1012 once its transcript
   is stored; the browser reconnects within a second and reaches another
   replica (the web client retries any close below 4000);
3. lets uvicorn stop accepting and finish in-flight requests (a summary may
   wait up to 30 s for its worker), then exits.

Steps 2 and 3 each take at most CARA_DRAIN_SECONDS; the orchestrator's grace
period must cover both (the Helm chart's does). `--host`/`--port` (or HOST
and PORT) choose the listening address (default 127.0.0.1:8000);
TRUSTED_PROXIES names the proxies whose X-Forwarded-* headers are believed (none by default).
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
from typing import Any

import uvicorn

from cara.config import get_settings
from cara.kit import lifecycle
from cara.kit.logging import configure_logging
from cara.live import relay

log = logging.getLogger("cara.serve")


class DrainingServer(uvicorn.Server):
    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        lifecycle.begin_draining()
        asked, left = await relay.drain(get_settings().drain_seconds)
        log.info("live consultations drained", extra={"count": asked - left, "left": left})
        await super().shutdown(sockets)


def config(app: Any = "cara.main:app", *, host: str | None = None, port: int | None = None) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        host=host or os.environ.get("HOST", "127.0.0.1"),
        port=port if port is not None else int(os.environ.get("PORT", "8000")),
        # X-Forwarded-* only from the configured proxies (TRUSTED_PROXIES); by default none.
        proxy_headers=bool(get_settings().trusted_proxies),
        forwarded_allow_ips=",".join(get_settings().trusted_proxies) or None,
        timeout_graceful_shutdown=int(get_settings().drain_seconds),
        # The app logs JSON lines itself (cara.kit.logging); uvicorn's text handlers would mix in.
        log_config=None,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m cara.serve", description=__doc__.splitlines()[0])
    parser.add_argument("--host")
    parser.add_argument("--port", type=int)
    args = parser.parse_args(argv)
    configure_logging()
    DrainingServer(config(host=args.host, port=args.port)).run()


if __name__ == "__main__":
    main()
