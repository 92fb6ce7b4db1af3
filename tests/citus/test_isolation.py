"""The tenant isolation suite (tests/tenants/test_isolation.py), run again on the Citus cluster:
the same API checks and the same database-level refusals, with every hospital's schema on a
worker and the per-tenant roles reaching it through the coordinator."""

from __future__ import annotations

from tests.tenants.test_isolation import *  # noqa: F403
