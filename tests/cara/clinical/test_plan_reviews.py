"""/api/plan-reviews: a radiotherapist uploads a plan's files to a consultation, the worker computes
the DVH table, and it is read back; roles, tenants, sizes and bad files are refused."""

from __future__ import annotations

import time
from typing import Any

import pytest

from cara.clinical.dose_constraints import physical_dose_for_eqd2
from cara.clinical.dvh import phantoms
from tests.cara.consultations.conftest import schema_and_account, subscribe
from tests.factories import add_staff, auth, doctor_payload, hospital_payload, signup

URL = "/api/plan-reviews"
FILES = "/api/plan-review-files"


@pytest.fixture(autouse=True)
def _on_trial(doctors_on_trial: None) -> None:
    """Independent doctors here are on their free trial, so they have clinical access."""


@pytest.fixture(scope="module")
def plan() -> dict[str, bytes]:
    # 30 Gy + 0.5 Gy/mm along x; the cord box spans x -5..5 (27.5-32.5 Gy), in 5 fractions.
    grid = phantoms.dose_grid((-30, -30, -30), (30, 30, 30), (3.0, 3.0, 3.0), lambda x, y, z: 30 + 0.5 * x)
    cord = phantoms.box((-5, -5, -10), (5, 5, 10), 2.0, name="Spinal Cord")
    heart = phantoms.box((-20, -20, -10), (-10, -10, 10), 2.0, name="Heart")
    ptv = phantoms.box((0, 0, -6), (10, 10, 6), 2.0, name="PTV_30")
    return phantoms.plan_files([cord, heart, ptv], grid, fractions=5, prescription_gy=30)


def radiotherapist(client: Any) -> dict[str, str]:
    return auth(signup(client, doctor_payload(specialty="Radiotherapist"))["token"])


def consultation(client: Any, headers: dict[str, str], console: str = "radiotherapist") -> str:
    r = client.post("/api/consultations", json={"console": console, "consent": True}, headers=headers)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def new_review(client: Any, headers: dict[str, str]) -> str:
    r = client.post(URL, json={"consultationId": consultation(client, headers)}, headers=headers)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def put(client: Any, headers: dict[str, str], rid: str, kind: str, data: bytes, name: str) -> Any:
    return client.put(
        f"{FILES}/{rid}/{kind}",
        params={"filename": name},
        content=data,
        headers={**headers, "Content-Type": "application/octet-stream"},
    )


def upload(client: Any, headers: dict[str, str], rid: str, files: dict[str, bytes]) -> None:
    for kind, data in files.items():
        r = put(client, headers, rid, kind, data, f"{kind}.dcm")
        assert r.status_code == 200, r.text


def wait_done(client: Any, headers: dict[str, str], rid: str, timeout: float = 40.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = client.get(f"{URL}/{rid}", headers=headers).json()
        if body["state"] in ("done", "failed"):
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.2)


def test_upload_compute_and_read_the_table(client: Any, worker: Any, plan: dict[str, bytes]) -> None:
    doctor = radiotherapist(client)
    rid = new_review(client, doctor)
    upload(client, doctor, rid, plan)
    files = client.get(f"{URL}/{rid}", headers=doctor).json()["files"]
    assert [(f["kind"], f["filename"]) for f in files] == [
        ("rtdose", "rtdose.dcm"),
        ("rtplan", "rtplan.dcm"),
        ("rtstruct", "rtstruct.dcm"),
    ]
    r = client.post(f"{URL}/{rid}/compute", json={}, headers=doctor)
    assert r.status_code == 202, r.text
    assert r.json()["state"] == "queued"
    body = wait_done(client, doctor, rid)
    assert body["state"] == "done", body
    assert body["progress"] == body["progressTotal"] == 3
    result = body["result"]
    assert result["fractions"] == 5 and result["fractionsSource"] == "rtplan.dcm"
    by_name = {s["name"]: s for s in result["structures"]}
    assert by_name["Spinal Cord"]["dmeanGy"] == pytest.approx(30.0, abs=0.05)
    assert by_name["Spinal Cord"]["organKey"] == "spinal_cord"
    assert by_name["PTV_30"]["organKey"] is None
    assert len(by_name["Heart"]["curve"]) == 101
    checks = {(c["structure"], c["metric"]): c for c in result["checks"]}
    # Cord Dmax about 32.4 Gy in 5 fractions: EQD2 = D (D/5 + 3) / 5 = 61.5 Gy, over 50 Gy.
    cord = checks[("Spinal Cord", "Dmax")]
    assert cord["status"] == "fail" and cord["eqd2Gy"] > 50
    assert cord["source"]["citation"].startswith("Marks LB")
    # Heart at 20-25 Gy: V25 in 5 fractions is read at 18.6 Gy physical (EQD2 25 Gy), all of it.
    heart = checks[("Heart", "V25")]
    assert heart["readAtGy"] == pytest.approx(physical_dose_for_eqd2(25, 5, 3.0), abs=0.01)
    assert heart["value"] == pytest.approx(100) and heart["status"] == "fail"


