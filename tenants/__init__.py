"""Schema-per-tenant lifecycle: naming, registry, provisioning, migrations, CLI."""
