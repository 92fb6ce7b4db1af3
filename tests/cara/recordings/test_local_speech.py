"""Speech recognised on this server (cara.recordings.speech): the shipped Whisper model hears
espeak-ng dictations, with word timings and confidence, split into turns at the pauses; bad input
(silence, noise, a corrupt container, a missing or wrong model folder, a language or length the
model cannot handle) ends in a clear reason; and recognition opens no network socket."""

from __future__ import annotations

import multiprocessing
import random
import struct
from pathlib import Path
from typing import Any

import pytest
import pytest_socket

from cara.config import get_settings
from cara.consultations.service import WordTiming
from cara.recordings import audio, speech
from tests.cara.recordings.conftest import silence_pcm, spoken_webm, webm_from_pcm

DICTATION = (
    "The patient from Kumasi has pulmonary tuberculosis. Start rifampicin six hundred milligrams daily."
)


@pytest.fixture(scope="module")
def dictation() -> bytes:
    return spoken_webm(DICTATION)


def shipped() -> tuple[Path, bool]:
    folder, bundled = speech.model_folder()
    assert bundled, "no TRANSCRIBER_MODEL_DIR in tests: the shipped model"
    return folder, bundled


def recognise(recording: bytes, language: str | None = None) -> speech.Recognised:
    folder, bundled = shipped()
    return speech.recognise(recording, language=language, folder=folder, bundled=bundled)


def words_of(result: speech.Recognised) -> list[str]:
    return [w.text.strip(".,").lower() for w in result.words]


class TestRecognition:
    def test_the_dictated_words_are_heard_with_timings_and_confidence(self, dictation: bytes) -> None:
        result = recognise(dictation)
        heard = words_of(result)
        for word in ("patient", "pulmonary", "tuberculosis", "milligrams"):
            assert word in heard, heard
        assert result.engine == "local:faster-whisper/tiny.en" and result.language == "en"
        starts = [w.start for w in result.words]
        assert starts == sorted(starts) and all(w.end >= w.start for w in result.words)
        assert 0 < result.words[-1].end <= result.seconds + 0.5
        assert all(0.0 <= w.confidence <= 1.0 for w in result.words)

    def test_no_network_call_while_a_recording_is_recognised(self, dictation: bytes) -> None:
        """pytest-socket refuses every socket (a model hub, a provider, anything) for the whole
        recognition, model loading included."""
        speech._checked.clear()
        pytest_socket.disable_socket(allow_unix_socket=False)
        try:
            result = recognise(dictation)
        finally:
            pytest_socket.enable_socket()
        assert "tuberculosis" in words_of(result)

    def test_the_recognition_process_cannot_open_a_socket(self) -> None:
        context = multiprocessing.get_context("spawn")
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(target=_try_a_socket, args=(sender,))
        process.start()
        sender.close()
        assert receiver.poll(60)
        assert receiver.recv() == "refused"
        process.join(10)

    def test_through_the_process_pool(self, dictation: bytes) -> None:
        result = speech.transcribe(dictation, language="en", seconds=9.0)
        assert "tuberculosis" in words_of(result)

    def test_turns_split_at_pauses_and_alternate_speakers(self) -> None:
        def w(text: str, start: float) -> WordTiming:
            return WordTiming(text=text, start=start, end=start + 0.3, confidence=0.9)

        lines = speech.turns(
            [w("Any", 0.0), w("cough?", 0.4), w("Three", 2.5), w("weeks.", 2.9), w("Good.", 5.0)]
        )
        assert [(line.speaker, line.text) for line in lines] == [
            ("user", "Any cough?"),
            ("patient", "Three weeks."),
            ("user", "Good."),
        ]
        assert lines[1].offset_seconds == 2.5 and lines[1].words is not None and len(lines[1].words) == 2

    def test_a_real_pause_between_two_speakers_makes_two_turns(self) -> None:
        recording = spoken_webm("How long have you had the cough?", "For about three weeks now.", pause=2.5)
        lines = speech.turns(recognise(recording).words)
        assert [line.speaker for line in lines] == ["user", "patient"], [line.text for line in lines]
        assert "how long" in lines[0].text.lower() and "weeks" in lines[1].text.lower()


def _try_a_socket(conn: Any) -> None:
    import socket

    speech._no_network()
    try:
        socket.create_connection(("127.0.0.1", 5432), timeout=1)
    except OSError:
        try:
            socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        except OSError:
            conn.send("refused")
            return
    conn.send("opened")


