"""Wake phrases, decided on the server from the input transcription.

'Hey Cara' wakes the assistant; on the consoles that obey it (cardiology and
primary care), 'Go to sleep' silences it until the next 'Hey Cara'. Audio
always flows upstream (the service must transcribe it to hear the phrase);
while asleep the relay drops the assistant's replies instead of playing them.

Transcription arrives in fragments ("Hey", " Ca", "ra,"), so the phrases are
looked for in the running text of the current user turn, normalised (case,
punctuation, spacing), and each occurrence is acted on once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

# Common transcriptions of the phrase ("Hey, Cara", "Hi Kara", "OK Cara").
_PHRASES = re.compile(
    r"\b(?P<wake>(?:hey|hi|hay|hei|okay|ok)\s+(?:cara|kara|carra|karra|carah))\b"
    r"|\b(?P<sleep>go\s+to\s+sleep)\b"
)
# Enough of the turn to hold a phrase split over fragments; older text is dropped.
_KEEP_CHARS = 64


class WakeEvent(Enum):
    WOKE = "awake"
    SLEPT = "asleep"


@dataclass
class WakeState:
    wake_phrase_required: bool
    obeys_sleep: bool
    awake: bool = field(init=False)
    _heard: str = field(default="", init=False)

    def __post_init__(self) -> None:
        self.awake = not self.wake_phrase_required

    def hear(self, fragment: str) -> list[WakeEvent]:
        """Feed one input-transcription fragment; returns the state changes it caused, in order."""
        self._heard = _normalise(self._heard + fragment)
        events: list[WakeEvent] = []
        consumed = 0
        for match in _PHRASES.finditer(self._heard):
            consumed = match.end()
            if match.group("wake") and not self.awake:
                self.awake = True
                events.append(WakeEvent.WOKE)
            elif match.group("sleep") and self.obeys_sleep and self.awake:
                self.awake = False
                events.append(WakeEvent.SLEPT)
        # Keep what follows the last phrase (and a tail for phrases still arriving).
        rest = self._heard[consumed:] if consumed else self._heard
        self._heard = rest[-_KEEP_CHARS:]
        return events

    def end_of_turn(self) -> None:
        """The user's turn is over: a phrase never spans two turns."""
        self._heard = ""

    def wake(self) -> list[WakeEvent]:
        """An explicit action of the clinician (a typed question) wakes the assistant too."""
        if self.awake:
            return []
        self.awake = True
        return [WakeEvent.WOKE]


def _normalise(text: str) -> str:
    # Keep a trailing space: the next fragment may start a new word.
    lowered = re.sub(r"[^\w]+", " ", text.lower())
    return re.sub(r" +", " ", lowered).lstrip()
