"""Domains import each other only through a named public surface.

A domain is a package directly under `cara` that holds product rules (the list
below). Another domain may import only its `service`, `schemas` and `dependencies`
modules; `repository`, `endpoints` and every other module are the domain's own.
A few shared modules are deliberate exceptions, each with its reason in
`EXCEPTIONS`. Plumbing (`cara.kit`, `cara.models`, `cara.config`,
`cara.observability`) is not a domain and is checked by the import contracts in
pyproject.toml, as are the app shell and `workers`.

import-linter's contract types name modules that are forbidden; this rule names
the few that are allowed, so it is written here over grimp's import graph.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import grimp
import pytest

DOMAINS = frozenset(
    {
        "admin_console",
        "analytics",
        "audit",
        "auth",
        "billing",
        "chat",
        "clinical",
        "consultations",
        "doctors",
        "health",
        "imaging",
        "live",
        "notifications",
        "plans",
        "profiles",
        "recordings",
        "registration",
        "subscriptions",
        "summaries",
    }
)
SURFACE = frozenset({"service", "schemas", "dependencies"})

# imported module -> (domains allowed to import it, why)
EXCEPTIONS: dict[str, tuple[frozenset[str] | None, str]] = {
    "cara.auth.principal": (
        None,
        "who is calling: the Principal type and the role checks every endpoint declares",
    ),
    "cara.auth.passwords": (
        None,
        "password hashing and the per-role minimum length, shared by every form that sets a password",
    ),
    "cara.auth.tokens": (
        frozenset({"registration"}),
        "a new account is signed in at once with the same token a login issues",
    ),
    "cara.analytics.periods": (
        frozenset({"admin_console"}),
        "calendar arithmetic (weeks, months, years) shared by the rollups and the console's charts",
    ),
    "cara.plans.catalog": (
        frozenset({"billing"}),
        "the plan catalogue as data, which billing prices in Stripe",
    ),
    "cara.billing.seats": (
        frozenset({"doctors", "registration"}),
        "the seat and trial rule, applied inside the caller's transaction while it creates a doctor",
    ),
    "cara.live.permission": (
        frozenset({"chat", "summaries"}),
        "the one check of who may use the assistant, shared by every assistant endpoint",
    ),
    "cara.clinical.tool": (
        frozenset({"live", "chat"}),
        "clinical is a library of deterministic checks; its tool declaration is what the assistant calls",
    ),
    "cara.doctors.specialties": (
        frozenset({"live"}),
        "the specialty vocabulary that picks an assistant profile",
    ),
}


def _domain(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "cara" and parts[1] in DOMAINS else None


def _allowed(importer_domain: str, imported: str) -> bool:
    parts = imported.split(".")
    if len(parts) >= 3 and parts[2] in SURFACE:
        return True
    for module, (importers, _reason) in EXCEPTIONS.items():
        if imported == module or imported.startswith(module + "."):
            return importers is None or importer_domain in importers
    return False


def violations(graph: grimp.ImportGraph) -> list[str]:
    """`importer -> imported` for each import of another domain's private module."""
    found = []
    for importer in sorted(graph.modules):
        source = _domain(importer)
        if source is None:
            continue
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            target = _domain(imported)
            if target is None or target == source:
                continue
            if not _allowed(source, imported):
                found.append(f"{importer} -> {imported}")
    return found


def test_domains_import_each_other_only_through_their_surface() -> None:
    assert violations(grimp.build_graph("cara", cache_dir=None)) == []


def test_every_exception_names_a_module_that_exists() -> None:
    graph = grimp.build_graph("cara", cache_dir=None)
    assert [m for m in EXCEPTIONS if m not in graph.modules] == []


def test_a_private_import_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted tree where one domain reaches into another's repository and endpoints."""
    root = tmp_path / "cara"
    files = {
        "__init__.py": "",
        "billing/__init__.py": "",
        "billing/repository.py": "",
        "billing/service.py": "from cara.billing import repository\n",
        "doctors/__init__.py": "",
        "doctors/endpoints.py": "",
        "doctors/service.py": textwrap.dedent(
            """
            from cara.billing import service
            from cara.billing.repository import x
            from cara.live import endpoints
            from cara.live.permission import check
            """
        ),
        "live/__init__.py": "",
        "live/endpoints.py": "import cara.doctors.endpoints\n",
        "live/permission.py": "",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m == "cara" or m.startswith("cara.")]:
        monkeypatch.delitem(sys.modules, name)
    graph = grimp.build_graph("cara", cache_dir=None)
    assert violations(graph) == [
        "cara.doctors.service -> cara.billing.repository",
        "cara.doctors.service -> cara.live.endpoints",
        # cara.live.permission is an exception for chat and summaries only
        "cara.doctors.service -> cara.live.permission",
        "cara.live.endpoints -> cara.doctors.endpoints",
    ]
