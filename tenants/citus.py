"""Tenant schemas on a Citus cluster (schema-based sharding), see docs/scale-out.md.

On a database with the `citus` extension (the coordinator of a cluster) every tenant schema is a
*distributed schema*: its tables live together on one worker, and the coordinator routes each
statement there by the schema it names. Nothing changes on plain PostgreSQL: every function here
first asks `active()`, and the callers (provisioning, platform migrations, roles, restore) behave
exactly as before when it says no.

* Platform tables that tenant tables refer to (and those they reference in turn) become
  reference tables, copied to every node, so a tenant's queries join with them on its worker.
  The other platform tables stay on the coordinator (Citus makes those with keys into reference
  tables "Citus local tables" on its own).
* A new tenant schema is created with `citus.enable_schema_based_sharding` on for that one
  statement, so the platform migrations' own schemas stay regular.
* Citus reaches a worker with a connection as the *current* user, which inside a tenant request
  is the tenant's role: on Citus tenant roles can log in (roles.py). Who may log in as them is
  the nodes' pg_hba.conf business: workers accept them from the coordinator only, the
  coordinator from nobody (they have no password).
"""

from __future__ import annotations

from sqlalchemy import Connection, Table, text

from cara.models import PlatformBase, TenantBase
from cara.models.base import PLATFORM_SCHEMA
from cara.models.tenant import REFERENCES
from tenants import naming


def active(connection: Connection) -> bool:
    """Whether this database is a Citus coordinator (has the citus extension)."""
    found = connection.execute(text("SELECT 1 FROM pg_extension WHERE extname = 'citus'")).first()
    return found is not None


def reference_tables() -> list[str]:
    """Platform tables that tenant tables refer to, closed over their own keys; parents first."""
    platform = {t.name: t for t in PlatformBase.metadata.tables.values()}

    def parents(table: Table) -> set[str]:
        return {
            fk.column.table.name
            for fk in table.foreign_keys
            if fk.column.table.schema == PLATFORM_SCHEMA and fk.column.table is not table
        }

    def referenced(table: Table) -> set[str]:
        """What a tenant table refers to: its keys into platform, and the columns that hold a
        platform row's id without a key (cara.models.tenant.account_id_column), which the
        tenant's queries join with all the same."""
        named = {str(c.info[REFERENCES]) for c in table.columns if REFERENCES in c.info}
        return parents(table) | {ref.split(".")[1] for ref in named}

    needed: set[str] = set()
    for table in TenantBase.metadata.tables.values():
        needed |= referenced(table)
    frontier = set(needed)
    while frontier:
        frontier = {p for name in frontier for p in parents(platform[name])} - needed
        needed |= frontier
    ordered: list[str] = []
    while len(ordered) < len(needed):
        ready = sorted(n for n in needed - set(ordered) if parents(platform[n]) & needed <= set(ordered))
        ordered.extend(ready)
    return [f"{PLATFORM_SCHEMA}.{name}" for name in ordered]


# How long a cached worker connection may be reused when caching is on (below): a backend closes
# older ones at the end of its next transaction, so its cache holds the hospitals it served in
# about the last minute, not every hospital it ever served.
CACHED_CONNECTION_LIFETIME = "60s"


def workers_pooled(connection: Connection) -> bool:
    """Whether every worker is reached through a pooler named in `pg_dist_poolinfo`, and the
    coordinator does not throttle its connections to them (`citus.max_shared_pool_size = -1`):
    the two conditions under which caching worker connections is safe (`limit_worker_connections`)."""
    unpooled = connection.execute(
        text(
            "SELECT count(*) FROM pg_dist_node n LEFT JOIN pg_dist_poolinfo p USING (nodeid)"
            " WHERE n.noderole = 'primary' AND n.groupid <> 0 AND p.poolinfo IS NULL"
        )
    ).scalar_one()
    throttle = connection.execute(text("SHOW citus.max_shared_pool_size")).scalar_one()
    return unpooled == 0 and str(throttle) == "-1"


