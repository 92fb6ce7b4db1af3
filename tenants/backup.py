"""Per-tenant export and restore: one hospital's schema and the platform rows that bring it back.

An export is two files side by side (docs/backups.md):

* `FILE`: a pg_dump archive (custom format) of the tenant schema alone, without owners or
  privileges, so it loads into any database whatever its role names;
* `FILE.platform.json`, the *sidecar*: the tenant's rows outside its schema (tenants.ownership:
  tenant, hospital, accounts, subscriptions, payments), the schema's foreign keys into `platform`,
  row counts, both revisions, and the archive's SHA-256 so a mismatched pair is refused.

Both halves come from one snapshot: pg_dump imports the snapshot of the transaction that reads the
platform rows, so the pair agrees even while the hospital keeps working.

Restore loads the archive with psql in one transaction, leaving out the foreign keys into
`platform` (their accounts are not back yet). A second transaction inserts the platform rows,
adds those foreign keys, re-creates the tenant's role and grants, checks the audit trigger and
compares every table's row count with the export; if anything fails there, the schema is dropped
again, so a restore either completes or leaves nothing behind.

`--as <schema>` loads a copy under another name for inspection: no platform rows, no foreign keys
into `platform` (the accounts they name may be gone or belong to the live tenant), not registered
in `platform.tenants` and no tenant role, so the application never serves it and no tenant role
can read it. Remove it with `python -m tenants delete <schema> --confirm <schema>`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from sqlalchemy import Connection, text
from sqlalchemy.exc import IntegrityError

from cara.kit import platform_audit as audit
from cara.kit.db import get_engine, session_scope
from tenants import audit_guard, citus, migrate, naming, ownership, pgtools, roles
from tenants.ownership import Refused

FORMAT = "cara-tenant-export"
FORMAT_VERSION = 1
SIDECAR_SUFFIX = ".platform.json"
# The tenant revision that introduced the append-only audit trigger (tenants/audit_guard.py).
AUDIT_GUARD_REVISION = "t0003"

_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]*$")
# What a tenant's foreign key into `platform` may look like; anything else in a sidecar is refused
# rather than executed.
_PLATFORM_FK = re.compile(
    r"^FOREIGN KEY \([a-z0-9_, ]+\) REFERENCES platform\.[a-z0-9_]+\([a-z0-9_, ]+\)"
    r"( ON (UPDATE|DELETE) (CASCADE|SET NULL|SET DEFAULT|RESTRICT|NO ACTION))*"
    r"( DEFERRABLE( INITIALLY (DEFERRED|IMMEDIATE))?)?( NOT VALID)?$"
)
# A foreign-key entry of `pg_restore --list`:
# "<id>; <oid> <oid> FK CONSTRAINT <schema> <table> <name> <owner>".
_TOC_FOREIGN_KEY = re.compile(r"^\d+; \d+ \d+ FK CONSTRAINT (\S+) (\S+) (\S+)")
# pg_restore 17+ writes this into every script; servers before 17 do not know the setting.
_TRANSACTION_TIMEOUT = b"SET transaction_timeout = 0;\n"


def sidecar_path(archive: Path) -> Path:
    return archive.with_name(archive.name + SIDECAR_SUFFIX)


def checked_schema(name: str) -> str:
    try:
        return naming.checked(name)
    except ValueError:
        raise Refused(
            f"{name!r} is not a tenant schema name (hospital_<12 hex digits> or independent)", 2
        ) from None


def _ident(name: str) -> str:
    if not _IDENTIFIER.match(name):
        raise Refused(f"unexpected identifier {name!r} in the export")
    return f'"{name}"'


def schema_exists(conn: Connection, schema: str) -> bool:
    found = conn.execute(text("SELECT 1 FROM pg_namespace WHERE nspname = :s"), {"s": schema}).first()
    return found is not None


def table_counts(conn: Connection, schema: str) -> dict[str, int]:
    """Rows of every table in `schema`, by table name."""
    names = conn.execute(
        text(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = :s AND c.relkind IN ('r', 'p') ORDER BY c.relname"
        ),
        {"s": schema},
    ).scalars()
    return {
        name: int(conn.execute(text(f'SELECT count(*) FROM "{schema}".{_ident(name)}')).scalar_one())
        for name in list(names)
    }


def _outward_foreign_keys(conn: Connection, schema: str) -> list[dict[str, str]]:
    """The schema's foreign keys into other schemas (only `platform`, by the scale-out rule)."""
    rows = conn.execute(
        text(
            """
            SELECT cl.relname, c.conname, pg_get_constraintdef(c.oid), fn.nspname
            FROM pg_constraint c
            JOIN pg_class cl ON cl.oid = c.conrelid
            JOIN pg_namespace n ON n.oid = cl.relnamespace
            JOIN pg_class fc ON fc.oid = c.confrelid
            JOIN pg_namespace fn ON fn.oid = fc.relnamespace
            WHERE c.contype = 'f' AND n.nspname = :s AND fn.nspname <> :s
            ORDER BY cl.relname, c.conname
            """
        ),
        {"s": schema},
    ).all()
    return [{"table": t, "name": n, "definition": d, "references_schema": s} for t, n, d, s in rows]