def test_corrections_fractions_and_alpha_beta(client: Any, worker: Any, plan: dict[str, bytes]) -> None:
    doctor = radiotherapist(client)
    rid = new_review(client, doctor)
    upload(client, doctor, rid, plan)
    settings = {
        "fractions": 15,
        "structureOrgans": {"Heart": None, "PTV_30": "brainstem"},
        "alphaBeta": {"spinal_cord": 2.0},
    }
    assert client.post(f"{URL}/{rid}/compute", json=settings, headers=doctor).status_code == 202
    body = wait_done(client, doctor, rid)
    assert body["settings"] == settings
    result = body["result"]
    assert result["fractions"] == 15 and result["fractionsSource"] == "entered"
    assert {c["structure"] for c in result["checks"]} == {"Spinal Cord", "PTV_30"}
    cord = next(c for c in result["checks"] if c["structure"] == "Spinal Cord")
    assert cord["alphaBetaGy"] == 2.0
    bad = client.post(f"{URL}/{rid}/compute", json={"alphaBeta": {"heart": 45}}, headers=doctor)
    assert bad.status_code == 422 and "between 0.5 and 20" in bad.json()["message"]
    bad = client.post(f"{URL}/{rid}/compute", json={"structureOrgans": {"Heart": "spleen"}}, headers=doctor)
    assert bad.status_code == 422 and "not a QUANTEC organ" in bad.json()["message"]


def test_hospital_saved_names_apply_to_its_doctors(client: Any, worker: Any, plan: dict[str, bytes]) -> None:
    token = signup(client, hospital_payload())["token"]
    subscribe(token)
    hospital = auth(token)
    staff = auth(add_staff(client, doctor_payload(specialty="Radiotherapist"), token)["token"])
    saved = client.put(
        f"{URL}/structure-names", json={"names": [{"name": "PTV_30", "organKey": "larynx"}]}, headers=hospital
    )
    assert saved.status_code == 200, saved.text
    assert saved.json() == {"names": [{"name": "ptv 30", "organKey": "larynx"}]}
    # Its doctors read them; they do not change them.
    assert client.get(f"{URL}/structure-names", headers=staff).json() == saved.json()
    denied = client.put(f"{URL}/structure-names", json={"names": []}, headers=staff)
    assert denied.status_code == 403
    rid = new_review(client, staff)
    upload(client, staff, rid, plan)
    client.post(f"{URL}/{rid}/compute", json={}, headers=staff)
    result = wait_done(client, staff, rid)["result"]
    ptv = next(s for s in result["structures"] if s["name"] == "PTV_30")
    assert (ptv["organKey"], ptv["mappingSource"]) == ("larynx", "hospital")
    # An independent doctor's own names are theirs alone.
    doctor = radiotherapist(client)
    assert client.get(f"{URL}/structure-names", headers=doctor).json() == {"names": []}


