"""The tenant isolation suite (tests/tenants/test_isolation.py), run again through PgBouncer in
transaction mode: hospitals' requests, sessions and tenant roles on server connections that every
client shares, one transaction after another."""

from __future__ import annotations

from tests.tenants.test_isolation import *  # noqa: F403