def _platform_revision(conn: Connection) -> str | None:
    value = conn.execute(text("SELECT version_num FROM platform.alembic_version")).scalar()
    return str(value) if value is not None else None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _private_write(path: Path, content: str) -> None:
    # Owner-only from the first byte: the sidecar holds emails and password hashes.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(content)


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {n}" for name, n in counts.items())


# -- export ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExportReport:
    schema: str
    archive: Path
    sidecar: Path
    archive_bytes: int
    tables: dict[str, int]
    platform_rows: dict[str, int]
    tools: str
    seconds: float

    def lines(self) -> list[str]:
        width = max(len(t) for t in self.tables) if self.tables else 5
        out = [
            f"exported {self.schema} to {self.archive}: {self.archive_bytes} bytes, {len(self.tables)} "
            f"tables, {sum(self.tables.values())} rows in {self.seconds:.2f}s ({self.tools})"
        ]
        out += [f"  {name:<{width}}  {rows:>8}" for name, rows in self.tables.items()]
        out.append(f"platform rows in {self.sidecar}: {_counts_text(self.platform_rows)}")
        return out


def export_tenant(schema: str, out: Path) -> ExportReport:
    """Write `out` (the schema's archive) and its sidecar; refuse unknown tenants and existing files."""
    schema = checked_schema(schema)
    out = Path(out).absolute()
    side = sidecar_path(out)
    for path in (out, side):
        if path.exists():
            raise Refused(f"{path} exists: exports are never overwritten, choose another --out")
    if not out.parent.is_dir():
        raise Refused(f"{out.parent} is not a directory")
    partial = out.with_name(out.name + ".partial")
    started = time.perf_counter()

    engine = get_engine()
    with engine.connect() as conn:
        # REPEATABLE READ: every read below, and pg_dump through the exported snapshot, sees
        # the database as of this transaction's first statement.
        conn.execution_options(isolation_level="REPEATABLE READ")
        with conn.begin():
            snapshot = str(conn.execute(text("SELECT pg_export_snapshot()")).scalar_one())
            tenant = conn.execute(
                text("SELECT id FROM platform.tenants WHERE schema_name = :s"), {"s": schema}
            ).first()
            if tenant is None:
                raise Refused(f"no tenant {schema} in platform.tenants")
            if not schema_exists(conn, schema):
                raise Refused(f"tenant {schema} is registered but its schema does not exist")
            server_version = str(conn.execute(text("SHOW server_version")).scalar_one())
            tools = pgtools.find_toolset(pgtools.server_major(conn))
            platform_rows = {
                table: list(conn.execute(text(ownership.rows_query(table)), {"tenant": tenant.id}).scalars())
                for table in ownership.INSERT_ORDER
            }
            tables = table_counts(conn, schema)
            foreign_keys = _outward_foreign_keys(conn, schema)
            tenant_revision = migrate.tenant_revision(conn, schema)
            platform_revision = _platform_revision(conn)
            database = str(conn.execute(text("SELECT current_database()")).scalar_one())

            dump = subprocess.run(  # noqa: S603 - absolute program path, validated schema name
                [
                    tools.program("pg_dump"),
                    "--no-password",
                    "--format=custom",
                    f"--schema={schema}",
                    "--no-owner",
                    "--no-privileges",
                    f"--snapshot={snapshot}",
                    "--lock-wait-timeout=60s",
                    f"--file={partial}",
                ],
                env=pgtools.libpq_environment(engine.url),
                capture_output=True,
                text=True,
                check=False,
            )
            if dump.returncode != 0:
                partial.unlink(missing_ok=True)
                raise pgtools.ProgramFailed(f"pg_dump failed:\n{pgtools.error_tail(dump.stderr)}")

    os.chmod(partial, 0o600)
    size, digest = partial.stat().st_size, _sha256(partial)
    partial.rename(out)
    sidecar = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "schema": schema,
        "exported_at": datetime.now(UTC).isoformat(),
        "database": database,
        "server_version": server_version,
        "pg_dump": {"version": tools.version, "major": tools.major},
        "platform_revision": platform_revision,
        "tenant_revision": tenant_revision,
        "archive": {"file": out.name, "bytes": size, "sha256": digest},
        "tables": tables,
        "foreign_keys": foreign_keys,
        "platform": platform_rows,
    }
    _private_write(side, json.dumps(sidecar, indent=1, sort_keys=True) + "\n")
    return ExportReport(
        schema=schema,
        archive=out,
        sidecar=side,
        archive_bytes=size,
        tables=tables,
        platform_rows={t: len(rows) for t, rows in platform_rows.items()},
        tools=f"pg_dump {tools.version} from {tools.origin}",
        seconds=time.perf_counter() - started,
    )


