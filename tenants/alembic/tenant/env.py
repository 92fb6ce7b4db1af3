"""Alembic environment for the `tenant` tree (used by the alembic CLI).

Every tenant schema is migrated by `python -m tenants migrate`; this file lets
a developer autogenerate a revision against one scratch schema:

    alembic -c tenants/alembic/alembic.ini -n tenant -x schema=tenant_template \
        revision --autogenerate -m "..."

Revisions must not name a schema: the runner binds each schema through
schema_translate_map. Raw SQL in a revision gets the schema from
`op.get_context().version_table_schema`.
"""

from alembic import context
from sqlalchemy import text

from cara.kit.db import get_engine
from cara.models import TenantBase

schema = context.get_x_argument(as_dictionary=True).get("schema", "tenant_template")


def include_name(name, type_, parent_names):  # type: ignore[no-untyped-def]
    if type_ == "schema":
        return name == schema
    return True


with get_engine().begin() as connection:
    connection.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
    bound = connection.execution_options(schema_translate_map={None: schema})
    context.configure(
        connection=bound,
        target_metadata=TenantBase.metadata,
        version_table_schema=schema,
        include_schemas=True,
        include_name=include_name,
    )
    with context.begin_transaction():
        context.run_migrations()
