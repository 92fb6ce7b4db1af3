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

`--workers` (or WEB_CONCURRENCY) is the number of server processes sharing the
listening socket; by default one per core this process may use (its CPU affinity,
capped by a cgroup CPU quota). With more than one, uvicorn's supervisor starts
them, restarts one that dies, and on SIGTERM passes the signal to each, which
drains its own live consultations and requests as above. The Helm chart runs one
process per pod (WEB_CONCURRENCY=1) and scales pods instead.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import socket
from pathlib import Path
from typing import Any

import uvicorn
from uvicorn.supervisors import multiprocess

from cara.config import get_settings, refuse_dev_secret
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


class DrainingProcess(multiprocess.Process):
    """One of several server processes (WEB_CONCURRENCY > 1): logs as the app does and drains
    on SIGTERM like a single process."""

    @property
    def server(self) -> uvicorn.Server:
        if self._server is None:
            self._server = DrainingServer(config=self.config)
        return self._server

    def target(self, sockets: list[socket.socket] | None = None) -> None:  # pragma: no cover - child process
        configure_logging()
        super().target(sockets)


def _cgroup_cpu_limit(root: Path = Path("/sys/fs/cgroup")) -> float | None:
    """The CPU quota of this process's cgroup in cores (v2 `cpu.max`, v1 CFS files), or None."""
    try:
        quota, period = (root / "cpu.max").read_text().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        pass
    try:
        quota_us = int((root / "cpu" / "cpu.cfs_quota_us").read_text())
        period_us = int((root / "cpu" / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return quota_us / period_us if quota_us > 0 and period_us > 0 else None


def usable_cores(cgroup_root: Path = Path("/sys/fs/cgroup")) -> int:
    """Cores this process may run on: its CPU affinity, capped by its cgroup's CPU quota."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = os.cpu_count() or 1
    limit = _cgroup_cpu_limit(cgroup_root)
    if limit is not None:
        cores = min(cores, math.ceil(limit))
    return max(1, cores)


def web_concurrency(value: str | None = None) -> int:
    """Server processes to run: WEB_CONCURRENCY when set (a positive integer), else one per core."""
    raw = (os.environ.get("WEB_CONCURRENCY", "") if value is None else value).strip()
    if not raw:
        return usable_cores()
    try:
        workers = int(raw)
    except ValueError:
        raise SystemExit(f"WEB_CONCURRENCY must be a positive integer, not {raw!r}") from None
    if workers < 1:
        raise SystemExit(f"WEB_CONCURRENCY must be a positive integer, not {raw!r}")
    return workers


def config(
    app: Any = "cara.main:app", *, host: str | None = None, port: int | None = None, workers: int = 1
) -> uvicorn.Config:
    settings = get_settings()
    host = host or settings.host
    # The settings checked HOST; --host may name another address, so the check is made again on
    # the address the server will actually listen on, before it binds.
    try:
        refuse_dev_secret(settings.cara_env, settings.jwt_secret, host)
    except ValueError as refused:
        raise SystemExit(str(refused)) from None
    return uvicorn.Config(
        app,
        host=host,
        port=port if port is not None else int(os.environ.get("PORT", "8000")),
        workers=workers,
        # A child answers the supervisor's health pings only once the app's imports are done,
        # which takes several seconds on a busy host: uvicorn's 5 s would kill it while starting.
        timeout_worker_healthcheck=60,
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
    parser.add_argument("--workers", help="server processes (default: WEB_CONCURRENCY, else one per core)")
    args = parser.parse_args(argv)
    configure_logging()
    workers = web_concurrency(args.workers)
    cfg = config(host=args.host, port=args.port, workers=workers)
    if workers == 1:
        DrainingServer(cfg).run()
        return
    log.info("starting server processes", extra={"count": workers})
    # uvicorn's supervisor builds its children from the module's `Process`; ours drains. The
    # classes are taken from the importable module, not `__main__`, so the children can load them.
    from cara import serve

    multiprocess.Process = serve.DrainingProcess  # type: ignore[misc]
    multiprocess.Multiprocess(cfg, sockets=[cfg.bind_socket()]).run()


if __name__ == "__main__":
    main()
