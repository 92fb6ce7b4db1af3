"""The README's Configuration tables name every setting the code reads, and only those."""

from __future__ import annotations

import re
from pathlib import Path

import opentelemetry.sdk.environment_variables as otel_variables

from cara.config import Settings

REPO = Path(__file__).resolve().parents[1]
NAME = re.compile(r"`([A-Z][A-Z0-9_]*\*?)`")
# Where a variable read outside the Settings class must be read (code and scripts, not prose).
CODE_ROOTS = ("platform", "tenants", "workers", "ops", "tests", ".ci")
CODE_SUFFIXES = {".py", ".sh", ".mjs", ".js", ".ts", ""}
SKIP_DIRS = {"node_modules", "__pycache__", ".venv", ".data", "dist"}


def _configuration_section() -> str:
    readme = (REPO / "README.md").read_text()
    start = readme.index("\n## Configuration\n")
    end = readme.index("\n## ", start + 1)
    return readme[start:end]


def _documented() -> set[str]:
    """Names in the first column of every table row of the Configuration section."""
    names: set[str] = set()
    for line in _configuration_section().splitlines():
        if line.startswith("| `"):
            names.update(NAME.findall(line.split("|")[1]))
    return names


def _settings_variables() -> set[str]:
    names = set()
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        names.add(alias.upper() if isinstance(alias, str) else name.upper())
    return names


def _code_files() -> list[Path]:
    files = []
    for root in CODE_ROOTS:
        base = REPO / root
        candidates = [base] if base.is_file() else base.rglob("*")
        for path in candidates:
            if (
                path.is_file()
                and path.suffix in CODE_SUFFIXES
                and not SKIP_DIRS.intersection(path.parts)
                and path != Path(__file__).resolve()
            ):
                files.append(path)
    return files


def _read_by_our_code(name: str, files: list[Path]) -> bool:
    pattern = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")
    return any(pattern.search(path.read_text(errors="ignore")) for path in files)


def _read_by_opentelemetry(name: str) -> bool:
    """The standard OTEL_* variables the OpenTelemetry SDK reads itself."""
    known = {getattr(otel_variables, attr) for attr in dir(otel_variables) if attr.startswith("OTEL_")}
    if name.endswith("*"):
        return any(k.startswith(name[:-1]) for k in known)
    return name in known


def test_every_setting_is_in_the_readme() -> None:
    missing = _settings_variables() - _documented()
    assert not missing, f"settings missing from the README's Configuration tables: {sorted(missing)}"


def test_the_readme_names_only_variables_that_are_read() -> None:
    files = _code_files()
    unread = {
        name
        for name in _documented() - _settings_variables()
        if not _read_by_opentelemetry(name) and (name.endswith("*") or not _read_by_our_code(name, files))
    }
    assert not unread, f"the README documents variables nothing reads: {sorted(unread)}"


def test_the_tables_are_found() -> None:
    # Guards the two tests above against a README whose tables the parser no longer sees.
    assert {"DATABASE_URL", "CORS_ORIGINS", "TEST_REDIS_URL"} <= _documented()
