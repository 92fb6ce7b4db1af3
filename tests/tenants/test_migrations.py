"""Models and migrations agree; every tenant schema is at head; the CLI migrates all."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import MetaData, text

from cara.kit.db import get_engine, platform_session
from cara.models import PlatformBase, TenantBase
from tenants import migrate, registry, roles
from tenants.__main__ import main as cli
from tenants.provisioning import create_tenant_schema
from tests.factories import hospital_payload, signup


def _in_schema(metadata: MetaData, schema: str) -> MetaData:
    """A copy of the tenant metadata whose tables name `schema` explicitly (what reflection sees)."""
    copy = MetaData(schema="platform")  # platform tables keep resolving their own keys
    for table in PlatformBase.metadata.tables.values():  # targets of tenant -> platform keys
        table.to_metadata(copy)
    for table in metadata.tables.values():
        table.to_metadata(copy, schema=schema)
    return copy


def _in(obj: Any, type_: str, schema: str) -> bool:
    table = obj if type_ == "table" else getattr(obj, "table", None)
    return table is None or table.schema == schema


def _diff(schema: str, metadata: MetaData) -> list[Any]:
    if schema != "platform":
        metadata = _in_schema(metadata, schema)
    with get_engine().connect() as conn:
        ctx = MigrationContext.configure(
            connection=conn,
            opts={
                "include_schemas": True,
                "include_name": lambda name, type_, parent: type_ != "schema" or name == schema,
                "include_object": lambda obj, name, type_, reflected, compare_to: _in(obj, type_, schema),
                "version_table_schema": schema,
            },
        )
        return list(compare_metadata(ctx, metadata))


def _head() -> str:
    head = migrate.tenant_scripts().get_current_head()
    assert head is not None
    return head


class TestModelsMatchMigrations:
    def test_platform(self) -> None:
        assert _diff("platform", PlatformBase.metadata) == []

    def test_tenant_schema_built_by_migrations(self) -> None:
        # Replaying the tenant revisions from scratch gives exactly the models...
        with get_engine().begin() as conn:
            conn.execute(text('CREATE SCHEMA "hospital_000000000001"'))
            migrate.upgrade_tenant_schema(conn, "hospital_000000000001")
        assert _diff("hospital_000000000001", TenantBase.metadata) == []

    def test_tenant_schema_built_by_fast_provisioning(self) -> None:
        # ...and so does the create_all + stamp shortcut used at signup.
        with get_engine().begin() as conn:
            create_tenant_schema(conn, "hospital_000000000002")
        assert _diff("hospital_000000000002", TenantBase.metadata) == []
        with get_engine().connect() as conn:
            assert migrate.tenant_revision(conn, "hospital_000000000002") == _head()


class TestEveryTenantAtHead:
    def test_after_signups(self, client: Any) -> None:
        for _ in range(3):
            signup(client, hospital_payload())
        with platform_session() as s:
            schemas = registry.all_schema_names(s)
        assert "independent" in schemas and len(schemas) == 4
        with get_engine().connect() as conn:
            assert {migrate.tenant_revision(conn, s) for s in schemas} == {_head()}


class TestMigrateAll:
    def test_new_revision_reaches_every_schema_and_failures_are_per_schema(
        self, client: Any, tmp_path: Path, monkeypatch: Any
    ) -> None:
        monkeypatch.setattr(migrate, "SCHEMAS_PER_JOB", 1)  # worker processes even for a few schemas
        for _ in range(3):
            signup(client, hospital_payload())
        with platform_session() as s:
            schemas = registry.all_schema_names(s)
        # a copy of the tenant tree with one more revision that adds a column
        scripts = tmp_path / "tenant"
        shutil.copytree(migrate.TENANT_SCRIPTS, scripts)
        (scripts / "versions" / "t9999_test_column.py").write_text(
            textwrap.dedent(
                f'''
                import sqlalchemy as sa
                from alembic import op

                revision = "t9999"
                down_revision = "{_head()}"
                branch_labels = None
                depends_on = None


                def upgrade():
                    op.add_column("doctors", sa.Column("nickname", sa.String(20)))


                def downgrade():
                    op.drop_column("doctors", "nickname")
                '''
            )
        )
        # break one schema so its migration fails
        broken = schemas[1]
        with get_engine().begin() as conn:
            conn.execute(text(f'ALTER TABLE "{broken}".doctors ADD COLUMN nickname text'))

        results = migrate.upgrade_tenant_schemas(get_engine(), schemas, jobs=4, scripts=scripts)
        failed = migrate.failed(results)
        assert [r.schema for r in failed] == [broken]
        assert "nickname" in (failed[0].error or "")
        with get_engine().connect() as conn:
            for schema in schemas:
                rev = migrate.tenant_revision(conn, schema)
                assert rev == (_head() if schema == broken else "t9999")
        # the failed schema was left untouched at its old revision, in one piece
        with get_engine().begin() as conn:
            for schema in schemas:
                if schema != broken:
                    conn.execute(text(f'ALTER TABLE "{schema}".doctors DROP COLUMN nickname'))
                conn.execute(text(f'UPDATE "{schema}".alembic_version SET version_num = :h'), {"h": _head()})
            conn.execute(text(f'ALTER TABLE "{broken}".doctors DROP COLUMN nickname'))


def _tree_with_column(tmp_path: Path) -> Path:
    """A copy of the tenant tree with one more revision (t9999) adding doctors.nickname."""
    scripts = tmp_path / "tenant"
    shutil.copytree(migrate.TENANT_SCRIPTS, scripts)
    (scripts / "versions" / "t9999_test_column.py").write_text(
        textwrap.dedent(
            f'''
            import sqlalchemy as sa
            from alembic import op

            revision = "t9999"
            down_revision = "{_head()}"
            branch_labels = None
            depends_on = None


            def upgrade():
                op.add_column("doctors", sa.Column("nickname", sa.String(20)))


            def downgrade():
                op.drop_column("doctors", "nickname")
            '''
        )
    )
    return scripts


class TestMigrateOnlyWhatNeedsIt:
    def test_schemas_at_target_are_skipped_and_the_one_behind_is_migrated(
        self, client: Any, tmp_path: Path
    ) -> None:
        for _ in range(4):
            signup(client, hospital_payload())
        with platform_session() as s:
            schemas = registry.all_schema_names(s)
        scripts = _tree_with_column(tmp_path)
        behind, regrant, missing = schemas[1], schemas[2], "hospital_ffffffffffff"
        no_defaults = schemas[3]
        # every schema but `behind` is already at t9999, as if migrated before
        with get_engine().begin() as conn:
            database = str(conn.execute(text("SELECT current_database()")).scalar_one())
            for schema in schemas:
                if schema != behind:
                    conn.execute(text(f'ALTER TABLE "{schema}".doctors ADD COLUMN nickname varchar(20)'))
                    conn.execute(text(f"UPDATE \"{schema}\".alembic_version SET version_num = 't9999'"))
            # and one role lost its rights on its schema's tables
            role = roles.role_for(database, regrant)
            conn.execute(text(f'REVOKE ALL ON ALL TABLES IN SCHEMA "{regrant}" FROM "{role}"'))
            # and another its default privileges for the tables later revisions add
            other = roles.role_for(database, no_defaults)
            conn.execute(
                text(
                    f'ALTER DEFAULT PRIVILEGES IN SCHEMA "{no_defaults}"'
                    f' REVOKE SELECT, INSERT, UPDATE, DELETE ON TABLES FROM "{other}"'
                )
            )
        with get_engine().connect() as conn:
            plan = migrate.plan_tenant_upgrade(conn, [*schemas, missing], target="t9999", scripts=scripts)
        assert plan.behind == [behind, missing]
        assert plan.grants == sorted([regrant, no_defaults], key=schemas.index)
        assert sorted(plan.current) == sorted(set(schemas) - {behind, regrant, no_defaults})

        results = migrate.upgrade_tenant_schemas(
            get_engine(), [*schemas, missing], target="t9999", jobs=2, scripts=scripts
        )
        by_schema = {r.schema: r for r in results}
        # the schema that does not exist is reported, and did not stop the others
        assert [r.schema for r in migrate.failed(results)] == [missing]
        assert not any(by_schema[s].skipped for s in (behind, regrant, no_defaults))
        assert {s for s, r in by_schema.items() if r.skipped} == set(plan.current)
        with get_engine().begin() as conn:
            versions = migrate.tenant_versions(conn, schemas)
            assert set(versions.values()) == {frozenset({"t9999"})}
            # the revision really ran on the schema behind
            conn.execute(text(f'SELECT nickname FROM "{behind}".doctors'))
            # and the role's grants are back
            assert roles.incomplete_roles(conn, schemas) == set()
            for schema in schemas:
                conn.execute(text(f'ALTER TABLE "{schema}".doctors DROP COLUMN nickname'))
                conn.execute(text(f'UPDATE "{schema}".alembic_version SET version_num = :h'), {"h": _head()})

    def test_nothing_to_do_runs_nothing(self, client: Any) -> None:
        signup(client, hospital_payload())
        with platform_session() as s:
            schemas = registry.all_schema_names(s)
        results = migrate.upgrade_tenant_schemas(get_engine(), schemas, jobs=4)
        assert [r.skipped for r in results] == [True] * len(schemas)
        assert not migrate.failed(results)

    def test_reading_every_version_leaves_no_lock_on_the_schemas(self, client: Any) -> None:
        # A lock per version table read, held to the end of the caller's transaction, ran the
        # server's shared lock table out at 10,000 schemas.
        signup(client, hospital_payload())
        with platform_session() as s:
            schemas = registry.all_schema_names(s)
        with get_engine().begin() as conn:
            versions = migrate.tenant_versions(conn, schemas)
            held = conn.execute(
                text(
                    "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                    " WHERE l.pid = pg_backend_pid() AND c.relname = 'alembic_version'"
                )
            ).scalar_one()
        assert len(schemas) >= 2
        assert all(versions[s] == frozenset({_head()}) for s in schemas)
        assert held == 0


class TestTenantRoleGrants:
    def test_every_table_view_and_sequence_of_the_schema_is_granted(self, client: Any) -> None:
        # The grants name the schema's relations (found through pg_depend) instead of reading all
        # of pg_class for them; whatever kind of relation the schema holds must still be granted.
        signup(client, hospital_payload())
        with platform_session() as s:
            schema = next(x for x in registry.all_schema_names(s) if x.startswith("hospital_"))
        with get_engine().begin() as conn:
            database = str(conn.execute(text("SELECT current_database()")).scalar_one())
            role = roles.role_for(database, schema)
            conn.execute(text(f'CREATE TABLE "{schema}".extra_table (id BIGSERIAL PRIMARY KEY)'))
            conn.execute(text(f'CREATE VIEW "{schema}".extra_view AS SELECT 1 AS one'))
            conn.execute(text(f'CREATE SEQUENCE "{schema}".extra_sequence'))
            # Default privileges granted the new ones: take every grant away, then ask again.
            conn.execute(text(f'REVOKE ALL ON ALL TABLES IN SCHEMA "{schema}" FROM "{role}"'))
            conn.execute(text(f'REVOKE ALL ON ALL SEQUENCES IN SCHEMA "{schema}" FROM "{role}"'))
            assert roles.incomplete_roles(conn, [schema]) == {schema}
            roles.ensure_tenant_role(conn, schema)
            assert roles.incomplete_roles(conn, [schema]) == set()
            deletable = set(
                conn.execute(
                    text(
                        "SELECT table_name FROM information_schema.role_table_grants"
                        " WHERE table_schema = :s AND grantee = :r AND privilege_type = 'DELETE'"
                    ),
                    {"s": schema, "r": role},
                ).scalars()
            )
            sequences = conn.execute(
                text(
                    "SELECT has_sequence_privilege(:r, :a, 'USAGE'), has_sequence_privilege(:r, :b, 'USAGE')"
                ),
                {"r": role, "a": f"{schema}.extra_sequence", "b": f"{schema}.extra_table_id_seq"},
            ).one()
            conn.execute(text(f'DROP VIEW "{schema}".extra_view'))
            conn.execute(text(f'DROP TABLE "{schema}".extra_table'))
            conn.execute(text(f'DROP SEQUENCE "{schema}".extra_sequence'))
        assert {"doctors", "alembic_version", "extra_table", "extra_view"} <= deletable
        assert tuple(sequences) == (True, True)


class TestCli:
    def test_list_and_migrate(self, client: Any, capsys: Any) -> None:
        signup(client, hospital_payload())
        assert cli(["list"]) == 0
        out = capsys.readouterr().out
        assert "independent\tindependent\tactive\t" + _head() in out
        assert "2 tenants" in out
        assert cli(["migrate", "--jobs", "2"]) == 0
        assert "migrated 2/2 tenant schemas" in capsys.readouterr().out
