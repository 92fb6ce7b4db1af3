"""Alembic environment for the `platform` tree (used by the alembic CLI).

Applications and tests migrate through `tenants.migrate.upgrade_platform`;
this file exists so `alembic revision --autogenerate` works:

    alembic -c tenants/alembic/alembic.ini -n platform revision --autogenerate -m "..."
"""

from alembic import context
from sqlalchemy import text

from cara.kit.db import get_engine
from cara.models import PlatformBase
from cara.models.base import PLATFORM_SCHEMA


def include_name(name, type_, parent_names):  # type: ignore[no-untyped-def]
    if type_ == "schema":
        return name == PLATFORM_SCHEMA
    return True


with get_engine().begin() as connection:
    connection.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{PLATFORM_SCHEMA}"'))
    context.configure(
        connection=connection,
        target_metadata=PlatformBase.metadata,
        version_table_schema=PLATFORM_SCHEMA,
        include_schemas=True,
        include_name=include_name,
    )
    with context.begin_transaction():
        context.run_migrations()