# -- restore -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RestoreReport:
    schema: str
    source_schema: str
    registered: bool
    tables: dict[str, int]
    platform_rows: dict[str, int]
    role: str | None
    tenant_revision: str | None
    head_revision: str | None
    tools: str
    seconds: float

    def lines(self) -> list[str]:
        out = [
            f"restored {self.schema} from {self.source_schema}'s export: {len(self.tables)} tables, "
            f"{sum(self.tables.values())} rows in {self.seconds:.2f}s ({self.tools})"
        ]
        if self.registered:
            out.append(f"platform rows restored: {_counts_text(self.platform_rows)}")
            out.append(f"tenant role {self.role} and its grants re-created")
        else:
            out.append(
                f"inspection copy: platform rows skipped ({_counts_text(self.platform_rows)} in the "
                "sidecar), no foreign keys into platform, not registered in platform.tenants, no tenant role"
            )
        if self.tenant_revision != self.head_revision:
            out.append(
                f"tenant schema at revision {self.tenant_revision}, head is {self.head_revision}: "
                "run python -m tenants migrate"
            )
        return out


def read_export(archive: Path) -> dict[str, Any]:
    """The sidecar of `archive`, after checking that the two belong together."""
    side = sidecar_path(archive)
    if not archive.is_file():
        raise Refused(f"{archive}: no such file")
    if not side.is_file():
        raise Refused(f"{side} is missing: an export is the archive and its sidecar together")
    try:
        meta: dict[str, Any] = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise Refused(f"{side} is not readable JSON: {exc}") from None
    if meta.get("format") != FORMAT or meta.get("version") != FORMAT_VERSION:
        raise Refused(f"{side} is not a {FORMAT} version {FORMAT_VERSION} sidecar")
    if _sha256(archive) != meta["archive"]["sha256"]:
        raise Refused(f"{archive} does not match its sidecar (SHA-256 differs): not the archive it describes")
    return meta


