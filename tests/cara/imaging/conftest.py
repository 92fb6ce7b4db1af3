"""Imaging: Cara pointed at the run's real Orthanc (tests/conftest.py), doctors on trial, and
DICOM files made from pydicom's example CT with fresh UIDs (the PACS outlives each test)."""

from __future__ import annotations

import io
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from pydicom import examples
from pydicom.dataset import Dataset
from pydicom.uid import generate_uid

from cara.config import get_settings
from tests.cara.consultations.conftest import start, subscribe
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup


@pytest.fixture(autouse=True)
def _assistant_needs_a_subscription(doctors_on_trial: None) -> None:
    """A consultation (which a study is attached to) needs a subscription; the doctors are on trial."""


@pytest.fixture(autouse=True)
def pacs(orthanc: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The platform's PACS is the run's Orthanc, as ./ops/dev sets it; a hospital may name an
    address on this machine (the test's Orthanc and doubles listen on 127.0.0.1)."""
    settings = get_settings()
    monkeypatch.setattr(settings, "pacs_url", orthanc.dicomweb_url)
    monkeypatch.setattr(settings, "pacs_username", orthanc.username)
    monkeypatch.setattr(settings, "pacs_password", orthanc.password)
    monkeypatch.setattr(settings, "pacs_allow_loopback", True)
    monkeypatch.setattr(settings, "pacs_timeout_seconds", 3.0)
    return orthanc


@pytest.fixture
def doctor(client: Any) -> dict[str, str]:
    return auth(signup(client, doctor_payload(specialty="Radiologist"))["token"])


def consultation(client: Any, headers: dict[str, str]) -> str:
    answer = start(client, headers)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


def hospital_and_doctor(client: Any, name: str = "Dr Ama Owusu") -> tuple[dict[str, str], dict[str, str]]:
    token = signup(client, hospital_payload())["token"]
    subscribe(token)
    staff = add_staff(client, doctor_payload(name=name, specialty="Radiologist"), token)
    return auth(token), auth(staff["token"])


def ct_study(
    slices: int = 2, *, patient: str = "Mensah^Kofi", accession: str = "ACC1", modality: str = "CT"
) -> list[Dataset]:
    """A study of `slices` instances, pydicom's example CT with new UIDs and the given headers."""
    study = generate_uid()
    series = generate_uid()
    out = []
    for index in range(slices):
        ds = examples.ct.copy()
        ds.file_meta = examples.ct.file_meta.copy()
        ds.StudyInstanceUID = study
        ds.SeriesInstanceUID = series
        ds.SOPInstanceUID = generate_uid()
        ds.file_meta.MediaStorageSOPInstanceUID = ds.SOPInstanceUID
        ds.InstanceNumber = index + 1
        ds.PatientName = patient
        ds.PatientID = f"PID-{accession}"
        ds.AccessionNumber = accession
        ds.Modality = modality
        ds.StudyDate = "20261120"
        out.append(ds)
    return out


def encode(ds: Dataset) -> bytes:
    buffer = io.BytesIO()
    ds.save_as(buffer, enforce_file_format=True)
    return buffer.getvalue()


def upload(client: Any, headers: dict[str, str], cid: str, files: list[tuple[str, bytes]]) -> Any:
    return client.post(
        "/api/imaging/studies",
        data={"consultationId": cid},
        files=[("files", (name, data, "application/dicom")) for name, data in files],
        headers=headers,
    )


class SilentServer:
    """A TCP server that accepts connections and never answers: a PACS that times out."""

    def __init__(self) -> None:
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        self.port = self._socket.getsockname()[1]
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        self._socket.settimeout(0.2)
        while not self._stop.is_set():
            try:
                conn, _ = self._socket.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._held.append(conn)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        for conn in self._held:
            conn.close()
        self._socket.close()


@pytest.fixture
def silent_pacs() -> Iterator[str]:
    server = SilentServer()
    try:
        yield f"http://127.0.0.1:{server.port}/dicom-web"
    finally:
        server.close()