def test_bad_files_are_refused_naming_the_file(client: Any, plan: dict[str, bytes]) -> None:
    doctor = radiotherapist(client)
    rid = new_review(client, doctor)
    r = put(client, doctor, rid, "rtdose", b"not an image at all" * 10, "RD.notes.txt")
    assert r.status_code == 422
    assert r.json()["message"] == "RD.notes.txt: this is not a DICOM file."
    r = put(client, doctor, rid, "rtdose", plan["rtdose"][: len(plan["rtdose"]) // 2], "RD.1.dcm")
    assert r.status_code == 422 and r.json()["message"].startswith("RD.1.dcm: the file is truncated")
    r = put(client, doctor, rid, "rtdose", plan["rtplan"], "RP.1.dcm")
    assert r.status_code == 422
    assert r.json()["message"] == "RP.1.dcm: expected an RTDOSE file, found modality 'RTPLAN'."
    assert client.get(f"{URL}/{rid}", headers=doctor).json()["files"] == []
    # Computing needs the contours and the dose.
    r = client.post(f"{URL}/{rid}/compute", json={}, headers=doctor)
    assert r.status_code == 422 and r.json()["message"] == "Upload the RTSTRUCT and the RTDOSE first."


def test_frame_of_reference_mismatch_fails_the_review(client: Any, worker: Any) -> None:
    grid = phantoms.dose_grid((-30, -30, -30), (30, 30, 30), (3.0, 3.0, 3.0), lambda x, y, z: 0 * x + 10)
    cord = phantoms.box((-5, -5, -10), (5, 5, 10), 2.0, name="Spinal Cord")
    ours = phantoms.plan_files([cord], grid)
    theirs = phantoms.plan_files([cord], grid, frame_of_reference="1.2.826.0.1.3680043.8.498.99")
    doctor = radiotherapist(client)
    rid = new_review(client, doctor)
    upload(client, doctor, rid, {"rtstruct": ours["rtstruct"], "rtplan": ours["rtplan"]})
    assert put(client, doctor, rid, "rtdose", theirs["rtdose"], "RD.other.dcm").status_code == 200
    client.post(f"{URL}/{rid}/compute", json={}, headers=doctor)
    body = wait_done(client, doctor, rid)
    assert body["state"] == "failed"
    assert body["error"].startswith("RD.other.dcm: its frame of reference")
    assert "rtstruct.dcm" in body["error"]


def test_size_limit(client: Any, plan: dict[str, bytes], monkeypatch: pytest.MonkeyPatch) -> None:
    from cara.config import get_settings

    monkeypatch.setattr(get_settings(), "plan_file_max_bytes", 4096)
    doctor = radiotherapist(client)
    rid = new_review(client, doctor)
    r = put(client, doctor, rid, "rtdose", plan["rtdose"], "RD.big.dcm")
    assert r.status_code == 413 and r.json()["message"] == "RD.big.dcm: the file is larger than 1 MB."


def test_roles_consoles_and_tenants(client: Any, plan: dict[str, bytes]) -> None:
    doctor = radiotherapist(client)
    rid = new_review(client, doctor)
    upload(client, doctor, rid, plan)
    # Not a radiotherapist, not a doctor, not signed in.
    radiologist = auth(signup(client, doctor_payload(specialty="Radiologist"))["token"])
    r = client.get(f"{URL}/{rid}", headers=radiologist)
    assert r.status_code == 403
    assert r.json()["message"] == "Plan reviews are available to Radiotherapists only."
    hospital_token = signup(client, hospital_payload())["token"]
    assert client.get(f"{URL}/{rid}", headers=auth(hospital_token)).status_code == 403
    assert client.get(f"{URL}/{rid}").status_code == 401
    # Another independent radiotherapist (same schema) and a hospital's (another schema): 404.
    other = radiotherapist(client)
    subscribe(hospital_token)
    staff = auth(add_staff(client, doctor_payload(specialty="Radiotherapist"), hospital_token)["token"])
    assert schema_and_account(staff)[0] != schema_and_account(doctor)[0]
    for stranger in (other, staff):
        assert client.get(f"{URL}/{rid}", headers=stranger).status_code == 404
        assert put(client, stranger, rid, "rtplan", plan["rtplan"], "x.dcm").status_code == 404
        assert client.post(f"{URL}/{rid}/compute", json={}, headers=stranger).status_code == 404
    # A consultation of another doctor, or of another console.
    theirs = consultation(client, other)
    assert client.post(URL, json={"consultationId": theirs}, headers=doctor).status_code == 404
    r = client.post(URL, json={"consultationId": consultation(client, doctor, "generic")}, headers=doctor)
    assert r.status_code == 422
    assert r.json()["message"] == "Plans are reviewed in a radiotherapy consultation."
    assert client.get(URL, params={"consultationId": theirs}, headers=doctor).status_code == 404
    listed = client.get(URL, params={"consultationId": consultation(client, doctor)}, headers=doctor)
    assert listed.status_code == 200 and listed.json() == {"items": []}
    assert client.get(f"{URL}/not-a-uuid", headers=doctor).status_code == 404


def test_the_chat_hands_the_table_to_the_model(
    client: Any, worker: Any, gemini: Any, plan: dict[str, bytes]
) -> None:
    """The radiotherapy chat gets the computed table as a tool result (a get_plan_review call and its
    answer in the model's contents), once per chat; the transcript keeps the line of it."""
    doctor = radiotherapist(client)
    cid = consultation(client, doctor)
    created = client.post(URL, json={"consultationId": cid}, headers=doctor).json()
    rid = created["id"]
    chat = "/api/radiotherapy-chat/messages"
    r = client.post(chat, json={"message": "Is the cord OK?", "planReviewId": rid}, headers=doctor)
    assert r.status_code == 409 and r.json()["message"] == "The plan review has not been computed yet."
    upload(client, doctor, rid, plan)
    client.post(f"{URL}/{rid}/compute", json={}, headers=doctor)
    assert wait_done(client, doctor, rid)["state"] == "done"

    def answer_from_table(request: Any) -> str:
        contents = request.body["contents"]
        given = [p["functionResponse"] for c in contents for p in c["parts"] if "functionResponse" in p]
        table = given[0]["response"]
        failed = [f"{c['structure']} {c['metric']}" for c in table["checks"] if c["status"] == "fail"]
        return "Failed: " + ", ".join(failed)

    gemini.generate = answer_from_table
    body = {"message": "Is the cord OK?", "planReviewId": rid, "consultationId": cid}
    r = client.post(chat, json=body, headers=doctor)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["reply"] == "Failed: Spinal Cord Dmax, Heart V25"
    [given] = out["toolResults"]
    assert given["tool"] == "get_plan_review" and given["result"]["planReviewId"] == rid
    assert "curve" not in given["result"]["structures"][0]
    assert "files" not in given["result"]  # file names may carry a patient's name
    request = gemini.generate_requests[-1]
    roles = [c["role"] for c in request.body["contents"]]
    assert roles == ["model", "user", "user"]
    call = request.body["contents"][0]["parts"][0]["functionCall"]
    assert call["name"] == "get_plan_review" and call["args"] == {"planReviewId": rid}
    assert "get_plan_review" in request.body["systemInstruction"]["parts"][0]["text"]
    # The same table is not handed twice in one chat; it stays in the context.
    again = client.post(
        chat, json={"message": "And the heart?", "planReviewId": rid, "chatId": out["chatId"]}, headers=doctor
    )
    assert again.status_code == 200 and again.json()["toolResults"] == []
    given_twice = [
        p
        for c in gemini.generate_requests[-1].body["contents"]
        for p in c["parts"]
        if "functionResponse" in p
    ]
    assert len(given_twice) == 1
    # The consultation's transcript says what the model was given.
    lines = client.get(f"/api/consultations/{cid}", headers=doctor).json()["lines"]
    assert any(line["text"].startswith("Plan review (DVH, 5 fractions)") for line in lines)
    # Another doctor's review is not theirs to discuss.
    other = radiotherapist(client)
    r = client.post(chat, json={"message": "Cord?", "planReviewId": rid}, headers=other)
    assert r.status_code == 404


def test_retention_deletes_the_plan_files_of_unsigned_consultations(
    client: Any, plan: dict[str, bytes]
) -> None:
    """On the record's clock: past the retention period (30 days by default) an unsigned
    consultation's plan reviews go with their files; a signed one's and a recent one's stay."""
    from datetime import timedelta

    from sqlalchemy import func, select, update

    from cara.clinical import service
    from cara.models import Consultation, PlanReview, PlanReviewFile
    from cara.models.base import utcnow
    from tenants.sessions import tenant_transaction

    doctor = radiotherapist(client)
    old, signed, recent = (new_review(client, doctor) for _ in range(3))
    for rid in (old, signed, recent):
        upload(client, doctor, rid, plan)
    schema, _ = schema_and_account(doctor)
    with tenant_transaction(schema) as session:
        reviews = {r.id: r.consultation_id for r in session.scalars(select(PlanReview))}
        by_id = {str(k): v for k, v in reviews.items()}
        long_ago = utcnow() - timedelta(days=31)
        session.execute(
            update(Consultation)
            .where(Consultation.id.in_([by_id[old], by_id[signed]]))
            .values(started_at=long_ago, ended_at=long_ago)
        )
        session.execute(update(Consultation).where(Consultation.id == by_id[signed]).values(state="signed"))
    with tenant_transaction(schema) as session:
        assert service.apply_retention(session, schema) == 1
    assert client.get(f"{URL}/{old}", headers=doctor).status_code == 404
    for rid in (signed, recent):
        assert len(client.get(f"{URL}/{rid}", headers=doctor).json()["files"]) == 3
    with tenant_transaction(schema) as session:
        assert session.scalar(select(func.count()).select_from(PlanReviewFile)) == 6
