"""What the scheduled jobs over every tenant share: the loop over the schemas, each schema's work
in a transaction of its own that the actor opens and commits."""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy.orm import Session

from cara.kit.db import session_scope
from tenants import registry
from tenants.sessions import tenant_transaction


def in_every_tenant(
    work: Callable[[Session, str], int], *, job: str, counted: str, log: logging.Logger
) -> int:
    """`work(session, schema)` in every tenant schema, bound to it under its role, committed schema
    by schema: one failing schema does not stop the others, and the job fails at the end (so it
    is retried) if any did. Returns the sum of what `work` counted."""
    with session_scope() as session:
        schemas = registry.all_schema_names(session)
    total = failed = 0
    for schema in schemas:
        try:
            with tenant_transaction(schema) as session:
                total += work(session, schema)
        except Exception as exc:
            failed += 1
            log.warning(f"{job} failed for a tenant", extra={"schema": schema, "error": type(exc).__name__})
    log.info(f"{job} done", extra={"schemas": len(schemas), counted: total, "failed": failed})
    if failed:
        raise RuntimeError(f"{job} failed in {failed} tenant schemas")
    return total
