"""The embedded PACS: Debian's Orthanc started and stopped by the project's own code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from cara_devstack import embedded


def test_session_orthanc_serves_dicomweb_behind_its_password(orthanc: Any) -> None:
    studies = f"{orthanc.dicomweb_url}/studies"
    assert httpx.get(studies, auth=(orthanc.username, orthanc.password)).status_code == 200
    assert httpx.get(studies).status_code == 401
    assert httpx.get(studies, auth=(orthanc.username, "wrong")).status_code == 401


def test_start_and_stop_keep_data_and_password(tmp_path: Path) -> None:
    if not embedded.orthanc_installed():
        pytest.skip("Orthanc is not installed")
    first = embedded.start_orthanc(tmp_path / "orthanc")
    try:
        assert first.running
        password = first.password
        with pytest.raises(embedded.ServerError, match="in use"):
            embedded.start_orthanc(tmp_path / "orthanc")
    finally:
        first.stop()
    assert not first.running
    assert (tmp_path / "orthanc" / "storage" / "index").exists()
    again = embedded.start_orthanc(tmp_path / "orthanc")
    try:
        assert again.password == password
        answer = httpx.get(f"{again.url}/system", auth=(again.username, password))
        assert answer.status_code == 200
        assert answer.json()["Name"] == "cara-embedded"
    finally:
        again.stop()


def test_dev_stack_points_every_tenant_at_its_orthanc(tmp_path: Path, monkeypatch: Any) -> None:
    from contextlib import ExitStack

    from cara_devstack import __main__ as devstack

    if not embedded.orthanc_installed():
        pytest.skip("Orthanc is not installed")
    monkeypatch.setattr(devstack, "DATA_DIR", tmp_path)
    monkeypatch.setattr(devstack, "REPO_ROOT", tmp_path)
    lines: list[str] = []

    class Quiet:
        def say(self, text: str) -> None:
            lines.append(text)

    env: dict[str, str] = {}
    servers: list[Any] = []
    with ExitStack() as stack:
        devstack._pacs(stack, env, servers, Quiet())  # type: ignore[arg-type]
        assert env["PACS_URL"].endswith("/dicom-web")
        answer = httpx.get(f"{env['PACS_URL']}/studies", auth=(env["PACS_USERNAME"], env["PACS_PASSWORD"]))
        assert answer.status_code == 200
        (server,) = servers
    assert not server.running  # the stack stopped it
    env = {"PACS_URL": "https://pacs.example.org/dicom-web"}
    with ExitStack() as stack:
        devstack._pacs(stack, env, [], Quiet())  # type: ignore[arg-type]
    assert lines[-1] == "using PACS_URL from the environment"
