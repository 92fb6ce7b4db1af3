"""Local speech recognition (cara.recordings.speech) on English clinical dictations: word error rate
and real-time factor on one core.

Each text of ops/bench/dictations/ (drug names, doses, places) is spoken by espeak-ng (Debian's
package) at run time, encoded as the console records it (Opus in WebM, 24 kb/s) and recognised by
the same function the recognition process runs, with the shipped model (or TRANSCRIBER_MODEL_DIR).
The word error rate (jiwer) is over all dictations together, after the same normalisation of both
sides (lower case, punctuation and hyphens to spaces, 'mg' as 'milligrams', numbers in digits),
with the shipped medicine vocabulary the recogniser is primed with (speech.DEFAULT_VOCABULARY: it
holds the medicines dictated here, among others; no place name) and without it. Then the dictations
are joined, with 1.5 s pauses, into one recording of about 60 s, recognised with the process
pinned to one core and one CPU thread: real-time factor = processing seconds / audio seconds
(decoding, model loading, voice activity detection and recognition; the load alone is printed).

espeak-ng is a robotic voice: this is a floor test of the pipeline, not of accents. Accented
clinical English (AfriSpeech-200: 120 accents, 13 countries) is reported to do much worse on
medical entities.

    .venv/bin/python ops/bench/transcribe_wer.py [--seconds 60] [--show]

Targets: WER <= 20 %, real-time factor <= 0.5.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path[:0] = [str(REPO / "platform"), str(REPO)]

WER_TARGET = 0.20
RTF_TARGET = 0.5
RATE = 16_000
UNITS = {"mg": "milligrams", "kg": "kilograms", "mcg": "micrograms", "x ray": "xray"}


def speak(text: str) -> bytes:
    """espeak-ng reading `text`: 16-bit mono PCM at 16 kHz."""
    import av

    wav = subprocess.run(
        ["espeak-ng", "-v", "en-us", "-s", "150", "--stdout", text], check=True, capture_output=True
    ).stdout
    out = bytearray()
    with av.open(io.BytesIO(wav), format="wav") as source:
        resampler = av.AudioResampler(format="s16", layout="mono", rate=RATE)
        for frame in source.decode(audio=0):
            for piece in resampler.resample(frame):
                out += bytes(piece.planes[0])[: piece.samples * 2]
        for piece in resampler.resample(None):
            out += bytes(piece.planes[0])[: piece.samples * 2]
    return bytes(out)


def webm(pcm: bytes) -> bytes:
    """16 kHz PCM as the console's MediaRecorder writes it: Opus in WebM at 24 kb/s."""
    import av

    buffer = io.BytesIO()
    container = av.open(buffer, "w", format="webm")
    stream = container.add_stream("libopus", rate=48_000, layout="mono")
    stream.bit_rate = 24_000
    resampler = av.AudioResampler(format="s16", layout="mono", rate=48_000)
    step = RATE // 10 * 2
    for start in range(0, len(pcm), step):
        piece = pcm[start : start + step]
        frame = av.AudioFrame(format="s16", layout="mono", samples=len(piece) // 2)
        frame.planes[0].update(piece)
        frame.sample_rate = RATE
        for resampled in resampler.resample(frame):
            for packet in stream.encode(resampled):
                container.mux(packet)
    for resampled in resampler.resample(None):
        for packet in stream.encode(resampled):
            container.mux(packet)
    for packet in stream.encode(None):
        container.mux(packet)
    container.close()
    return buffer.getvalue()


ONES = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
TENS = {
    w: 10 * (i + 2)
    for i, w in enumerate(["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"])
}


def numbers_as_digits(words: list[str]) -> list[str]:
    """'one hundred sixty' -> '160', 'four' -> '4' (both sides alike: '4' and 'four' are one word)."""
    out: list[str] = []
    value: int | None = None
    for word in [*words, ""]:
        if word in ONES or word in TENS:
            value = (value or 0) + ONES.get(word, 0) + TENS.get(word, 0)
            continue
        if word in ("hundred", "thousand") and value is not None:
            value *= 100 if word == "hundred" else 1000
            continue
        if value is not None:
            out.append(str(value))
            value = None
        if word:
            out.append(word)
    return out


def normalise(text: str) -> str:
    """The same for what was said and what was heard: lower case, punctuation and hyphens as
    spaces, unit abbreviations spelt out, numbers in digits."""
    text = text.lower().replace("-", " ")
    text = re.sub(r"[^\w\s]", " ", text)
    text = re.sub(r"\s+", " ", text).strip()
    for short, long in UNITS.items():
        text = re.sub(rf"\b{short}\b", long, text)
    return " ".join(numbers_as_digits(text.split()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seconds", type=float, default=60.0, help="length of the real-time-factor recording"
    )
    parser.add_argument("--show", action="store_true", help="print each dictation and what was heard")
    args = parser.parse_args()
    if shutil.which("espeak-ng") is None:
        print("espeak-ng is needed (apt-get install espeak-ng)", file=sys.stderr)
        return 2

    import jiwer

    from cara.recordings import speech

    folder, bundled = speech.model_folder()
    dictations = sorted((HERE / "dictations").glob("*.txt"))
    texts = [(p.stem, p.read_text(encoding="utf-8").strip()) for p in dictations]
    model_name = speech.BUNDLED_MODEL if bundled else folder.name
    print(f"model: {model_name} ({'shipped' if bundled else 'operator folder'}); dictations: {len(texts)}")

    # 1) word error rate, primed with the medicine vocabulary and not
    spoken = [speak(text) for _, text in texts]
    recordings = [webm(pcm) for pcm in spoken]
    references = [normalise(text) for _, text in texts]
    wer: dict[str, float] = {}
    for label, names in (("vocabulary", speech.vocabulary()), ("no vocabulary", "")):
        hypotheses = []
        for (name, _), recording, reference in zip(texts, recordings, references, strict=True):
            result = speech.recognise(
                recording, language="en", folder=folder, bundled=bundled, threads=1, names=names
            )
            hypotheses.append(normalise(" ".join(w.text for w in result.words)))
            if args.show:
                each = jiwer.wer(reference, hypotheses[-1]) * 100
                print(f"  [{label}] {name}: WER {each:.1f} %")
                print(f"    said:  {reference}\n    heard: {hypotheses[-1]}")
        wer[label] = jiwer.wer(references, hypotheses)

    # 2) real-time factor on one core, for one recording of about --seconds
    pause = b"\x00\x00" * int(1.5 * RATE)
    joined = b""
    i = 0
    while len(joined) / 2 / RATE < args.seconds:
        joined += spoken[i % len(spoken)] + pause
        i += 1
    joined = joined[: int(args.seconds * RATE) * 2]
    recording = webm(joined)
    audio_seconds = len(joined) / 2 / RATE
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    from faster_whisper import WhisperModel

    started = time.perf_counter()
    WhisperModel(str(folder), device="cpu", compute_type="int8", cpu_threads=1, local_files_only=True)
    load = time.perf_counter() - started
    cpu0, started = time.process_time(), time.perf_counter()
    speech.recognise(recording, language="en", folder=folder, bundled=bundled, threads=1)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu0
    rtf = elapsed / audio_seconds

    def verdict(ok: bool) -> str:
        return "ok" if ok else "MISS"

    print()
    print(f"{'figure':44s} {'value':>9s}  target")
    for label, value in wer.items():
        target = (
            f"<= {WER_TARGET * 100:.0f} %  {verdict(value <= WER_TARGET)}" if label == "vocabulary" else ""
        )
        print(f"{'word error rate, ' + label:44s} {value * 100:7.1f} %  {target}")
    print(
        f"{'real-time factor, one core (wall)':44s} {rtf:9.3f}  <= {RTF_TARGET}  {verdict(rtf <= RTF_TARGET)}"
    )
    print(f"{'  audio seconds':44s} {audio_seconds:9.1f}")
    print(f"{'  processing seconds (wall, one core)':44s} {elapsed:9.2f}")
    print(f"{'  CPU seconds':44s} {cpu:9.2f}")
    print(f"{'  model load alone (wall)':44s} {load:9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
