"""A browser recording (Opus in WebM or Ogg, as MediaRecorder writes it) -> what the provider
takes: MP3, 16 kHz mono at 32 kb/s (about 240 kB a minute, so an hour fits one request).

PyAV (FFmpeg inside the wheel) demuxes and decodes the concatenated chunks; a recording cut off
mid-cluster (a closed tab) decodes up to where it stops. Damaged packets are skipped.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import av

RATE = 16_000
BIT_RATE = 32_000
MIME_TYPE = "audio/mp3"


class AudioUnreadable(ValueError):
    """Nothing could be decoded from the recording."""


@dataclass(frozen=True)
class Prepared:
    data: bytes
    seconds: float
    mime_type: str = MIME_TYPE


def prepare(recording: bytes) -> Prepared:
    samples = 0
    out_buffer = io.BytesIO()
    try:
        source = av.open(io.BytesIO(recording), mode="r")
    except (av.FFmpegError, ValueError) as exc:
        raise AudioUnreadable("not a recording") from exc
    try:
        audio = next((s for s in source.streams if s.type == "audio"), None)
        if audio is None:
            raise AudioUnreadable("no audio stream")
        target = av.open(out_buffer, mode="w", format="mp3")
        stream = target.add_stream("libmp3lame", rate=RATE, layout="mono")
        stream.bit_rate = BIT_RATE
        resampler = av.AudioResampler(format="s16p", layout="mono", rate=RATE)
        try:
            for packet in source.demux(audio):
                try:
                    frames = packet.decode()
                except av.FFmpegError:
                    continue  # a damaged packet: skip it
                for frame in frames:
                    if not isinstance(frame, av.AudioFrame):
                        continue
                    for resampled in resampler.resample(frame):
                        resampled.pts = None
                        samples += resampled.samples
                        for out in stream.encode(resampled):
                            target.mux(out)
            for resampled in resampler.resample(None):
                resampled.pts = None
                samples += resampled.samples
                for out in stream.encode(resampled):
                    target.mux(out)
            for out in stream.encode(None):
                target.mux(out)
        finally:
            target.close()
    except av.FFmpegError as exc:
        raise AudioUnreadable("the recording could not be decoded") from exc
    finally:
        source.close()
    if samples == 0:
        raise AudioUnreadable("no audio in the recording")
    return Prepared(data=out_buffer.getvalue(), seconds=samples / RATE)