class TestBadInput:
    def test_silence_is_no_speech(self) -> None:
        with pytest.raises(speech.SpeechFailed) as failed:
            recognise(webm_from_pcm(silence_pcm(8.0)))
        assert failed.value.message == speech.NO_SPEECH and not failed.value.waits

    def test_noise_only_is_no_speech(self) -> None:
        rng = random.Random(7)
        noise = b"".join(struct.pack("<h", int(rng.gauss(0, 0.05) * 32767)) for _ in range(16_000 * 8))
        with pytest.raises(speech.SpeechFailed) as failed:
            recognise(webm_from_pcm(noise))
        assert failed.value.message == speech.NO_SPEECH

    def test_a_corrupt_container_is_unreadable(self) -> None:
        with pytest.raises(audio.AudioUnreadable):
            recognise(b"\x1a\x45\xdf\xa3" + bytes(range(256)) * 40)
        with pytest.raises(audio.AudioUnreadable):
            speech.transcribe(b"\x1a\x45\xdf\xa3" + bytes(range(256)) * 40, language=None, seconds=3)

    def test_a_missing_model_folder(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(get_settings(), "transcriber_model_dir", str(tmp_path / "nowhere"))
        with pytest.raises(speech.SpeechFailed) as failed:
            speech.transcribe(b"\x1a\x45\xdf\xa3", language=None, seconds=3)
        assert failed.value.message == speech.MODEL_MISSING and not failed.value.waits

    def test_a_model_folder_of_the_wrong_format(
        self, tmp_path: Path, dictation: bytes, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        (tmp_path / "model.bin").write_bytes(b"not a CTranslate2 model")
        (tmp_path / "config.json").write_text("{}")
        (tmp_path / "tokenizer.json").write_text("{}")
        monkeypatch.setattr(get_settings(), "transcriber_model_dir", str(tmp_path))
        with pytest.raises(speech.SpeechFailed) as failed:
            speech.transcribe(dictation, language=None, seconds=9)
        assert failed.value.message == speech.MODEL_UNUSABLE
        # A folder without the model's files is refused before any process starts.
        (tmp_path / "model.bin").unlink()
        with pytest.raises(speech.SpeechFailed) as failed:
            speech.check_folder(tmp_path, bundled=False)
        assert failed.value.message == speech.MODEL_UNUSABLE

    def test_a_changed_shipped_model_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        folder, _ = shipped()
        monkeypatch.setattr(speech, "_checked", set())
        monkeypatch.setitem(speech.BUNDLED_SHA256, "config.json", "0" * 64)
        with pytest.raises(speech.SpeechFailed) as failed:
            speech.check_folder(folder, bundled=True)
        assert failed.value.message == speech.MODEL_UNUSABLE

    @pytest.mark.parametrize(("language", "name"), [("fr", "French"), ("ar", "Arabic"), ("es-MX", "Spanish")])
    def test_a_language_the_shipped_model_cannot_handle_waits(
        self, dictation: bytes, language: str, name: str
    ) -> None:
        with pytest.raises(speech.SpeechFailed) as failed:
            recognise(dictation, language=language)
        assert failed.value.waits and name in failed.value.message

    def test_a_recording_too_long_for_this_server_waits(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(get_settings(), "transcriber_max_minutes", 120)
        with pytest.raises(speech.SpeechFailed) as failed:
            speech.transcribe(b"\x1a\x45\xdf\xa3", language=None, seconds=3 * 3600)
        assert failed.value.waits and failed.value.message == speech.TOO_LONG

    def test_a_recognition_past_its_deadline_is_ended(
        self, dictation: bytes, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(speech, "DEADLINE_START_SECONDS", 0.0)
        monkeypatch.setattr(speech, "DEADLINE_PER_AUDIO_SECOND", 0.01)
        with pytest.raises(speech.SpeechFailed) as failed:
            speech.transcribe(dictation, language=None, seconds=9)
        assert failed.value.message == speech.TOO_SLOW
        assert not [p for p in multiprocessing.active_children() if p.name == "cara-speech"]


def test_the_default_engine_follows_the_ai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = get_settings()
    monkeypatch.setattr(settings, "transcriber", None)
    monkeypatch.setattr(settings, "gemini_api_key", None)
    assert speech.choice() == speech.LOCAL
    monkeypatch.setattr(settings, "gemini_api_key", "a-key")
    assert speech.choice() == speech.PROVIDER
    monkeypatch.setattr(settings, "transcriber", "local")
    assert speech.choice() == speech.LOCAL


def test_the_recogniser_is_primed_with_the_medicine_vocabulary(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = get_settings()
    monkeypatch.setattr(settings, "transcriber_vocabulary", None)
    assert "rifampicin" in speech.vocabulary()
    assert (
        speech.prompt("en", speech.vocabulary())
        == f"Clinical dictation. Medicines: {speech.DEFAULT_VOCABULARY}."
    )
    assert speech.prompt("fr", speech.vocabulary()) is None  # the prompt is English
    monkeypatch.setattr(settings, "transcriber_vocabulary", " quinine, artesunate ")
    assert speech.prompt("en", speech.vocabulary()) == "Clinical dictation. Medicines: quinine, artesunate."
    monkeypatch.setattr(settings, "transcriber_vocabulary", "")
    assert speech.prompt("en", speech.vocabulary()) is None
