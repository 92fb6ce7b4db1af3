"""The consultation record's rules, one module per audience: the record itself (record), the
doctor's list (listing), transcript lines from every source (transcript), the note and its
signature (notes), exports (exports), the hospital's view (hospital) and the workers' jobs
(jobs). Other domains and the endpoints import this package, never its modules: what is
re-exported here is the record's public surface.

Services never commit and never open a session of their own: the endpoint (the request's
session) or the actor (a tenant session it opens) owns the transaction.
"""

from cara.consultations import templates as note_templates
from cara.consultations.icd10 import lookup as lookup_code
from cara.consultations.radiology import render_radiology
from cara.consultations.service.canonical import content_hash
from cara.consultations.service.exports import ExportFile, export_note, signed_note
from cara.consultations.service.hospital import (
    draft_changes,
    hospital_export_note,
    hospital_read_note,
    hospital_signed_notes,
)
from cara.consultations.service.jobs import (
    RADIOLOGY_CONSOLE,
    RETENTION_ACTOR,
    DraftTarget,
    NewDraft,
    SourceLine,
    apply_retention,
    draft_source,
    draft_target,
    store_draft,
    visit_end_target,
)
from cara.consultations.service.listing import decode_cursor, encode_cursor, list_consultations, search_words
from cara.consultations.service.notes import add_addendum, parse_version, save_note, sign_note
from cara.consultations.service.record import (
    DEFAULT_RETENTION_DAYS,
    MAX_PAGE_SIZE,
    NOT_FOUND,
    PAGE_SIZE,
    RecordPolicy,
    change_consultation,
    change_settings,
    consultation_out,
    detail,
    open_for_live,
    own_consultation,
    patient_reference_json,
    policy,
    read_consultation,
    read_settings,
    recording_consent,
    start_consultation,
)
from cara.consultations.service.transcript import (
    NOTE_AT_END_ACTOR,
    RecordedLine,
    SpokenLine,
    WordTiming,
    add_assistant_lines,
    add_recorded,
    end_live,
    index_for_search,
    rejoin_live,
    store_lines,
    wants_note_at_end,
)
from cara.consultations.templates import Template as NoteTemplate

__all__ = [
    "DEFAULT_RETENTION_DAYS",
    "MAX_PAGE_SIZE",
    "NOTE_AT_END_ACTOR",
    "NOT_FOUND",
    "PAGE_SIZE",
    "RADIOLOGY_CONSOLE",
    "RETENTION_ACTOR",
    "DraftTarget",
    "ExportFile",
    "NewDraft",
    "NoteTemplate",
    "RecordPolicy",
    "RecordedLine",
    "SourceLine",
    "SpokenLine",
    "WordTiming",
    "add_addendum",
    "add_assistant_lines",
    "add_recorded",
    "apply_retention",
    "change_consultation",
    "change_settings",
    "consultation_out",
    "content_hash",
    "decode_cursor",
    "detail",
    "draft_changes",
    "draft_source",
    "draft_target",
    "encode_cursor",
    "end_live",
    "export_note",
    "hospital_export_note",
    "hospital_read_note",
    "hospital_signed_notes",
    "index_for_search",
    "list_consultations",
    "lookup_code",
    "note_templates",
    "open_for_live",
    "own_consultation",
    "parse_version",
    "patient_reference_json",
    "policy",
    "read_consultation",
    "read_settings",
    "recording_consent",
    "rejoin_live",
    "render_radiology",
    "save_note",
    "search_words",
    "sign_note",
    "signed_note",
    "start_consultation",
    "store_draft",
    "store_lines",
    "visit_end_target",
    "wants_note_at_end",
]
