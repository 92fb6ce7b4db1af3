"""./ops/test holds on a fresh, busy machine.

What the suite builds (Citus) is prepared before pytest starts, outside any per-test timeout, and
cached by the hash of its sources; every apt-get waits for the dpkg lock another install holds.
./ops/test itself is not run here (it rewrites the shared environment): its pieces are.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BOOTSTRAP = REPO / "ops" / "lib" / "bootstrap.sh"
OPS_TEST = REPO / "ops" / "test"
CLUSTER = REPO / "ops" / "citus" / "cluster"
APT_CALL = re.compile(r"\bapt-get\b(?P<args>[^\n|;&]*?)\b(install|update)\b")


@pytest.fixture(autouse=True)
def clean_state() -> Iterator[None]:
    """These tests read scripts and run them on scratch directories: no database reset."""
    yield


def _code_lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")]


@pytest.mark.parametrize("script", [BOOTSTRAP, CLUSTER], ids=lambda p: str(p.relative_to(REPO)))
def test_every_apt_get_waits_for_the_dpkg_lock(script: Path) -> None:
    text = script.read_text()
    assert re.search(r"^APT_WAIT=\(-o DPkg::Lock::Timeout=600\)$", text, re.M), "APT_WAIT is defined"
    # Messages that name the command to type (echo, fail) are not calls.
    commands = [line for line in _code_lines(script) if not re.search(r"\b(echo|fail) \"", line)]
    calls = [m for line in commands for m in APT_CALL.finditer(line)]
    assert calls, "the script installs packages"
    for call in calls:
        assert '"${APT_WAIT[@]}"' in call.group("args"), call.group(0)


def test_ops_test_prepares_what_the_suite_builds_before_pytest() -> None:
    lines = [line.strip() for line in _code_lines(OPS_TEST)]
    pytest_at = next(i for i, line in enumerate(lines) if line.startswith('"$VENV/bin/pytest"'))
    for step in ("ensure_citus_build", "ensure_checkov", "ensure_chromium", "ensure_espeak"):
        assert step in lines[:pytest_at], f"{step} runs before pytest"
    assert 'ensure_node_app "$app"' in lines[:pytest_at]
    # The step is defined where ./ops/test finds it, and builds through the cluster script.
    body = BOOTSTRAP.read_text().split("ensure_citus_build() {", 1)[1].split("\n}\n", 1)[0]
    assert '"$REPO_ROOT/ops/citus/cluster" build' in body


@pytest.fixture
def fake_citus(tmp_path: Path) -> dict[str, str]:
    """A Citus "source" and a "build" of it in scratch directories: `built` reads only their stamps."""
    source = tmp_path / "source"
    source.mkdir()
    (source / "citus-13.2.2.tar.gz").write_bytes(b"the sources")
    (source / "pg15-minor-compat.patch").write_text("a patch\n")
    data = tmp_path / "data"
    lib = data / "pg" / "usr" / "lib" / "postgresql" / "15" / "lib"
    lib.mkdir(parents=True)
    (lib / "citus.so").write_bytes(b"")
    return {**os.environ, "CITUS_SOURCE": str(source), "CITUS_DATA": str(data)}


def _built(env: dict[str, str]) -> bool:
    return subprocess.run([str(CLUSTER), "built"], env=env, capture_output=True, check=False).returncode == 0


def _stamp(env: dict[str, str]) -> Path:
    return Path(env["CITUS_DATA"]) / "pg" / ".citus-13.2.2"


def test_a_build_is_found_again_only_for_the_same_sources(fake_citus: dict[str, str]) -> None:
    assert not _built(fake_citus), "no stamp: not built"
    # A stamp from before builds were keyed by their sources (an empty file) does not count.
    _stamp(fake_citus).touch()
    assert not _built(fake_citus)
    key = subprocess.run(
        [str(CLUSTER), "source-key"], env=fake_citus, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert re.fullmatch(r"[0-9a-f]{64}", key)
    # What the build writes once it has installed citus.so: a later run finds it.
    _stamp(fake_citus).write_text(key + "\n")
    assert _built(fake_citus)
    # Other sources (a new patch): built again.
    (Path(fake_citus["CITUS_SOURCE"]) / "pg15-minor-compat.patch").write_text("another patch\n")
    assert not _built(fake_citus)
    (Path(fake_citus["CITUS_SOURCE"]) / "pg15-minor-compat.patch").write_text("a patch\n")
    assert _built(fake_citus)
    # A build whose library is gone is no build.
    next(Path(fake_citus["CITUS_DATA"]).rglob("citus.so")).unlink()
    assert not _built(fake_citus)
