"""Test doubles of outside services, shipped with the project.

Each speaks the real wire protocol of the service it stands for, so the
production code path (the official SDKs, the same settings) runs against it
unchanged in tests and in `./ops/dev --demo-ai`.
"""
