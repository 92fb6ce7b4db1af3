"""The transcript of a recording: one generateContent call with the audio inline (same client path
as the summaries, `cara.kit.gemini`), answered in JSON as speaker-labelled lines.

The model is asked for the clinician's lines and everyone else's ("patient"); Cara was not in the
room. An answer that is not the JSON asked for, or has no line, is a failure (nothing is stored).
"""

from __future__ import annotations

import json
from typing import Any

from google.genai import types

from cara.config import get_settings
from cara.consultations.service import RecordedLine
from cara.kit import gemini
from cara.recordings.audio import Prepared

PROMPT_VERSION = "recording-transcript-v1"
MAX_LINES = 5_000
MAX_LINE_CHARS = 20_000
SPEAKERS = {"clinician": "user", "patient": "patient"}

RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "speaker": {"type": "string", "enum": ["clinician", "patient"]},
                    "startSeconds": {"type": "number"},
                    "text": {"type": "string"},
                },
                "required": ["speaker", "text"],
            },
        }
    },
    "required": ["lines"],
}
REQUEST = (
    "Transcribe this recording of a clinical consultation verbatim, in the language spoken. Give one line "
    "per turn of speech, in order, with the speaker ('clinician' for the doctor, 'patient' for anyone else: "
    "the patient, a relative, an interpreter) and when the turn starts, in seconds from the beginning. "
    "Do not summarise, translate, correct or add anything; leave out silence and noise."
)


class TranscriptUnusable(ValueError):
    """The model's answer held no usable transcript."""


def system_instruction() -> str:
    lab = get_settings().ai_lab_name
    return (
        f"You are Cara, a clinical documentation assistant developed by {lab}. You transcribe recordings of "
        "consultations for the clinician who recorded them, exactly as spoken."
    )


def transcribe(audio: Prepared) -> list[RecordedLine]:
    """Ask the provider for the transcript; runs on the worker (raises on failure)."""
    client = gemini.client(timeout_seconds=600)
    try:
        response = gemini.generate_content(
            client,
            model=get_settings().gemini_text_model,
            contents=[
                types.Content(
                    role="user",
                    parts=[
                        types.Part(inline_data=types.Blob(data=audio.data, mime_type=audio.mime_type)),
                        types.Part(text=REQUEST),
                    ],
                )
            ],
            config=types.GenerateContentConfig(
                system_instruction=system_instruction(),
                temperature=0.0,
                response_mime_type="application/json",
                response_json_schema=RESPONSE_SCHEMA,
            ),
            purpose="transcript",
        )
    finally:
        client.close()
    return parse(response.text or "", audio.seconds)


def parse(answer: str, seconds: float) -> list[RecordedLine]:
    """The model's JSON -> lines in order; start times kept within the recording and never going back."""
    try:
        data = json.loads(answer)
    except ValueError as exc:
        raise TranscriptUnusable("not JSON") from exc
    items = data.get("lines") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise TranscriptUnusable("no lines")
    lines: list[RecordedLine] = []
    last = 0.0
    for item in items[:MAX_LINES]:
        if not isinstance(item, dict):
            continue
        text = item.get("text")
        if not isinstance(text, str) or not text.strip():
            continue
        speaker = SPEAKERS.get(str(item.get("speaker", "")).strip().lower(), "patient")
        start = item.get("startSeconds")
        offset = float(start) if isinstance(start, int | float) and not isinstance(start, bool) else last
        offset = min(max(offset, last), max(seconds, 0.0))
        last = offset
        lines.append(
            RecordedLine(
                speaker=speaker, text=text.strip().replace("\x00", "")[:MAX_LINE_CHARS], offset_seconds=offset
            )
        )
    if not lines:
        raise TranscriptUnusable("no lines")
    return lines
