"""Services and repositories never commit (docs/architecture.md): whoever owns the transaction
commits, the endpoint once its request's work is done, or the worker actor, scheduler job or live
relay that opened the session, and so a service can be called inside a larger transaction
without ending it halfway.

The check reads the source: any `<something>.commit` (called, awaited, or handed on as a
callable) in a service or repository module is an offender, printed as file:line. Those modules
are every `service.py` and `repository.py` under platform/cara, every module of a package named
`service` or `repository` (`consultations/service/notes.py`), and `billing/events.py`, the billing
domain's webhook service under its own name.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CARA = REPO / "platform" / "cara"
LAYER_NAMES = {"service", "repository"}
# Services under another name.
ALSO = ("billing/events.py",)


@pytest.fixture(autouse=True)
def clean_state() -> Iterator[None]:
    """These tests only read files: no database or Redis reset around them."""
    yield


def is_service_or_repository(path: Path, root: Path = CARA) -> bool:
    relative = path.relative_to(root)
    return (
        path.stem in LAYER_NAMES
        or any(part in LAYER_NAMES for part in relative.parts[:-1])
        or relative.as_posix() in ALSO
    )


def checked_modules(root: Path = CARA) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if is_service_or_repository(p, root))


def commits(source: str) -> list[int]:
    """The lines of `<something>.commit` in the source (a call, an await, or a reference)."""
    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and node.attr == "commit"
    )


def test_services_and_repositories_never_commit() -> None:
    modules = checked_modules()
    assert CARA / "auth" / "service.py" in modules and CARA / "billing" / "events.py" in modules
    offenders = [f"{path.relative_to(REPO)}:{line}" for path in modules for line in commits(path.read_text())]
    assert not offenders, (
        f"{len(offenders)} commit(s) in service or repository modules; the endpoint, worker actor or "
        "live relay that owns the session commits:\n" + "\n".join(offenders)
    )


def test_the_modules_checked(tmp_path: Path) -> None:
    for name in (
        "auth/service.py",
        "auth/repository.py",
        "consultations/service/notes.py",
        "consultations/service/__init__.py",
        "live/repository/lines/store.py",
        "billing/events.py",
        "auth/endpoints.py",
        "live/relay.py",
        "billing/sync.py",
        "service_names.py",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).touch()
    assert [p.relative_to(tmp_path).as_posix() for p in checked_modules(tmp_path)] == [
        "auth/repository.py",
        "auth/service.py",
        "billing/events.py",
        "consultations/service/__init__.py",
        "consultations/service/notes.py",
        "live/repository/lines/store.py",
    ]


def test_every_kind_of_commit_is_found() -> None:
    source = (
        "def a(session):\n"
        "    session.commit()\n"
        "async def b(session):\n"
        "    await session.commit()\n"
        "def c(conn):\n"
        "    conn.run_sync(conn.session.commit)\n"
        "def d(session):\n"
        "    session.flush()  # commit-free\n"
        "    enqueue_after_commit(session, 'mail.x')\n"
    )
    assert commits(source) == [2, 4, 6]
