"""Heartbeat files: how a probe tells that a worker or the scheduler still does its work.

Neither process serves HTTP, so each one touches a file under CARA_HEALTH_DIR
(default /tmp/cara-health, the containers' one writable path) while it is healthy:

* a worker process, every BEAT_SECONDS, from a thread that first checks that Dramatiq's
  consumer and worker threads are all alive (workers.middleware.Heartbeat);
* the scheduler, once per loop turn, whether or not the tick reached Redis: a shared
  outage must not restart every replica.

`python -m workers.health worker|scheduler [--max-age SECONDS]` is the probe: it exits 0
when at least one live process of that kind has beaten within max-age, 1 otherwise, and
reads only the file system (no Redis, no database, no import of the application), so it
costs a Python start-up and a few stat calls. Files left by processes that have exited
are ignored, then removed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

BEAT_SECONDS = 10.0
DEFAULT_MAX_AGE = 60.0
KINDS = ("worker", "scheduler")


def health_dir() -> Path:
    return Path(os.environ.get("CARA_HEALTH_DIR") or "/tmp/cara-health")  # noqa: S108


def beat_path(kind: str, pid: int | None = None) -> Path:
    return health_dir() / f"{kind}-{os.getpid() if pid is None else pid}"


def beat(kind: str) -> None:
    """Record that this process is healthy now (creates the directory on first use)."""
    path = beat_path(kind)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()


def forget(kind: str) -> None:
    """Remove this process's heartbeat (a clean shutdown)."""
    beat_path(kind).unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie (exited, not yet reaped by its parent)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        pass
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # no /proc (not Linux), or gone meanwhile
        return not Path("/proc").is_dir()
    # "pid (comm) state ...": comm may hold spaces and parentheses, the state follows the last ")".
    return stat.rpartition(")")[2].split()[0] != "Z"


def check(kind: str, max_age: float = DEFAULT_MAX_AGE, now: float | None = None) -> tuple[bool, str]:
    """(healthy, reason): every live process of `kind` has beaten within max_age, and one exists."""
    now = time.time() if now is None else now
    live = 0
    for path in sorted(health_dir().glob(f"{kind}-*")):
        suffix = path.name.removeprefix(f"{kind}-")
        if not suffix.isdigit():
            continue
        if not _alive(int(suffix)):
            path.unlink(missing_ok=True)
            continue
        try:
            age = now - path.stat().st_mtime
        except FileNotFoundError:  # removed by its process meanwhile
            continue
        if age > max_age:
            return False, f"{kind} process {suffix} last beat {age:.0f} s ago (limit {max_age:.0f} s)"
        live += 1
    if live == 0:
        return False, f"no live {kind} process has beaten yet"
    return True, f"{live} {kind} process(es) beating"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workers.health", description=__doc__.split("\n")[0])
    parser.add_argument("kind", choices=KINDS)
    parser.add_argument("--max-age", type=float, default=DEFAULT_MAX_AGE, help="seconds (default 60)")
    args = parser.parse_args(argv)
    healthy, reason = check(args.kind, args.max_age)
    print(reason, file=sys.stdout if healthy else sys.stderr)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
