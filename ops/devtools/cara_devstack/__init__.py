"""Embedded development stack: PostgreSQL and Redis from wheels, plus the `./ops/dev` supervisor."""
