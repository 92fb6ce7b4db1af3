"""Creating a tenant schema, fast enough to happen inside a signup request.

The fast path is `create_all` of the tenant metadata into the new schema and
an Alembic stamp at the tenant head, instead of replaying every revision. A
test (tests/tenants/test_migrations.py) proves the two paths produce the same
schema, so this shortcut cannot drift from the migrations.
"""

from __future__ import annotations

from alembic.migration import MigrationContext
from sqlalchemy import Connection, select, text
from sqlalchemy.orm import Session

from cara.models import Tenant, TenantBase
from tenants import audit_guard, citus, migrate, naming, roles


def create_tenant_schema(connection: Connection, schema: str) -> None:
    """Create `schema` with every tenant table, stamped at the tenant head.

    Runs on the caller's connection and transaction: if the surrounding signup
    fails, the schema disappears with the rollback.
    """
    naming.checked(schema)
    if citus.active(connection):
        citus.create_schema(connection, schema)  # a distributed schema, placed on one worker
    else:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    bound = connection.execution_options(schema_translate_map={None: schema})
    TenantBase.metadata.create_all(bound, checkfirst=False)
    audit_guard.install(connection, schema)
    ctx = MigrationContext.configure(connection=bound, opts={"version_table_schema": schema})
    ctx.stamp(migrate.tenant_scripts(), "head")
    roles.ensure_tenant_role(connection, schema)


def provision_hospital_tenant(session: Session, schema: str | None = None) -> Tenant:
    """Register a new hospital tenant and create its schema in `session`'s transaction."""
    tenant = Tenant(schema_name=schema or naming.new_hospital_schema(), kind="hospital", status="active")
    session.add(tenant)
    session.flush()
    create_tenant_schema(session.connection(), tenant.schema_name)
    return tenant


def ensure_independent_tenant(session: Session) -> Tenant:
    """The shared tenant of all independent doctors; created once, then reused."""
    tenant = session.scalar(select(Tenant).where(Tenant.schema_name == naming.INDEPENDENT_SCHEMA))
    if tenant is not None:
        return tenant
    tenant = Tenant(schema_name=naming.INDEPENDENT_SCHEMA, kind="independent", status="active")
    session.add(tenant)
    session.flush()
    exists = (
        session.connection()
        .execute(text("SELECT 1 FROM pg_namespace WHERE nspname = :n"), {"n": naming.INDEPENDENT_SCHEMA})
        .first()
    )
    if exists is None:
        create_tenant_schema(session.connection(), naming.INDEPENDENT_SCHEMA)
    return tenant