def _check_platform_conflicts(conn: Connection, meta: dict[str, Any]) -> None:
    """Refuse, before anything is written, when the platform rows cannot go back in as they were."""
    here = _platform_revision(conn)
    if here != meta["platform_revision"]:
        raise Refused(
            f"the export was made at platform revision {meta['platform_revision']}, this database is at "
            f"{here}: restore it into a database at {meta['platform_revision']} (then upgrade), "
            "or restore a copy with --as"
        )
    rows: dict[str, list[dict[str, Any]]] = meta["platform"]
    for tenant in rows["tenants"]:
        taken = conn.execute(
            text("SELECT schema_name FROM platform.tenants WHERE id = CAST(:id AS uuid) OR schema_name = :s"),
            {"id": tenant["id"], "s": tenant["schema_name"]},
        ).first()
        if taken is not None:
            raise Refused(f"platform.tenants already holds this tenant (as {taken[0]})")
    accounts = rows["accounts"]
    clash = list(
        conn.execute(
            text(
                "SELECT email FROM platform.accounts WHERE id = ANY(CAST(:ids AS uuid[]))"
                " OR email = ANY(:emails) OR stripe_customer_id = ANY(:customers) ORDER BY email"
            ),
            {
                "ids": [a["id"] for a in accounts],
                "emails": [a["email"] for a in accounts],
                "customers": [a["stripe_customer_id"] for a in accounts if a.get("stripe_customer_id")],
            },
        ).scalars()
    )
    if clash:
        raise Refused(
            f"{len(clash)} account(s) of this export already exist (same id, email or Stripe customer): "
            f"{', '.join(clash)}. Remove or rename them first, or restore a copy with --as"
        )
    for table in ("hospitals", "subscriptions", "payments"):
        ids = [r["id"] for r in rows[table]]
        if not ids:
            continue
        present = conn.execute(
            text(f"SELECT count(*) FROM platform.{table} WHERE id = ANY(CAST(:ids AS uuid[]))"), {"ids": ids}
        ).scalar_one()
        if present:
            raise Refused(f"{present} row(s) of platform.{table} in this export already exist")


def _toc_without(listing: str, skipped: set[tuple[str, str]]) -> str:
    """`pg_restore --list` output with the given (table, constraint) foreign keys commented out."""
    out = []
    for line in listing.splitlines():
        match = _TOC_FOREIGN_KEY.match(line)
        out.append(f";{line}" if match and (match.group(2), match.group(3)) in skipped else line)
    return "\n".join(out) + "\n"


def copy_script(
    src: IO[bytes], dst: IO[bytes], *, rename: tuple[str, str] | None, drop: Iterable[bytes] = ()
) -> None:
    """Stream a pg_restore script, renaming the schema outside COPY data and dropping `drop` lines.

    Only statements are rewritten: rows between `COPY ... FROM stdin;` and `\\.` pass untouched,
    so data that happens to contain the schema name keeps it. The name is matched as a whole
    identifier, so `hospital_<12 hex>` never matches inside a longer name.
    """
    dropped = frozenset(drop)
    pattern = (
        re.compile(rb"(?<![0-9A-Za-z_])" + re.escape(rename[0].encode()) + rb"(?![0-9A-Za-z_])")
        if rename
        else None
    )
    replacement = rename[1].encode() if rename else b""
    in_data = False
    for line in src:
        if in_data:
            if line == b"\\.\n":
                in_data = False
            dst.write(line)
            continue
        if line in dropped:
            continue
        if pattern is not None:
            line = pattern.sub(replacement, line)
        if line.startswith(b"COPY ") and line.endswith(b" FROM stdin;\n"):
            in_data = True
        dst.write(line)


