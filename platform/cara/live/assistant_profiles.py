"""Specialty profiles: what each console's assistant is told, how it sounds, which tools it has.

The server builds the whole Live setup from these, so a browser cannot change
the instructions, the voice or the tools. Consoles are named by their route
slug (spec §2: /radiologist, /radiotherapist, /cardiologist,
/general-practitioner, /nurse) plus `generic` for the generic live console.
"""

from __future__ import annotations

from dataclasses import dataclass

from google.genai import types

from cara.clinical import tool as dose_tool
from cara.doctors.specialties import specialty_path

WAKE_PHRASE = "Hey Cara"
SLEEP_PHRASE = "Go to sleep"


@dataclass(frozen=True)
class AssistantProfile:
    key: str  # route slug, e.g. "general-practitioner"
    specialty: str | None  # the doctor specialty it serves (None: the generic console)
    voice: str  # Gemini prebuilt voice
    role: str  # what the assistant does here (spec §1)
    # 'Hey Cara' must be heard before the assistant answers (the specialty consoles).
    wake_phrase_required: bool
    # 'Go to sleep' silences it until the next 'Hey Cara' (cardiology and primary care).
    obeys_sleep: bool
    dose_constraint_tool: bool = False


ASSISTANT_PROFILES: dict[str, AssistantProfile] = {
    p.key: p
    for p in (
        AssistantProfile(
            key="radiologist",
            specialty="Radiologist",
            voice="Zephyr",
            role=(
                "You support a radiologist. Review the images shown to you over the camera or screen share "
                "and help draft radiology reports in structured sections: clinical indication, comparison, "
                "technique, findings organ by organ, a numbered impression, and where it applies a RADS "
                "category (BI-RADS, Lung-RADS, LI-RADS, PI-RADS, TI-RADS) with its recommendation. Say when "
                "image quality or the view shown does not allow a finding."
            ),
            wake_phrase_required=True,
            obeys_sleep=False,
        ),
        AssistantProfile(
            key="radiotherapist",
            specialty="Radiotherapist",
            voice="Zephyr",
            role=(
                "You support a radiation oncologist or radiotherapist. Review treatment plans against "
                "normal-tissue dose-constraint guidance (QUANTEC; for stereotactic plans AAPM TG-101 and the "
                "UK SABR consensus), discuss DVH metrics, fractionation and plan adaptation. For every "
                f"numerical organ-at-risk check call the {dose_tool.FUNCTION_NAME} tool instead of recalling "
                "limits, give the number of fractions when it is not conventional so the dose is converted "
                "to EQD2, and quote the source row the tool returns."
            ),
            wake_phrase_required=True,
            obeys_sleep=False,
            dose_constraint_tool=True,
        ),
        AssistantProfile(
            key="cardiologist",
            specialty="Cardiologist",
            voice="Aoede",
            role=(
                "You support a cardiologist. Review cases and results: history, examination, ECG "
                "descriptions, echocardiography, cardiac biomarkers and imaging. Offer differential "
                "diagnoses, risk scores and guideline-based next steps."
            ),
            wake_phrase_required=True,
            obeys_sleep=True,
        ),
        AssistantProfile(
            key="general-practitioner",
            specialty="General Practitioner",
            voice="Leda",
            role=(
                "You support a general practitioner in primary care. Review cases and results: symptoms, "
                "examination findings, laboratory results and medication. Offer differential diagnoses, "
                "red flags that need referral, and guideline-based management available in primary care."
            ),
            wake_phrase_required=True,
            obeys_sleep=True,
        ),
        AssistantProfile(
            key="nurse",
            specialty="Nurse",
            voice="Kore",
            role=(
                "You support a nurse. Help with patient assessment, triage, care plans, medication "
                "administration checks, wound care and patient education, and say when a doctor must be "
                "called."
            ),
            wake_phrase_required=True,
            obeys_sleep=False,
        ),
        AssistantProfile(
            key="generic",
            specialty=None,
            voice="Puck",
            role=(
                "You are a general clinical assistant in a live conversation. Answer questions, keep track "
                "of the conversation, and produce concise summaries or report drafts when asked."
            ),
            wake_phrase_required=False,
            obeys_sleep=False,
        ),
    )
}


def assistant_profile_for(key: str | None, doctor_specialty: str | None) -> AssistantProfile | None:
    """The console asked for, or the doctor's own specialty console when none is named."""
    if key is None or not key.strip():
        key = doctor_specialty or "generic"
    # A route slug ("general-practitioner") or a specialty name ("General Practitioner").
    return ASSISTANT_PROFILES.get(specialty_path(key).lstrip("/"))


def system_instruction(profile: AssistantProfile, lab_name: str) -> str:
    parts = [
        f"You are Cara, a clinical AI assistant developed by {lab_name}. When asked who made or developed "
        f"you, say that you were developed by {lab_name}.",
        profile.role,
        "You work with healthcare professionals in Africa and the Caribbean, often in resource-limited "
        "settings: prefer options that are available and affordable there, and say when a recommendation "
        "assumes equipment or drugs that may not be.",
        "You give decision support, not a diagnosis: the clinician decides. Say how certain you are, and "
        "never invent results, doses or references. Use Google Search for recent guidelines and drug "
        "information, and name your sources.",
        "You are speaking: answer briefly and clearly, and reply in the language the clinician speaks.",
    ]
    if profile.wake_phrase_required:
        parts.append(f"The clinician addresses you by saying '{WAKE_PHRASE}'.")
    if profile.obeys_sleep:
        parts.append(
            f"When the clinician says '{SLEEP_PHRASE}', stay silent until they say '{WAKE_PHRASE}' again."
        )
    return "\n\n".join(parts)


def tools(profile: AssistantProfile) -> list[types.ToolUnion]:
    found: list[types.ToolUnion] = [types.Tool(google_search=types.GoogleSearch())]
    if profile.dose_constraint_tool:
        found.append(types.Tool(function_declarations=[dose_tool.declaration()]))
    return found


# Compress the oldest context once it passes this many tokens, so a consultation
# is not cut at the ~15 minute (audio) / ~2 minute (audio + video) context limit.
COMPRESSION_TRIGGER_TOKENS = 25_600
COMPRESSION_TARGET_TOKENS = 12_800


def live_config(
    profile: AssistantProfile, *, lab_name: str, resumption_handle: str | None
) -> types.LiveConnectConfig:
    """The Live setup for a console; `resumption_handle` continues an earlier connection."""
    return types.LiveConnectConfig(
        response_modalities=[types.Modality.AUDIO],
        speech_config=types.SpeechConfig(
            voice_config=types.VoiceConfig(
                prebuilt_voice_config=types.PrebuiltVoiceConfig(voice_name=profile.voice)
            )
        ),
        system_instruction=types.Content(
            role="user", parts=[types.Part(text=system_instruction(profile, lab_name))]
        ),
        tools=tools(profile),
        input_audio_transcription=types.AudioTranscriptionConfig(),
        output_audio_transcription=types.AudioTranscriptionConfig(),
        context_window_compression=types.ContextWindowCompressionConfig(
            trigger_tokens=COMPRESSION_TRIGGER_TOKENS,
            sliding_window=types.SlidingWindow(target_tokens=COMPRESSION_TARGET_TOKENS),
        ),
        # Always asked for, so the service sends handles from the first connection on.
        session_resumption=types.SessionResumptionConfig(handle=resumption_handle),
    )
