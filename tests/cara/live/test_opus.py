"""The relay's Opus transcoding: Cara's 24 kHz speech to packets and back, the browser's packets to
the provider's 16 kHz PCM, at a fraction of the PCM's size."""

from __future__ import annotations

import itertools
import json
import math
import struct
import time
from typing import Any

import pytest

from cara.live.opus import (
    FRAME_SAMPLES,
    MAX_PACKET_MS,
    REPLY_RATE,
    OpusDecoder,
    OpusEncoder,
    packet_ms,
    repacketize,
)
from cara_doubles.gemini import GeminiDouble
from tests.cara.live.conftest import Browser, doctor_token, start_consultation


def tone(seconds: float, rate: int, frequency: float = 440.0) -> bytes:
    count = int(seconds * rate)
    return b"".join(
        struct.pack("<h", int(8000 * math.sin(2 * math.pi * frequency * i / rate))) for i in range(count)
    )


def samples(pcm: bytes) -> list[int]:
    return [value for (value,) in struct.iter_unpack("<h", pcm)]


def dominant_frequency(pcm: bytes, rate: int) -> float:
    """Zero crossings per second / 2: enough to tell a 440 Hz tone from noise or silence."""
    values = samples(pcm)
    crossings = sum(1 for a, b in itertools.pairwise(values) if (a < 0) != (b < 0))
    return crossings / 2 / (len(values) / rate)


