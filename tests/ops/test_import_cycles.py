"""No import cycle between modules of cara, tenants and workers.

lint-imports' `acyclic` contract (pyproject.toml) sees cycles between the packages of cara only;
this test sees every module, inside a package too: `cara.auth.service` importing
`cara.auth.sessions`, which imports `cara.auth.service` back, is a cycle here.

What counts as an import is what grimp (import-linter's graph) reads from the source: statements
at module level and inside functions alike (an import deferred into a function to get past a
cycle at start-up still leaves the cycle), but not those under `if TYPE_CHECKING:`, which never
run (`exclude_type_checking_imports`).

Each cycle is printed as its chain of modules, each link with the line of its import. Every import
that lies on a cycle is shown in at least one of them: for each import `a -> b` whose target leads
back to `a`, the shortest way back closes a cycle.
"""

from __future__ import annotations

from collections.abc import Iterator

import grimp
import pytest

PACKAGES = ("cara", "tenants", "workers")


@pytest.fixture(autouse=True)
def clean_state() -> Iterator[None]:
    """This test only reads files: no database or Redis reset around it."""
    yield


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True, cache_dir=None)


def find_cycles(graph: grimp.ImportGraph) -> list[tuple[str, ...]]:
    """Each distinct cycle closed by an import of the graph, as modules from its smallest name
    (the first module again closes it), shortest first."""
    cycles: set[tuple[str, ...]] = set()
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            if imported == importer:
                continue
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is None:
                continue
            cycle = (importer, *back[:-1])  # importer -> imported -> ... -> (importer)
            start = cycle.index(min(cycle))
            cycles.add(cycle[start:] + cycle[:start])
    return sorted(cycles, key=lambda c: (len(c), c))


def describe(graph: grimp.ImportGraph, cycle: tuple[str, ...]) -> str:
    """`a (line 3) -> b (line 7) -> a`: each module with the line of its import of the next."""
    parts = []
    for importer, imported in zip(cycle, (*cycle[1:], cycle[0]), strict=True):
        details = graph.get_import_details(importer=importer, imported=imported)
        lines = ", ".join(str(d["line_number"]) for d in details) or "?"
        parts.append(f"{importer} (line {lines})")
    return " -> ".join([*parts, cycle[0]])


def test_no_import_cycle_between_modules() -> None:
    graph = _graph()
    assert {m.partition(".")[0] for m in graph.modules} == set(PACKAGES)
    cycles = find_cycles(graph)
    assert not cycles, f"{len(cycles)} import cycle(s) between modules:\n" + "\n".join(
        describe(graph, c) for c in cycles
    )


def test_a_cycle_is_found_and_printed() -> None:
    """The finder on a small graph of its own: a three-module cycle, a two-module one, and a
    chain that is no cycle."""
    graph = grimp.ImportGraph()
    for importer, imported in [
        ("pkg.a", "pkg.b"),
        ("pkg.b", "pkg.c"),
        ("pkg.c", "pkg.a"),
        ("pkg.d", "pkg.e"),
        ("pkg.e", "pkg.d"),
        ("pkg.e", "pkg.f"),
    ]:
        graph.add_import(importer=importer, imported=imported, line_number=1, line_contents="import x")
    cycles = find_cycles(graph)
    assert cycles == [("pkg.d", "pkg.e"), ("pkg.a", "pkg.b", "pkg.c")]
    assert describe(graph, cycles[0]) == "pkg.d (line 1) -> pkg.e (line 1) -> pkg.d"
