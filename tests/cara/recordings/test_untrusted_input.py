"""What an upload may not do: be another container than the browser records (an ffconcat
playlist names server files for FFmpeg to read), or carry a date the server cannot handle."""

from __future__ import annotations

import io
import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from cara.kit.db import tenant_session
from cara.recordings.audio import AudioUnreadable, prepare
from tests.cara.consultations.conftest import schema_and_account
from tests.cara.recordings.conftest import create, put_chunk, webm_opus

PLAYLIST = b"ffconcat version 1.0\nfile 'web/public/sounds/connect.wav'\n"


def _wav(path: Path) -> None:
    import av

    with av.open(str(path), "w", format="wav") as container:
        stream = container.add_stream("pcm_s16le", rate=16_000, layout="mono")
        frame = av.AudioFrame(format="s16", layout="mono", samples=16_000)
        frame.planes[0].update(b"\x10\x00" * 16_000)
        frame.sample_rate = 16_000
        frame.pts = 0
        for packet in stream.encode(frame):
            container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)


class TestContainers:
    def test_a_playlist_is_refused_at_the_first_chunk(self, client: Any, doctor: dict[str, str]) -> None:
        rid = create(client, doctor).json()["id"]
        refused = put_chunk(client, doctor, rid, 0, PLAYLIST)
        assert refused.status_code == 415, refused.text
        assert "WebM or Ogg" in refused.json()["message"]
        assert client.get(f"/api/recordings/{rid}", headers=doctor).json()["receivedBytes"] == 0

    def test_the_bytes_must_be_the_declared_container(self, client: Any, doctor: dict[str, str]) -> None:
        ogg = create(client, doctor, mimeType="audio/ogg;codecs=opus").json()["id"]
        assert put_chunk(client, doctor, ogg, 0, webm_opus(0.2)).status_code == 415
        assert put_chunk(client, doctor, ogg, 0, b"OggS" + bytes(60)).status_code == 200

    @pytest.mark.parametrize("mime", ["audio/mp4", "audio/x-ffconcat", "audio/wav"])
    def test_containers_the_browser_does_not_record_are_refused(
        self, client: Any, doctor: dict[str, str], mime: str
    ) -> None:
        refused = create(client, doctor, mimeType=mime)
        assert refused.status_code == 422 and "mimeType" in refused.json()["fields"]

    def test_a_real_webm_is_accepted(self, client: Any, doctor: dict[str, str]) -> None:
        data = webm_opus(0.5)
        rid = create(client, doctor).json()["id"]
        accepted = put_chunk(client, doctor, rid, 0, data)
        assert accepted.status_code == 200 and accepted.json()["receivedBytes"] == len(data)

    def test_the_worker_never_opens_a_playlist(self, tmp_path: Path, monkeypatch: Any) -> None:
        """Had a playlist been stored, decoding it does not read the file it names."""
        _wav(tmp_path / "tone.wav")
        monkeypatch.chdir(tmp_path)
        with pytest.raises(AudioUnreadable):
            prepare(b"ffconcat version 1.0\nfile 'tone.wav'\n")
        with pytest.raises(AudioUnreadable):
            prepare((tmp_path / "tone.wav").read_bytes())
        assert prepare(webm_opus(0.5)).seconds > 0.3

    def test_an_ogg_recording_decodes(self) -> None:
        import av

        buffer = io.BytesIO()
        with av.open(io.BytesIO(webm_opus(0.5)), "r", format="webm") as source:
            target = av.open(buffer, "w", format="ogg")
            stream = target.add_stream("libopus", rate=48_000, layout="mono")
            for frame in source.decode(audio=0):
                frame.pts = None
                for packet in stream.encode(frame):
                    target.mux(packet)
            for packet in stream.encode(None):
                target.mux(packet)
            target.close()
        assert buffer.getvalue()[:4] == b"OggS"
        assert prepare(buffer.getvalue()).seconds > 0.3


class TestDates:
    @pytest.mark.parametrize(
        "recorded_at",
        [
            "0001-01-01T00:00:00+14:00",
            "9999-12-31T23:59:59-14:00",
            "1999-12-31T00:00:00Z",
            "2999-01-01T00:00:00Z",
        ],
    )
    def test_a_date_out_of_range_is_422(self, client: Any, doctor: dict[str, str], recorded_at: str) -> None:
        refused = create(client, doctor, recordedAt=recorded_at)
        assert refused.status_code == 422, refused.text
        assert "recordedAt" in refused.json()["fields"]
        assert client.get("/api/recordings", headers=doctor).status_code == 200

    def test_a_stored_extreme_date_breaks_nothing(
        self, client: Any, doctor: dict[str, str], gemini: Any
    ) -> None:
        """An upload stored before the range was checked: listed, uploaded to and completed."""
        rid = create(client, doctor).json()["id"]
        schema, _ = schema_and_account(doctor)
        with tenant_session(schema) as s:
            s.execute(
                text(
                    f'UPDATE "{schema}".recording_uploads'
                    " SET recorded_at = '0001-01-01 00:00:00+14' WHERE id = :id"
                ),
                {"id": uuid.UUID(rid)},
            )
            s.commit()
        listed = client.get("/api/recordings", headers=doctor)
        assert listed.status_code == 200, listed.text
        (item,) = [i for i in listed.json()["items"] if i["id"] == rid]
        assert item["recordedAt"].startswith("2000-01-01")
        data = webm_opus(0.2)
        assert put_chunk(client, doctor, rid, 0, data).status_code == 200
        assert client.get(f"/api/recordings/{rid}", headers=doctor).status_code == 200
        done = client.post(f"/api/recordings/{rid}/complete", json={"totalBytes": len(data)}, headers=doctor)
        assert done.status_code == 200 and done.json()["state"] == "processing"