def _load_schema(
    tools: pgtools.Toolset,
    env: dict[str, str],
    archive: Path,
    *,
    source: str,
    target: str,
    skipped_keys: set[tuple[str, str]],
    server_major: int,
) -> None:
    """pg_restore's script of `archive`, filtered, into psql: one transaction, stop at the first error."""
    listing = subprocess.run(  # noqa: S603 - absolute program path, our own file
        [tools.program("pg_restore"), "--list", str(archive)], capture_output=True, text=True, check=False
    )
    if listing.returncode != 0:
        raise pgtools.ProgramFailed(f"pg_restore --list failed:\n{pgtools.error_tail(listing.stderr)}")
    with tempfile.TemporaryDirectory(prefix="cara-restore-") as tmp:
        toc = Path(tmp) / "toc.list"
        toc.write_text(_toc_without(listing.stdout, skipped_keys), encoding="utf-8")
        with (
            (Path(tmp) / "pg_restore.err").open("w+b") as restore_err,
            (Path(tmp) / "psql.err").open("w+b") as psql_err,
        ):
            restore = subprocess.Popen(  # noqa: S603 - absolute program path, fixed arguments
                [
                    tools.program("pg_restore"),
                    f"--use-list={toc}",
                    "--no-owner",
                    "--no-privileges",
                    "--file=-",
                    str(archive),
                ],
                stdout=subprocess.PIPE,
                stderr=restore_err,
                env=env,
            )
            psql = subprocess.Popen(  # noqa: S603 - absolute program path, fixed arguments
                [
                    tools.program("psql"),
                    "--no-password",
                    "--no-psqlrc",
                    "--quiet",
                    "--set=ON_ERROR_STOP=1",
                    "--file=-",
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=psql_err,
                env=env,
            )
            assert restore.stdout is not None and psql.stdin is not None
            restore_status = None
            try:
                # Our own BEGIN/COMMIT rather than psql's --single-transaction, which commits at
                # end of input even when that end came early because pg_restore died midway.
                psql.stdin.write(b"BEGIN;\n")
                copy_script(
                    restore.stdout,
                    psql.stdin,
                    rename=(source, target) if source != target else None,
                    drop=[_TRANSACTION_TIMEOUT] if server_major < 17 else [],
                )
                restore.stdout.close()
                restore_status = restore.wait()
                if restore_status == 0:
                    psql.stdin.write(b"COMMIT;\n")
                # Otherwise psql reaches end of input inside the transaction; the server rolls
                # it back when psql disconnects.
            except BrokenPipeError:
                pass  # psql stopped at an error; its exit status and message say which
            finally:
                for stream in (psql.stdin, restore.stdout):
                    with contextlib.suppress(BrokenPipeError):
                        stream.close()
            if restore_status is None:
                restore_status = restore.wait()
            psql_status = psql.wait()
            if psql_status != 0 or restore_status != 0:
                restore_err.seek(0)
                psql_err.seek(0)
                detail = pgtools.error_tail(
                    psql_err.read().decode(errors="replace") + restore_err.read().decode(errors="replace")
                )
                raise pgtools.ProgramFailed(f"loading the archive failed (nothing was kept):\n{detail}")


def _has_audit_guard(conn: Connection, schema: str) -> bool:
    found = conn.execute(
        text(
            "SELECT 1 FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = :s AND c.relname = 'audit_events' AND t.tgname = 'audit_events_append_only'"
        ),
        {"s": schema},
    ).first()
    return found is not None


def _expects_audit_guard(revision: str | None) -> bool:
    if revision is None:
        return False
    lineage = migrate.tenant_scripts().iterate_revisions(revision, "base")
    return any(r.revision == AUDIT_GUARD_REVISION for r in lineage)


def restore_tenant(archive: Path, as_schema: str | None = None) -> RestoreReport:
    """Bring an export back under its own name (with its platform rows) or as an inspection copy."""
    started = time.perf_counter()
    archive = Path(archive).absolute()
    meta = read_export(archive)
    source = checked_schema(meta["schema"])
    target = checked_schema(as_schema) if as_schema else source
    register = target == source
    if not register and target == naming.INDEPENDENT_SCHEMA:
        raise Refused("a copy cannot be restored as the shared independent tenant", 2)
    for fk in meta["foreign_keys"]:
        if not (_IDENTIFIER.match(fk["table"]) and _IDENTIFIER.match(fk["name"])) or not _PLATFORM_FK.match(
            fk["definition"]
        ):
            raise Refused(f"unexpected foreign key in the export: {fk['definition']!r}")

    engine = get_engine()
    with engine.connect() as conn:
        if schema_exists(conn, target):
            raise Refused(
                f"schema {target} already exists. Delete it first "
                f"(python -m tenants delete {target} --confirm {target}) "
                "or restore a copy under a new name with --as hospital_<12 hex digits>"
            )
        if register:
            _check_platform_conflicts(conn, meta)
        else:
            registered = conn.execute(
                text("SELECT 1 FROM platform.tenants WHERE schema_name = :s"), {"s": target}
            ).first()
            if registered is not None:
                raise Refused(f"{target} is registered in platform.tenants; choose an unused name")
        server_major = pgtools.server_major(conn)
    # The archive must be read by a pg_restore at least as new as the pg_dump that wrote it.
    tools = pgtools.find_toolset(max(server_major, int(meta["pg_dump"]["major"])))

    _load_schema(
        tools,
        pgtools.libpq_environment(engine.url),
        archive,
        source=source,
        target=target,
        skipped_keys={(fk["table"], fk["name"]) for fk in meta["foreign_keys"]},
        server_major=server_major,
    )
    try:
        role, tables, revision = _finish(meta, source=source, target=target, register=register)
    except BaseException as exc:
        with engine.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{target}" CASCADE'))
        if isinstance(exc, IntegrityError):
            detail = str(exc.orig).strip().splitlines()[0]
            raise Refused(f"the platform rows conflict with this database ({detail}); nothing kept") from None
        raise
    return RestoreReport(
        schema=target,
        source_schema=source,
        registered=register,
        tables=tables,
        platform_rows={t: len(meta["platform"][t]) for t in ownership.INSERT_ORDER},
        role=role,
        tenant_revision=revision,
        head_revision=migrate.tenant_scripts().get_current_head(),
        tools=f"pg_restore {tools.version} from {tools.origin}",
        seconds=time.perf_counter() - started,
    )


def _finish(
    meta: dict[str, Any], *, source: str, target: str, register: bool
) -> tuple[str | None, dict[str, int], str | None]:
    """The second transaction of a restore: platform rows, keys, role, audit trigger, checks."""
    with session_scope() as session:
        conn = session.connection()
        role = None
        if citus.active(conn):  # on a Citus coordinator the schema goes to a worker first
            citus.distribute_schema(conn, target)
        if register:
            for table in ownership.INSERT_ORDER:
                rows = meta["platform"][table]
                if rows:
                    # The rows were read with to_jsonb; the table's own row type reads them back.
                    conn.execute(
                        text(
                            f"INSERT INTO platform.{table} SELECT * FROM "
                            f"jsonb_populate_recordset(NULL::platform.{table}, CAST(:rows AS jsonb))"
                        ),
                        {"rows": json.dumps(rows)},
                    )
            for fk in meta["foreign_keys"]:
                conn.execute(
                    text(
                        f'ALTER TABLE "{target}".{_ident(fk["table"])} '
                        f"ADD CONSTRAINT {_ident(fk['name'])} {fk['definition']}"
                    )
                )
            role = roles.ensure_tenant_role(conn, target)
        revision = migrate.tenant_revision(conn, target)
        if _expects_audit_guard(revision) and not _has_audit_guard(conn, target):
            audit_guard.remove(conn, target)
            audit_guard.install(conn, target)
        tables = table_counts(conn, target)
        if tables != meta["tables"]:
            raise pgtools.ProgramFailed(
                f"row counts differ from the export ({meta['tables']} exported, {tables} restored)"
            )
        tenant_id = meta["platform"]["tenants"][0]["id"] if meta["platform"]["tenants"] else None
        audit.record_platform(
            session,
            action="tenant.restored" if register else "tenant.restored_copy",
            actor_id=None,
            actor_role=None,
            target_type="tenant",
            target_id=tenant_id if register else None,
            tenant_schema=target,
            detail={
                "fromSchema": source,
                "tables": len(tables),
                "rows": sum(tables.values()),
                "platformRows": {t: len(meta["platform"][t]) for t in ownership.INSERT_ORDER}
                if register
                else {},
            },
        )
    return role, tables, revision
