"""Studies brought into the radiologist's console in Chromium (tests/e2e/web/imaging.test.mjs).

The API runs with the project's Gemini double (a consultation is opened by connecting, after the
patient's consent) and with the run's real Orthanc as the platform's PACS. The files are DICOM
made from pydicom's example CT; the checks after the script ask Orthanc itself what it holds.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cara_doubles.gemini import GeminiDouble
from tests.cara.admin_console.seed import subscribe
from tests.cara.imaging.conftest import ct_study, encode
from tests.e2e.conftest import ARTIFACTS, REPO, run_browser_script
from tests.e2e.test_web_consoles import (  # noqa: F401  (fixtures)
    MEDIA_ARGS,
    DoubleControl,
    _api_server,
    control,
    gemini,
)
from tests.factories import add_staff, doctor_payload, hospital_payload, signup

SCRIPT = REPO / "tests" / "e2e" / "web" / "imaging.test.mjs"


@pytest.fixture
def imaging_server(tmp_path: Path, gemini: GeminiDouble, orthanc: Any) -> Iterator[str]:  # noqa: F811
    env = {
        **gemini.settings(),
        "CARA_DEMO_AI": "true",
        "PACS_URL": orthanc.dicomweb_url,
        "PACS_USERNAME": orthanc.username,
        "PACS_PASSWORD": orthanc.password,
        # The hospital's own PACS in this test is the same Orthanc, on this machine.
        "PACS_ALLOW_LOOPBACK": "true",
    }
    with _api_server(tmp_path / "imaging-server.log", env) as base:
        yield base


def _on_pacs(orthanc: Any, study_uid: str) -> int:
    answer = httpx.get(
        f"{orthanc.dicomweb_url}/studies",
        params={"StudyInstanceUID": study_uid, "includefield": "00201208"},
        auth=(orthanc.username, orthanc.password),
    )
    found = answer.json()
    return int(found[0]["00201208"]["Value"][0]) if found else 0


def test_web_imaging(
    imaging_server: str,
    control: DoubleControl,  # noqa: F811
    client: Any,
    orthanc: Any,
    tmp_path: Path,
) -> None:
    if not (REPO / "web" / "dist" / "index.html").exists():
        pytest.fail("web is not built: run `npm run build` in web/ (./ops/test does it first)")
    hospital = hospital_payload(name="Korle Bu Imaging")
    created = signup(client, hospital)
    subscribe(hospital["email"], "hospital-silver")
    doctor = doctor_payload(specialty="Radiologist", name="Esi Quaye", isHospitalCreated=True)
    add_staff(client, doctor, created["token"])

    files = tmp_path / "files"
    files.mkdir()
    chosen = ct_study(2, patient="Mensah^Kofi", accession="ACC42")
    for index, ds in enumerate(chosen, 1):
        (files / f"IMG{index:04d}.dcm").write_bytes(encode(ds))
    dropped = ct_study(3, patient="Owusu^Ama", accession="ACC43")
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle:  # stored, not deflated: big enough to show progress
        for index, ds in enumerate(dropped, 1):
            bundle.writestr(f"CT/IMG{index:04d}.dcm", encode(ds))
    (files / "study.zip").write_bytes(archive.getvalue())
    (files / "notes.txt").write_text("not an image\n" * 20)
    resumed = ct_study(2, patient="Asante^Efua", accession="ACC44")
    for index, ds in enumerate(resumed, 1):
        (files / f"resume-{index}.dcm").write_bytes(encode(ds))

    artifacts = ARTIFACTS / "web"
    artifacts.mkdir(parents=True, exist_ok=True)
    result = run_browser_script(
        SCRIPT,
        {
            "BASE_URL": imaging_server,
            "CONTROL_URL": control.url,
            "CHROMIUM_ARGS": json.dumps(MEDIA_ARGS),
            "ARTIFACTS_DIR": str(artifacts),
            "FIXTURES": json.dumps(
                {
                    "doctor": {
                        "email": doctor["email"],
                        "password": doctor["password"],
                        "name": doctor["name"],
                    },
                    "hospital": {
                        "email": hospital["email"],
                        "password": hospital["password"],
                        "name": hospital["name"],
                    },
                    "pacs": {
                        "url": orthanc.dicomweb_url,
                        "root": orthanc.url,
                        "username": orthanc.username,
                        "password": orthanc.password,
                    },
                    "files": str(files),
                    "chosenUid": chosen[0].StudyInstanceUID,
                    "droppedUid": dropped[0].StudyInstanceUID,
                    "resumedUid": resumed[0].StudyInstanceUID,
                }
            ),
        },
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-10000:] + result.stderr[-3000:]
    assert _on_pacs(orthanc, chosen[0].StudyInstanceUID) == 2
    assert _on_pacs(orthanc, dropped[0].StudyInstanceUID) == 3
    assert _on_pacs(orthanc, resumed[0].StudyInstanceUID) == 2
