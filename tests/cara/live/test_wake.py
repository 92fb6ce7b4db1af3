"""The wake-phrase state machine, fed input-transcription fragments as the service sends them."""

from __future__ import annotations

import pytest

from cara.live.assistant_profiles import ASSISTANT_PROFILES
from cara.live.wake import WakeEvent, WakeState


def cardiology() -> WakeState:
    profile = ASSISTANT_PROFILES["cardiologist"]
    return WakeState(wake_phrase_required=profile.wake_phrase_required, obeys_sleep=profile.obeys_sleep)


def radiology() -> WakeState:
    profile = ASSISTANT_PROFILES["radiologist"]
    return WakeState(wake_phrase_required=profile.wake_phrase_required, obeys_sleep=profile.obeys_sleep)


class TestWaking:
    def test_specialty_consoles_start_asleep_and_the_generic_one_awake(self) -> None:
        assert cardiology().awake is False
        assert radiology().awake is False
        generic = ASSISTANT_PROFILES["generic"]
        assert WakeState(wake_phrase_required=generic.wake_phrase_required, obeys_sleep=False).awake is True

    def test_hey_cara_wakes(self) -> None:
        state = cardiology()
        assert state.hear("Hey Cara, look at this ECG") == [WakeEvent.WOKE]
        assert state.awake

    @pytest.mark.parametrize(
        "fragments",
        [
            ["Hey", " Ca", "ra"],
            ["hey ", "cara"],
            ["So, ", "HEY, ", "CARA!"],
            ["hi Kara"],
            ["Okay   cara."],
            ["H", "ey C", "ara what"],
        ],
    )
    def test_phrase_split_over_fragments_and_written_differently(self, fragments: list[str]) -> None:
        state = cardiology()
        events = [e for f in fragments for e in state.hear(f)]
        assert events == [WakeEvent.WOKE]

    @pytest.mark.parametrize("text", ["Hey there", "Cara", "hey carpet", "they carapace", "heycara"])
    def test_other_words_do_not_wake(self, text: str) -> None:
        state = cardiology()
        assert state.hear(text) == []
        assert not state.awake

    def test_a_phrase_is_acted_on_once(self) -> None:
        state = cardiology()
        assert state.hear("Hey Cara") == [WakeEvent.WOKE]
        assert state.hear(" what is the QT") == []
        assert state.hear(" interval") == []

    def test_a_phrase_does_not_span_turns(self) -> None:
        state = cardiology()
        state.hear("hey")
        state.end_of_turn()
        assert state.hear("cara") == []
        assert not state.awake

    def test_typed_question_wakes(self) -> None:
        state = radiology()
        assert state.wake() == [WakeEvent.WOKE]
        assert state.wake() == []


class TestSleeping:
    def test_go_to_sleep_silences_cardiology_until_woken(self) -> None:
        state = cardiology()
        state.hear("Hey Cara")
        state.end_of_turn()
        assert state.hear("Thanks. Go to sleep.") == [WakeEvent.SLEPT]
        assert not state.awake
        state.end_of_turn()
        assert state.hear("the patient says her chest hurts") == []
        assert not state.awake
        assert state.hear(" hey cara") == [WakeEvent.WOKE]
        assert state.awake

    def test_primary_care_obeys_sleep_too(self) -> None:
        profile = ASSISTANT_PROFILES["general-practitioner"]
        state = WakeState(wake_phrase_required=True, obeys_sleep=profile.obeys_sleep)
        state.hear("hey cara")
        assert (
            state.hear(
                "go to",
            )
            == []
        )
        assert state.hear(" sleep") == [WakeEvent.SLEPT]

    @pytest.mark.parametrize("console", ["radiologist", "radiotherapist", "nurse", "generic"])
    def test_other_consoles_ignore_go_to_sleep(self, console: str) -> None:
        profile = ASSISTANT_PROFILES[console]
        state = WakeState(wake_phrase_required=profile.wake_phrase_required, obeys_sleep=profile.obeys_sleep)
        state.wake()
        assert state.hear("go to sleep") == []
        assert state.awake

    def test_sleep_then_wake_in_one_fragment_keeps_their_order(self) -> None:
        state = cardiology()
        state.hear("hey cara")
        assert state.hear(" go to sleep... no wait, hey cara") == [WakeEvent.SLEPT, WakeEvent.WOKE]
        assert state.awake

    def test_sleeping_twice_reports_once(self) -> None:
        state = cardiology()
        state.hear("hey cara")
        assert state.hear("go to sleep") == [WakeEvent.SLEPT]
        assert state.hear(" go to sleep") == []