def limit_worker_connections(connection: Connection) -> bool:
    """The database's worker connection policy; returns whether worker connections are cached.

    Citus keeps a connection it opened to a worker for the next transaction of the same backend,
    one per worker *and user*. Inside a tenant request the user is the tenant's role, so every
    pooled coordinator backend ends up holding an idle connection per hospital it has served:
    backends x hospitals connections per worker.

    Straight to the workers that is past any max_connections once a few dozen hospitals are busy
    (ops/bench/citus_vs_single.py hit it with 30 backends and 40 hospitals), so no connection is
    cached: a worker holds at most one connection per coordinator transaction in flight, and each
    tenant transaction opens its own.

    Through a PgBouncer beside each worker (`pg_dist_poolinfo`) a cached connection is a client of
    PgBouncer, not a worker backend, and PgBouncer bounds the worker's backends. What then stalls
    is the coordinator's own count: every cached connection counts against
    `citus.max_shared_pool_size` (by default the coordinator's max_connections), and a backend that
    needs a connection for a hospital it has not cached waits for a free slot, with no timeout,
    while the slots are held by the caches of backends that are themselves waiting or idle in the
    API's pool (the doctor-list benchmark stalled so, with 300 cached connections per worker).
    With every worker pooled and that count off (`max_shared_pool_size = -1`, a server setting of
    the coordinator), one connection per worker and role is cached, for at most
    CACHED_CONNECTION_LIFETIME: a busy hospital's transactions reuse their connection (no TLS
    handshake and PgBouncer login each time)."""
    database = connection.execute(text("SELECT current_database()")).scalar_one()
    cached = workers_pooled(connection)
    connection.execute(
        text(f'ALTER DATABASE "{database}" SET citus.max_cached_conns_per_worker = {1 if cached else 0}')
    )
    if cached:
        connection.execute(
            text(
                f'ALTER DATABASE "{database}" SET citus.max_cached_connection_lifetime'
                f" = '{CACHED_CONNECTION_LIFETIME}'"
            )
        )
    else:
        connection.execute(text(f'ALTER DATABASE "{database}" RESET citus.max_cached_connection_lifetime'))
    return cached


def distribute_platform(connection: Connection) -> list[str]:
    """Make the reference tables so (idempotent); returns the tables changed now. Also sets the
    database's worker connection policy (`limit_worker_connections`)."""
    limit_worker_connections(connection)
    done = set(
        connection.execute(
            text("SELECT logicalrelid::regclass::text FROM pg_dist_partition WHERE partmethod = 'n'")
        ).scalars()
    )
    changed = []
    for table in reference_tables():
        if table not in done:
            connection.execute(text("SELECT create_reference_table(CAST(:t AS regclass))"), {"t": table})
            changed.append(table)
    return changed


def allow_tenant_triggers(connection: Connection) -> None:
    """For this transaction: the audit log's append-only trigger (audit_guard) only raises an
    error and touches no other table, the kind Citus allows on distributed tables once told so."""
    connection.execute(text("SET LOCAL citus.enable_unsafe_triggers = on"))


def create_schema(connection: Connection, schema: str) -> None:
    """`CREATE SCHEMA` as a distributed schema; its tables then become tenant tables on one node."""
    naming.checked(schema)
    allow_tenant_triggers(connection)
    connection.execute(text("SET LOCAL citus.enable_schema_based_sharding = on"))
    connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    connection.execute(text("SET LOCAL citus.enable_schema_based_sharding = off"))


def is_distributed(connection: Connection, schema: str) -> bool:
    found = connection.execute(
        text("SELECT 1 FROM pg_dist_schema WHERE schemaid = CAST(:s AS regnamespace)"), {"s": schema}
    ).first()
    return found is not None


def distribute_schema(connection: Connection, schema: str) -> bool:
    """Make an existing tenant schema (e.g. a restored one) distributed; False if it already was."""
    naming.checked(schema)
    if is_distributed(connection, schema):
        return False
    allow_tenant_triggers(connection)
    connection.execute(text("SELECT citus_schema_distribute(CAST(:s AS regnamespace))"), {"s": schema})
    return True


def end_role_sessions(connection: Connection, role: str) -> None:
    """Close the workers' sessions of a tenant role being dropped.

    The coordinator keeps its connections to a worker open between transactions, logged in as
    the role that made them: after the role is dropped (erasure) and made again under the same
    name (restore), those sessions would still run as the old, dropped role and be refused. The
    coordinator opens new ones on its next use."""
    connection.execute(
        text(
            "SELECT * FROM run_command_on_workers(format("
            "'SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = %L', "
            "CAST(:r AS text)))"
        ),
        {"r": role},
    )


def schema_node(connection: Connection, schema: str) -> tuple[str, int]:
    """The worker (host, port) holding a distributed schema."""
    row = connection.execute(
        text(
            "SELECT nodename, nodeport FROM pg_catalog.citus_shards"
            " WHERE citus_table_type = 'schema' AND table_name::text LIKE :prefix LIMIT 1"
        ),
        {"prefix": f"{naming.checked(schema)}.%"},
    ).one()
    return str(row[0]), int(row[1])


def schema_placements(connection: Connection) -> dict[str, int]:
    """Every distributed schema and the port of the worker holding it."""
    rows = connection.execute(
        text(
            "SELECT DISTINCT split_part(table_name::text, '.', 1), nodeport FROM pg_catalog.citus_shards"
            " WHERE citus_table_type = 'schema'"
        )
    ).all()
    return {str(schema): int(port) for schema, port in rows}


def move_schema(connection: Connection, schema: str, host: str, port: int, mode: str = "auto") -> None:
    """Move every table of `schema` to another worker; reads and writes go on meanwhile
    (logical replication; `mode='block_writes'` holds writes instead)."""
    connection.execute(
        text(
            "SELECT citus_schema_move(CAST(:s AS regnamespace), :h, :p,"
            " CAST(:m AS citus.shard_transfer_mode))"
        ),
        {"s": naming.checked(schema), "h": host, "p": port, "m": mode},
    )
