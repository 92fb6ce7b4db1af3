"""The note templates Cara writes in: a list of sections, each with its instruction to the model.

Built-in templates cover every console: SOAP; history and physical; radiology by modality (plain
film, CT, MR, ultrasound, mammography with BI-RADS); radiotherapy plan review; cardiology echo and
ECG reports; nursing handover (SBAR). Each has an id and a version: a draft records both, and so
does the note signed from it, so a later change to a template never changes what a signed note
says it was written in. Radiology templates fill the radiology report's structured sections
(indication, technique, findings, impression, RADS category, recommendation); the others write
headed prose.

Each names the LOINC document type of the note written in it: 11506-3 progress note, 34117-2
history and physical, 11488-4 consult note, 18748-4 diagnostic imaging study.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_SECTION_INSTRUCTION_CHARS = 4_000

PROGRESS_NOTE = "11506-3"
HISTORY_AND_PHYSICAL = "34117-2"
CONSULT_NOTE = "11488-4"
IMAGING_REPORT = "18748-4"


@dataclass(frozen=True)
class Section:
    key: str
    heading: str
    instruction: str


@dataclass(frozen=True)
class Template:
    id: str
    version: int
    title: str
    consoles: tuple[str, ...]
    loinc: str
    sections: tuple[Section, ...]
    # Radiology templates fill the structured report; `modality` words the model's instruction.
    radiology: bool = False
    modality: str | None = None


def _s(key: str, heading: str, instruction: str) -> Section:
    return Section(key, heading, instruction)


_EVERY_DOCTOR = ("general-practitioner", "generic", "cardiologist", "nurse", "radiotherapist", "radiologist")

_RADIOLOGY_SECTIONS = (
    _s("indication", "Indication", "The clinical question and relevant history, as stated."),
    _s("technique", "Technique", "Modality, region, protocol and contrast, as stated."),
    _s("findings", "Findings", "Findings by organ or region, measurements with units."),
    _s("impression", "Impression", "Numbered conclusions, the most important first."),
    _s("recommendation", "Recommendation", "Follow-up or further imaging, only if discussed."),
)


def _radiology(template_id: str, title: str, modality: str, extra: str = "") -> Template:
    return Template(
        id=template_id,
        version=1,
        title=title,
        consoles=("radiologist",),
        loinc=IMAGING_REPORT,
        sections=_RADIOLOGY_SECTIONS,
        radiology=True,
        modality=modality + (f" {extra}" if extra else ""),
    )


BUILT_IN: tuple[Template, ...] = (
    Template(
        id="soap",
        version=1,
        title="SOAP note",
        consoles=_EVERY_DOCTOR,
        loinc=PROGRESS_NOTE,
        sections=(
            _s("subjective", "Subjective", "The complaint, its history and what the patient reports."),
            _s("objective", "Objective", "Examination findings, vital signs and results, with units."),
            _s("assessment", "Assessment", "The clinician's assessment and differential, as stated."),
            _s("plan", "Plan", "Investigations, treatment with doses, advice and follow-up, as stated."),
        ),
    ),
    Template(
        id="history-physical",
        version=1,
        title="History and physical",
        consoles=("general-practitioner", "generic", "cardiologist", "nurse"),
        loinc=HISTORY_AND_PHYSICAL,
        sections=(
            _s("complaint", "Chief complaint", "The main reason for the visit, in the patient's terms."),
            _s("history", "History of present illness", "Onset, course and associated symptoms."),
            _s("past", "Past medical history", "Earlier illnesses, operations and admissions."),
            _s("medications", "Medications", "Current medicines with doses, as stated."),
            _s("allergies", "Allergies", "Allergies and reactions; say when none were asked about."),
            _s("examination", "Examination", "Findings by system, vital signs with units."),
            _s("assessment", "Assessment", "The clinician's assessment, as stated."),
            _s("plan", "Plan", "Investigations, treatment and follow-up, as stated."),
        ),
    ),
    _radiology("radiology-plain-film", "Radiology report: plain film", "a plain radiograph (X-ray)"),
    _radiology("radiology-ct", "Radiology report: CT", "a CT examination"),
    _radiology("radiology-mr", "Radiology report: MR", "an MR examination"),
    _radiology("radiology-ultrasound", "Radiology report: ultrasound", "an ultrasound examination"),
    _radiology(
        "radiology-mammography",
        "Radiology report: mammography (BI-RADS)",
        "a mammogram",
        "with breast composition and a BI-RADS assessment category (0 to 6) when the transcript supports one",
    ),
    Template(
        id="radiotherapy-plan-review",
        version=1,
        title="Radiotherapy plan review",
        consoles=("radiotherapist",),
        loinc=CONSULT_NOTE,
        sections=(
            _s("intent", "Patient and intent", "Diagnosis, stage and treatment intent, as stated."),
            _s("prescription", "Prescription", "Total dose, fractions and technique to each target."),
            _s("coverage", "Target coverage", "Coverage of each target volume (e.g. V95%), as stated."),
            _s(
                "organs",
                "Organs at risk",
                "Each organ's reported dose metric against its constraint, and whether it is met.",
            ),
            _s("decision", "Decision", "Approved, approved with changes, or replan, and why."),
        ),
    ),
    Template(
        id="cardiology-echo",
        version=1,
        title="Echocardiography report",
        consoles=("cardiologist",),
        loinc=CONSULT_NOTE,
        sections=(
            _s("indication", "Indication", "Why the study was done."),
            _s("ventricles", "Ventricles", "Size, wall thickness and function (ejection fraction)."),
            _s("valves", "Valves", "Each valve's structure, stenosis and regurgitation."),
            _s("other", "Other findings", "Atria, pericardium, great vessels, as stated."),
            _s("conclusion", "Conclusion", "The main findings in order of importance."),
        ),
    ),
    Template(
        id="cardiology-ecg",
        version=1,
        title="ECG report",
        consoles=("cardiologist", "general-practitioner"),
        loinc=CONSULT_NOTE,
        sections=(
            _s("rhythm", "Rhythm and rate", "Rhythm and ventricular rate."),
            _s("axis", "Axis and intervals", "Axis, PR, QRS and QT/QTc with units."),
            _s("st", "ST segments and T waves", "ST deviation and T-wave changes by lead group."),
            _s("conclusion", "Conclusion", "The interpretation, as stated."),
        ),
    ),
    Template(
        id="nursing-handover",
        version=1,
        title="Nursing handover (SBAR)",
        consoles=("nurse",),
        loinc=PROGRESS_NOTE,
        sections=(
            _s("situation", "Situation", "Who the patient is and the current concern."),
            _s("background", "Background", "Admission reason, relevant history and treatment so far."),
            _s("assessment", "Assessment", "Observations and vital signs with units; what changed."),
            _s("recommendation", "Recommendation", "What the next shift should do and watch for."),
        ),
    ),
)

BY_ID = {t.id: t for t in BUILT_IN}
LOINC_DISPLAY = {
    PROGRESS_NOTE: "Progress note",
    HISTORY_AND_PHYSICAL: "History and physical note",
    CONSULT_NOTE: "Consult note",
    IMAGING_REPORT: "Diagnostic imaging study",
}

# The template a visit's note is written in when the doctor chooses none.
DEFAULT_FOR_CONSOLE = {
    "general-practitioner": "soap",
    "generic": "soap",
    "cardiologist": "soap",
    "nurse": "nursing-handover",
    "radiotherapist": "radiotherapy-plan-review",
    "radiologist": "radiology-ct",
}

UNKNOWN_TEMPLATE = "Unknown template. Choose one of the templates offered for this console."
NOT_FOR_CONSOLE = "This template is not offered for this console."


def for_console(console: str) -> list[Template]:
    return [t for t in BUILT_IN if console in t.consoles]


def default_for(console: str) -> Template:
    return BY_ID[DEFAULT_FOR_CONSOLE.get(console, "soap")]
