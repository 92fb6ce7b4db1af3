"""The browser protocol: valid frames parse, every bad frame gives a short reason, none crashes."""

from __future__ import annotations

import base64
import json

import pytest

from cara.live import messages as m


def frame(**fields: object) -> str:
    return json.dumps(fields)


class TestValidFrames:
    def test_auth(self) -> None:
        parsed = m.parse(frame(type="auth", token="abc.def.ghi"))
        assert isinstance(parsed, m.AuthIn) and parsed.token == "abc.def.ghi"

    def test_audio_is_decoded(self) -> None:
        pcm = bytes(range(256)) * 16
        parsed = m.parse(frame(type="audio", data=base64.b64encode(pcm).decode()))
        assert isinstance(parsed, m.AudioIn) and parsed.pcm == pcm

    def test_video_must_be_jpeg(self) -> None:
        jpeg = b"\xff\xd8\xff\xe0" + b"\x00" * 20
        parsed = m.parse(frame(type="video", data=base64.b64encode(jpeg).decode()))
        assert isinstance(parsed, m.VideoIn) and parsed.data == jpeg

    def test_text_is_trimmed(self) -> None:
        parsed = m.parse(frame(type="text", text="  What is the EQD2?  "))
        assert isinstance(parsed, m.TextIn) and parsed.text == "What is the EQD2?"

    def test_stream_end(self) -> None:
        assert isinstance(m.parse(frame(type="audioStreamEnd")), m.AudioStreamEndIn)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("not json", "Malformed JSON."),
        ("[1, 2]", "A message must be a JSON object."),
        ("42", "A message must be a JSON object."),
        (frame(kind="audio"), "Unknown message type."),
        (frame(type="shout"), "Unknown message type."),
        (frame(type="audio"), "Invalid or missing 'data'."),
        (frame(type="audio", data="!!!"), "Audio data must be valid base64."),
        (frame(type="audio", data="AAAA"), "Audio must be whole 16-bit samples."),
        (frame(type="audio", data=12), "Audio data must be a base64 string."),
        (frame(type="audio", data="A" * (m.MAX_AUDIO_CHARS + 4)), "Audio data is too large."),
        (frame(type="video", data="AAAAAA=="), "Video frames must be JPEG images."),
        (frame(type="text", text="   "), "Text must not be blank."),
        (frame(type="text", text="x" * (m.MAX_TEXT_CHARS + 1)), "Invalid or missing 'text'."),
        (frame(type="auth", token=""), "Invalid or missing 'token'."),
        (frame(type="audioStreamEnd", extra=1), "Unexpected field 'extra'."),
        (b'{"type": "audioStreamEnd"}', "Send JSON text frames."),
        (None, "Send JSON text frames."),
    ],
)
def test_bad_frames_get_a_reason(raw: str | bytes | None, reason: str) -> None:
    with pytest.raises(m.BadFrame) as caught:
        m.parse(raw)
    assert str(caught.value) == reason


def test_reasons_never_echo_the_frame() -> None:
    secret = "patient Ama Mensah, 34 years"
    with pytest.raises(m.BadFrame) as caught:
        m.parse(frame(type="text", text=secret, more=secret))
    assert secret not in str(caught.value)


class TestAudioFastPath:
    """The console's own audio frames skip the generic validator; the rules stay the same."""

    def compact(self, data: str) -> str:
        return json.dumps({"type": "audio", "data": data}, separators=(",", ":"))

    def test_same_result_as_the_validator(self) -> None:
        data = base64.b64encode(bytes(range(256)) * 16).decode()
        fast = m.parse(self.compact(data))
        slow = m.parse(json.dumps({"type": "audio", "data": data}))  # with spaces: the validator
        assert fast == slow and isinstance(fast, m.AudioIn) and fast.data == data

    @pytest.mark.parametrize(
        ("data", "reason"),
        [
            ("AAAA", "Audio must be whole 16-bit samples."),
            ("AAA", "Audio data must be valid base64."),
            ("", "Audio data must be a base64 string."),
        ],
    )
    def test_same_refusals(self, data: str, reason: str) -> None:
        with pytest.raises(m.BadFrame) as caught:
            m.parse(self.compact(data))
        assert str(caught.value) == reason
