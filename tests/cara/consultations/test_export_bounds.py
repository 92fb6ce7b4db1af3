"""What one signed document may hold, and what its export costs: an addendum's size and how many
a note takes are capped (422 / 413, nothing stored), a note made of sections is capped as a whole;
export files are rendered once, in a process of their own at a lower priority, and kept while
the signed content is unchanged (an addendum makes a new file)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from cara.consultations import renditions
from cara.consultations.schemas import MAX_ADDENDA, MAX_ADDENDUM_CHARS, MAX_NOTE_CHARS
from tests.cara.consultations.conftest import start
from tests.cara.consultations.test_export import signed


def _addendum(client: Any, headers: dict[str, str], cid: str, text: str) -> Any:
    return client.post(f"/api/consultations/{cid}/note/addenda", json={"text": text}, headers=headers)


def _entries(client: Any, headers: dict[str, str], cid: str) -> int:
    return len(client.get(f"/api/consultations/{cid}", headers=headers).json()["note"]["entries"])


def test_an_addendum_over_the_size_cap_is_422_with_the_field(client: Any, doctor: dict[str, str]) -> None:
    cid = signed(client, doctor, "Stable.")
    r = _addendum(client, doctor, cid, "x" * (MAX_ADDENDUM_CHARS + 1))
    assert r.status_code == 422, r.text
    assert "text" in r.json()["fields"]
    assert _addendum(client, doctor, cid, "x" * MAX_ADDENDUM_CHARS).status_code == 201
    assert _entries(client, doctor, cid) == 2


def test_a_note_takes_a_bounded_number_of_addenda(client: Any, doctor: dict[str, str]) -> None:
    cid = signed(client, doctor, "Stable.")
    for n in range(MAX_ADDENDA):
        assert _addendum(client, doctor, cid, f"Addendum {n}").status_code == 201
    r = _addendum(client, doctor, cid, "One more")
    assert r.status_code == 413, r.text
    assert f"{MAX_ADDENDA} addenda" in r.json()["message"]
    assert _entries(client, doctor, cid) == MAX_ADDENDA + 1


def test_a_note_made_of_sections_is_capped_as_a_whole(client: Any, doctor: dict[str, str]) -> None:
    cid = start(client, doctor, console="radiologist").json()["id"]
    # Each section within its own cap; together past the note's.
    sections = {
        "findings": "f" * 50_000,
        "indication": "i" * 20_000,
        "technique": "t" * 20_000,
        "recommendation": "r" * 20_000,
    }
    assert sum(len(v) for v in sections.values()) > MAX_NOTE_CHARS
    r = client.put(f"/api/consultations/{cid}/note", json={"sections": sections}, headers=doctor)
    assert r.status_code == 413, r.text
    assert "too long" in r.json()["message"]
    assert client.get(f"/api/consultations/{cid}", headers=doctor).json()["note"] is None


def test_an_export_is_rendered_once_and_kept_until_an_addendum(
    client: Any, doctor: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rendered: list[str] = []
    real = renditions._render_elsewhere

    def counting(note: Any, kind: str, resource: str) -> bytes:
        rendered.append(kind)
        return real(note, kind, resource)

    monkeypatch.setattr(renditions, "_render_elsewhere", counting)
    cid = signed(client, doctor, "Malaria, artemether-lumefantrine.")
    first = client.get(f"/api/consultations/{cid}/export/pdf", headers=doctor)
    again = client.get(f"/api/consultations/{cid}/export/pdf", headers=doctor)
    assert first.status_code == again.status_code == 200
    assert first.content == again.content and first.content.startswith(b"%PDF")
    fhir = client.get(f"/api/consultations/{cid}/export/fhir", headers=doctor)
    assert fhir.status_code == 200 and fhir.json()["resourceType"] == "Bundle"
    assert rendered == ["pdf", "fhir"]

    assert _addendum(client, doctor, cid, "Parasitaemia cleared on day 3.").status_code == 201
    later = client.get(f"/api/consultations/{cid}/export/pdf", headers=doctor)
    assert later.status_code == 200 and later.content != first.content
    assert rendered == ["pdf", "fhir", "pdf"]


def test_renditions_are_made_in_another_process_at_a_lower_priority() -> None:
    pool = renditions._executor()
    pid = pool.submit(os.getpid).result(timeout=60)
    assert pid != os.getpid()
    assert (
        pool.submit(os.getpriority, os.PRIO_PROCESS, 0).result(timeout=10)
        >= os.getpriority(os.PRIO_PROCESS, 0) + 1
    )