def test_speech_goes_down_as_opus_at_a_fraction_of_the_pcm_and_decodes_to_16_khz() -> None:
    pcm = tone(2.0, REPLY_RATE)
    encoder = OpusEncoder()
    # Chunks of odd sizes, as the provider sends them.
    packets: list[bytes] = []
    for start in range(0, len(pcm), 4_802):
        packets += encoder.encode(pcm[start : start + 4_802])
    packets += encoder.flush()
    # The 20 ms frames each chunk completes go out together: packets of up to 120 ms, not 100 of 20.
    assert abs(sum(map(packet_ms, packets)) - 2000) <= 20
    assert all(packet_ms(p) <= MAX_PACKET_MS for p in packets) and len(packets) < 2000 / 60
    size = sum(len(p) for p in packets)
    assert size * 8 / 2.0 <= 40_000, "near the 24 kb/s asked for (a pure tone costs a little more), not 384"
    assert size < len(pcm) / 10

    decoder = OpusDecoder()
    decoded = b"".join(decoder.decode(p) for p in packets)
    assert len(decoded) % 2 == 0
    assert abs(len(decoded) / 2 - 2.0 * 16_000) < 16_000 * 0.1
    middle = decoded[len(decoded) // 4 : 3 * len(decoded) // 4]
    assert abs(dominant_frequency(middle, 16_000) - 440) < 30, "the tone survives the round trip"


def test_reset_drops_an_interrupted_reply_and_a_bad_packet_is_refused() -> None:
    encoder = OpusEncoder()
    assert encoder.encode(b"\x00\x00" * (FRAME_SAMPLES // 2)) == []  # half a frame waits
    encoder.reset()
    assert encoder.flush() == []
    with pytest.raises(ValueError):
        OpusDecoder().decode(b"\xff")


# ------------------------------------------------------------------ through the relay


def test_opus_both_ways_through_the_relay(
    client: Any, gemini: GeminiDouble, live_server: str, browsers: list[Browser]
) -> None:
    token = doctor_token(client, "Nurse")
    url = f"{live_server}?specialty=generic"  # always awake: replies are played
    consultation = start_consultation(url, token)
    browser = Browser(url)
    browsers.append(browser)
    browser.send({"type": "auth", "token": token, "consultationId": consultation, "audio": "opus"})
    assert browser.status("connected")["audio"] == "opus"
    session = gemini.session(0)

    # Up: one second of microphone as 20 ms Opus packets in binary frames (as WebCodecs makes them).
    microphone = OpusEncoder()
    packets = microphone.encode(tone(1.0, REPLY_RATE)) + microphone.flush()
    for packet in packets:
        browser.send_raw(packet)
    heard = session.wait_for_audio(int(0.8 * 16_000 * 2))
    assert abs(dominant_frequency(heard[3_200:], 16_000) - 440) < 30, "the provider hears 16 kHz PCM"
    assert session.wait_for(lambda msg: "realtimeInput" in msg)["realtimeInput"]["audio"]["mimeType"] == (
        "audio/pcm;rate=16000"
    )

    # Down: the provider's 24 kHz PCM arrives as Opus packets, a tenth of the size.
    reply = tone(0.5, REPLY_RATE)
    session.send_audio(reply)
    session.send_turn_complete()
    got: list[bytes] = []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        frame = browser.ws.recv(timeout=5)
        if isinstance(frame, bytes):
            got.append(frame)
        elif json.loads(frame).get("type") == "turnComplete":
            break
    assert sum(map(packet_ms, got)) >= 480 and sum(map(len, got)) < len(reply) / 8
    assert len(got) < 480 / 20, "the frames of a provider chunk share a binary frame"
    decoded = b"".join(OpusDecoder().decode(p) for p in got)
    assert abs(dominant_frequency(decoded[1_600:], 16_000) - 440) < 30


def test_frames_packed_into_one_packet_decode_to_the_same_samples_as_one_by_one() -> None:
    encoder = OpusEncoder()
    singles: list[bytes] = []
    for start in range(0, REPLY_RATE * 2, FRAME_SAMPLES * 2):  # 20 ms at a time: one frame each
        singles += encoder.encode(tone(1.0, REPLY_RATE)[start : start + FRAME_SAMPLES * 2])
    assert len(singles) == 50 and all(packet_ms(p) == 20 for p in singles)
    packed = repacketize(singles)
    assert [packet_ms(p) for p in packed] == [120.0] * 8 + [40.0]
    assert packed[0][0] & 3 == 3 and packed[0][1] == 0x80 | 6  # RFC 6716 code 3, VBR, 6 frames
    one_by_one, together = OpusDecoder(), OpusDecoder()
    assert b"".join(map(together.decode, packed)) == b"".join(map(one_by_one.decode, singles))
    # Frame lengths of 252 bytes and more take two bytes; another configuration starts a new packet.
    frames = [bytes([0xD8]) + bytes(n) for n in (10, 251, 252, 255, 700, 5)] + [bytes([0xE0, 1])]
    first, other = repacketize(frames)
    assert first[:2] == bytes([0xDB, 0x86])
    assert first[2:10] == bytes([10, 251, 252, 0, 255, 0, 252, 112])  # 700 = 252 + 4 * 112
    assert len(first) == 10 + 10 + 251 + 252 + 255 + 700 + 5 and other == bytes([0xE0, 1])


def test_digital_silence_still_comes_out_as_a_few_bytes_of_silence() -> None:
    encoder = OpusEncoder()
    packets = encoder.encode(bytes(REPLY_RATE * 2)) + encoder.flush()  # one second of zeros
    assert sum(map(packet_ms, packets)) == 1000 and sum(map(len, packets)) < 400
    decoded = samples(b"".join(map(OpusDecoder().decode, packets)))
    assert max(map(abs, decoded)) <= 2


@pytest.mark.parametrize("threads", [0, 2])
def test_the_transcoder_gives_the_codecs_output_in_order_on_or_off_the_loop(threads: int) -> None:
    """Off the event loop (a pool per direction) the packets are those of the codec called in line,
    in order; with 0 threads the codec runs on the loop as before."""
    import asyncio
    import threading

    from cara.live.opus import Transcoder

    speech = tone(0.7, REPLY_RATE)
    chunks = [speech[i : i + 6144] for i in range(0, len(speech), 6144)]
    reference = OpusEncoder()
    expected = [p for chunk in chunks for p in reference.encode(chunk)] + reference.flush()
    mic = OpusEncoder(rate=16_000)
    mic_packets = mic.encode(tone(0.5, 16_000)) + mic.flush()
    decoded_reference = OpusDecoder()
    expected_pcm = b"".join(decoded_reference.decode(p) for p in mic_packets)

    async def run() -> tuple[list[bytes], bytes, set[str]]:
        codec = Transcoder(threads)
        ran_on: set[str] = set()
        encode = codec.encoder.encode

        def recording(pcm: bytes) -> list[bytes]:
            ran_on.add(threading.current_thread().name)
            return encode(pcm)

        codec.encoder.encode = recording  # type: ignore[method-assign]
        packets = [p for chunk in chunks for p in await codec.encode(chunk)] + await codec.flush()
        pcm = b"".join([await codec.decode(p) for p in mic_packets])
        return packets, pcm, ran_on

    packets, pcm, ran_on = asyncio.run(run())
    assert packets == expected and pcm == expected_pcm
    if threads:
        assert ran_on and all(name.startswith("opus-encode") for name in ran_on)
    else:
        assert ran_on == {threading.main_thread().name}
