"""A browser recording (Opus in WebM or Ogg, as MediaRecorder writes it) -> what the provider
takes: MP3, 16 kHz mono at 32 kb/s (about 240 kB a minute, so an hour fits one request).

PyAV (FFmpeg inside the wheel) demuxes and decodes the concatenated chunks; a recording cut off
mid-cluster (a closed tab) decodes up to where it stops. Damaged packets are skipped.

Only the two containers the browser records are opened, each with its own demuxer named: FFmpeg
never guesses the format from the bytes. A guess would open any of its formats, a playlist among
them (ffconcat, HLS) that makes it read the files or URLs it names. Nested opens are refused as
well (`protocol_whitelist`). Uploads are checked against the same table (`CONTAINERS`).
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import av

RATE = 16_000
BIT_RATE = 32_000
MIME_TYPE = "audio/mp3"


@dataclass(frozen=True)
class Container:
    magic: bytes  # how the file starts
    demuxer: str  # FFmpeg's name for it


# The declared type (MediaRecorder's mimeType without its parameters) -> its container.
CONTAINERS: Mapping[str, Container] = MappingProxyType(
    {
        "audio/webm": Container(magic=b"\x1a\x45\xdf\xa3", demuxer="webm"),  # EBML
        "audio/ogg": Container(magic=b"OggS", demuxer="ogg"),
    }
)
MAGIC_BYTES = 4
# FFmpeg's input options: no protocol may be opened from inside the recording.
_OPEN_OPTIONS = {"protocol_whitelist": "none"}


def container_of(mime_type: str) -> Container | None:
    """The container of a declared type ('audio/webm;codecs=opus'), or None if not accepted."""
    return CONTAINERS.get(mime_type.split(";", 1)[0].strip().lower())


def sniff(data: bytes) -> Container | None:
    """The container these bytes start as, or None."""
    return next((c for c in CONTAINERS.values() if data[:MAGIC_BYTES] == c.magic), None)


class AudioUnreadable(ValueError):
    """Nothing could be decoded from the recording."""


@dataclass(frozen=True)
class Prepared:
    data: bytes
    seconds: float
    mime_type: str = MIME_TYPE


def _open(recording: bytes) -> Any:
    container = sniff(recording)
    if container is None:
        raise AudioUnreadable("not a WebM or Ogg recording")
    try:
        return av.open(io.BytesIO(recording), mode="r", format=container.demuxer, options=dict(_OPEN_OPTIONS))
    except (av.FFmpegError, ValueError) as exc:
        raise AudioUnreadable("not a recording") from exc


def _frames(recording: bytes, sample_format: str) -> Iterator[av.AudioFrame]:
    """The recording's audio, 16 kHz mono in `sample_format`; damaged packets are skipped."""
    source = _open(recording)
    try:
        audio = next((s for s in source.streams if s.type == "audio"), None)
        if audio is None:
            raise AudioUnreadable("no audio stream")
        resampler = av.AudioResampler(format=sample_format, layout="mono", rate=RATE)
        for packet in source.demux(audio):
            try:
                frames = packet.decode()
            except av.FFmpegError:
                continue  # a damaged packet: skip it
            for frame in frames:
                if isinstance(frame, av.AudioFrame):
                    for resampled in resampler.resample(frame):
                        resampled.pts = None
                        yield resampled
        for resampled in resampler.resample(None):
            resampled.pts = None
            yield resampled
    except av.FFmpegError as exc:
        raise AudioUnreadable("the recording could not be decoded") from exc
    finally:
        source.close()


def prepare(recording: bytes) -> Prepared:
    """MP3 for the provider."""
    samples = 0
    out_buffer = io.BytesIO()
    target = av.open(out_buffer, mode="w", format="mp3")
    stream = target.add_stream("libmp3lame", rate=RATE, layout="mono")
    stream.bit_rate = BIT_RATE
    try:
        for frame in _frames(recording, "s16p"):
            samples += frame.samples
            for out in stream.encode(frame):
                target.mux(out)
        for out in stream.encode(None):
            target.mux(out)
    except av.FFmpegError as exc:
        raise AudioUnreadable("the recording could not be decoded") from exc
    finally:
        target.close()
    if samples == 0:
        raise AudioUnreadable("no audio in the recording")
    return Prepared(data=out_buffer.getvalue(), seconds=samples / RATE)


def pcm(recording: bytes) -> bytes:
    """The recording as 16 kHz mono 32-bit float samples (what local speech recognition reads)."""
    data = b"".join(bytes(frame.planes[0])[: frame.samples * 4] for frame in _frames(recording, "flt"))
    if not data:
        raise AudioUnreadable("no audio in the recording")
    return data
