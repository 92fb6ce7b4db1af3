"""Per-tenant database roles: defence in depth under schema_translate_map.

Every tenant schema gets a NOLOGIN role that may use that schema and nothing
of any other tenant (on a Citus coordinator the role can log in, without a
password: Citus opens the connection to the schema's worker as this role; see
tenants/citus.py). Requests of an authenticated tenant user run their
transactions under `SET LOCAL ROLE <tenant role>`, so even a query that names
another hospital's schema explicitly is refused by PostgreSQL itself
("permission denied for schema ...").

All tenant roles are members of one base role holding the platform-table
privileges that tenant requests need (accounts, audit, outbox, ...).

Roles are cluster-wide while schemas are per database, so role names carry a
prefix derived from the database name: two databases on one server (a test run
next to a dev database) never share a tenant role.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from sqlalchemy import Connection, text

from cara.models.base import PLATFORM_SCHEMA
from tenants import citus, naming


def _prefix(database: str) -> str:
    # Short and stable: keeps "<prefix>_hospital_<12 hex>" under PostgreSQL's 63 bytes.
    return "ct" + hashlib.sha256(database.encode()).hexdigest()[:8]


# One entry per tenant: sized for tens of thousands of hospitals (at 4,096 the cache was
# emptied over and over by a load spread over 10,000, ops/bench/foundation.py section 3).
@lru_cache(maxsize=65536)
def role_for(database: str, schema: str) -> str:
    return f"{_prefix(database)}_{naming.checked(schema)}"


def base_role(database: str) -> str:
    return f"{_prefix(database)}_base"


def _create_role(connection: Connection, role: str, *, login: bool = False) -> None:
    found = connection.execute(
        text("SELECT rolcanlogin FROM pg_roles WHERE rolname = :r"), {"r": role}
    ).first()
    if found is None:
        connection.execute(text(f'CREATE ROLE "{role}" {"LOGIN" if login else "NOLOGIN"}'))
    elif login and not found[0]:
        connection.execute(text(f'ALTER ROLE "{role}" LOGIN'))
    # The application's own user must be allowed to SET ROLE to it
    # (automatic for superusers, needed for a CREATEROLE user on PostgreSQL 16+).
    connection.execute(text(f'GRANT "{role}" TO CURRENT_USER'))


def ensure_base_role(connection: Connection) -> str:
    """Create the base role and (re)grant it the platform tables; idempotent."""
    database = str(connection.execute(text("SELECT current_database()")).scalar_one())
    role = base_role(database)
    _create_role(connection, role)
    connection.execute(text(f'GRANT USAGE ON SCHEMA "{PLATFORM_SCHEMA}" TO "{role}"'))
    connection.execute(
        text(f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "{PLATFORM_SCHEMA}" TO "{role}"')
    )
    connection.execute(
        text(f'GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA "{PLATFORM_SCHEMA}" TO "{role}"')
    )
    return role


# The relations `GRANT ... ON ALL TABLES / SEQUENCES IN SCHEMA` covers (tables, views,
# materialized views, foreign and partitioned tables; sequences), found through pg_depend's index
# on the referenced object: each of them depends on its schema. The schema-wide GRANT reads the
# whole of pg_class instead (there is no index on a relation's schema alone): 0.8-1.1 s of every
# signup at 10,000 hospitals (557,000 pg_class rows), against ~10 ms this way.
_SCHEMA_RELATIONS = text(
    """
    SELECT c.relkind, format('%I.%I', n.nspname, c.relname)
    FROM pg_namespace n
    JOIN pg_depend d ON d.refclassid = 'pg_namespace'::regclass AND d.refobjid = n.oid
        AND d.classid = 'pg_class'::regclass
    JOIN pg_class c ON c.oid = d.objid AND c.relnamespace = n.oid
    WHERE n.nspname = :schema AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
    ORDER BY 2
    """
)


def _grant_schema_relations(connection: Connection, schema: str, role: str, *, on_citus: bool) -> None:
    if on_citus:  # Citus carries the schema-wide form to the workers itself: kept as it was there
        connection.execute(
            text(f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "{schema}" TO "{role}"')
        )
        connection.execute(text(f'GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA "{schema}" TO "{role}"'))
        return
    relations = connection.execute(_SCHEMA_RELATIONS, {"schema": schema}).all()
    tables = [name for kind, name in relations if kind != "S"]
    sequences = [name for kind, name in relations if kind == "S"]
    if tables:
        connection.execute(
            text(f'GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE {", ".join(tables)} TO "{role}"')
        )
    if sequences:
        connection.execute(text(f'GRANT USAGE, SELECT ON SEQUENCE {", ".join(sequences)} TO "{role}"'))


def ensure_tenant_role(connection: Connection, schema: str) -> str:
    """Create the tenant's role with rights on its own schema only; idempotent."""
    database = str(connection.execute(text("SELECT current_database()")).scalar_one())
    role = role_for(database, schema)
    on_citus = citus.active(connection)
    # On Citus the coordinator opens the connection to the schema's worker as this role.
    _create_role(connection, role, login=on_citus)
    connection.execute(text(f'GRANT "{base_role(database)}" TO "{role}"'))
    connection.execute(text(f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"'))
    _grant_schema_relations(connection, schema, role, on_citus=on_citus)
    # Tables that later migrations add are granted automatically.
    connection.execute(
        text(
            f'ALTER DEFAULT PRIVILEGES IN SCHEMA "{schema}" '
            f'GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO "{role}"'
        )
    )
    connection.execute(
        text(f'ALTER DEFAULT PRIVILEGES IN SCHEMA "{schema}" GRANT USAGE, SELECT ON SEQUENCES TO "{role}"')
    )
    return role


# One catalog query checks this many schemas' roles (each query reads pg_class once).
CHECK_BATCH = 20_000

_INCOMPLETE = text(
    """
    WITH t AS (
        SELECT t.schema, n.oid AS nsp, n.nspacl, r.oid AS role, r.rolcanlogin
        FROM unnest(CAST(:schemas AS text[]), CAST(:roles AS text[])) AS t(schema, role)
        LEFT JOIN pg_namespace n ON n.nspname = t.schema
        LEFT JOIN pg_roles r ON r.rolname = t.role
    ),
    ungranted AS (
        SELECT DISTINCT c.relnamespace AS nsp
        FROM pg_class c JOIN t ON c.relnamespace = t.nsp
        WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
          AND NOT EXISTS (SELECT 1 FROM aclexplode(c.relacl) a WHERE a.grantee = t.role)
    ),
    defaults AS (
        SELECT d.defaclnamespace AS nsp, count(DISTINCT d.defaclobjtype) AS kinds
        FROM pg_default_acl d JOIN t ON d.defaclnamespace = t.nsp, aclexplode(d.defaclacl) a
        WHERE d.defaclobjtype IN ('r', 'S') AND a.grantee = t.role
        GROUP BY d.defaclnamespace
    )
    SELECT t.schema FROM t
    LEFT JOIN defaults d ON d.nsp = t.nsp
    WHERE t.nsp IS NULL OR t.role IS NULL
       OR (CAST(:login AS boolean) AND NOT t.rolcanlogin)
       OR NOT pg_has_role(current_user, t.role, 'MEMBER')
       OR NOT EXISTS (
            SELECT 1 FROM pg_auth_members m JOIN pg_roles b ON b.oid = m.roleid
            WHERE m.member = t.role AND b.rolname = :base)
       OR NOT EXISTS (
            SELECT 1 FROM aclexplode(t.nspacl) a WHERE a.grantee = t.role AND a.privilege_type = 'USAGE')
       OR t.nsp IN (SELECT nsp FROM ungranted)
       OR coalesce(d.kinds, 0) < 2
    """
)


def incomplete_roles(
    connection: Connection, schemas: list[str], *, database: str | None = None, login: bool | None = None
) -> set[str]:
    """The schemas among `schemas` whose tenant role is not what `ensure_tenant_role` leaves.

    Checked in the catalog, `CHECK_BATCH` schemas a query: the role exists (and may log in on
    Citus), the current user may SET ROLE to it, it is a member of the base role, it has USAGE on
    its schema, a grant on every table and sequence there, and default privileges for the tables
    and sequences created later. `ensure_tenant_role` need only run for the schemas returned.
    `database` (the current database's name) and `login` (Citus: roles log in) spare their
    lookups when the caller knows them.
    """
    if database is None:
        database = str(connection.execute(text("SELECT current_database()")).scalar_one())
    if login is None:
        login = citus.active(connection)
    found: set[str] = set()
    for start in range(0, len(schemas), CHECK_BATCH):
        chunk = schemas[start : start + CHECK_BATCH]
        params = {
            "schemas": chunk,
            "roles": [role_for(database, s) for s in chunk],
            "login": login,
            "base": base_role(database),
        }
        found.update(connection.execute(_INCOMPLETE, params).scalars())
    return found


def drop_roles(connection: Connection, database: str) -> int:
    """Drop every tenant role of `database` (after that database is gone)."""
    names = list(
        connection.execute(
            text("SELECT rolname FROM pg_roles WHERE rolname LIKE :p"), {"p": _prefix(database) + "\\_%"}
        ).scalars()
    )
    # Members first, the base role last.
    for name in sorted(names, key=lambda n: n.endswith("_base")):
        connection.execute(text(f'DROP ROLE IF EXISTS "{name}"'))
    return len(names)
