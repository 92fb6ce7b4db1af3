"""Every query of the consultation record. The session is bound to the caller's tenant schema;
every read is also filtered by the doctor (the shared `independent` schema holds many doctors)."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple, Protocol

from psycopg import sql
from sqlalchemy import (
    ColumnElement,
    Float,
    String,
    and_,
    delete,
    func,
    literal,
    or_,
    select,
    text,
    tuple_,
    update,
)
from sqlalchemy.orm import Session

from cara.kit.db import fetch_sets, read_only_preamble
from cara.models import (
    Account,
    Consultation,
    ConsultationDraft,
    ConsultationNote,
    ConsultationNoteEntry,
    DoctorProfile,
    Hospital,
    RecordSettings,
    TenantAuditEvent,
    TranscriptLine,
)
from cara.models.base import utcnow

# A search document holds at most this much transcript text (PostgreSQL caps a tsvector at 1 MiB).
SEARCH_TEXT_LIMIT = 400_000


class LineFields(Protocol):
    """What add_lines reads of a line (the service's SpokenLine)."""

    @property
    def seq(self) -> int: ...
    @property
    def speaker(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def at(self) -> datetime: ...
    @property
    def words(self) -> Sequence[WordJson] | None: ...


class WordJson(Protocol):
    def as_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class ListFilter:
    doctor_id: uuid.UUID
    words: Sequence[str] = ()
    started_from: datetime | None = None
    started_before: datetime | None = None
    state: str | None = None


def add_consultation(session: Session, consultation: Consultation) -> Consultation:
    session.add(consultation)
    session.flush()
    return consultation


def doctor_consultation(
    session: Session, doctor_id: uuid.UUID, consultation_id: uuid.UUID, *, for_update: bool = False
) -> Consultation | None:
    query = select(Consultation).where(
        Consultation.id == consultation_id, Consultation.doctor_account_id == doctor_id
    )
    if for_update:
        query = query.with_for_update()
    return session.scalar(query)


def line_count(session: Session, consultation_id: uuid.UUID) -> int:
    return int(
        session.scalar(
            select(func.count())
            .select_from(TranscriptLine)
            .where(TranscriptLine.consultation_id == consultation_id)
        )
        or 0
    )


def doctor_token(doctor_id: uuid.UUID) -> str:
    """The word every search document of a doctor carries, so the index alone finds theirs."""
    return f"zd{doctor_id.hex}"


# ---------------------------------------------------------------- the doctor's list, on the event loop

# The columns ConsultationOut is built from (cara.consultations.service.list_consultations), and
# the line count from the (consultation_id, seq) unique index.
_LIST_COLUMNS = (
    "c.id, c.console, c.state, c.title, c.started_at, c.ended_at, c.patient_reference,"
    " c.consent_basis, c.consent_by_account_id, c.consent_at, c.source,"
    " (SELECT count(*) FROM {s}.transcript_lines t WHERE t.consultation_id = c.id)"
)
_STATE_CONDITIONS = {
    # An ended consultation with nothing generated or signed shows as a draft (service.display_state).
    "in_progress": b" AND c.state = 'in_progress' AND c.ended_at IS NULL",
    "draft": b" AND (c.state = 'draft' OR (c.state = 'in_progress' AND c.ended_at IS NOT NULL))",
    "signed": b" AND c.state = 'signed'",
}


@dataclass(frozen=True)
class ListedPage:
    """`rows`: (id, console, state, title, started_at, ended_at, patient_reference, consent_basis,
    consent_by_account_id, consent_at, source, line_count), newest first. `stale`: a search found
    documents of this doctor behind their consultation (`refresh_search` gathers them)."""

    rows: list[tuple[Any, ...]]
    stale: bool = False


def _literal(value: Any) -> bytes:
    return sql.Literal(value).as_bytes(None)


class _ListSql(NamedTuple):
    """A tenant's fixed parts of the list's query, identifiers quoted once (`_list_sql`)."""

    head: bytes  # the transaction, under the tenant's role
    stale: bytes  # a search's check for documents behind, up to the doctor's id
    early: bytes  # a search's first look, in the list's order, up to the doctor's id
    search: bytes  # ... its matches from the index, up to its tsquery
    search_page: bytes  # ... from the tsquery up to the doctor's id, then the page's conditions
    search_rest: bytes  # ... after them: the page's rows
    plain: bytes  # the page without a search, up to the doctor's id


# One entry per tenant: sized for tens of thousands of hospitals (at 4,096 the cache was
# emptied over and over by a load spread over 10,000, ops/bench/foundation.py section 3).
@functools.lru_cache(maxsize=65536)
def _list_sql(schema: str, role: str) -> _ListSql:
    s = sql.Identifier(schema)
    columns = sql.SQL(_LIST_COLUMNS).format(s=s)
    head = read_only_preamble(role)
    # refresh_search's condition (STALE_SEARCH and `changed`), read only: the partial index
    # ix_consultations_search_stale answers it.
    stale = sql.SQL(
        "SELECT EXISTS (SELECT 1 FROM {s}.consultations c WHERE"
        " (c.search_indexed_at IS NULL OR c.ended_at IS NULL OR c.ended_at > c.search_indexed_at)"
        " AND (c.search_indexed_at IS NULL OR c.ended_at > c.search_indexed_at"
        " OR (c.ended_at IS NULL AND EXISTS (SELECT 1 FROM {s}.transcript_lines t"
        " WHERE t.consultation_id = c.id AND t.created_at > c.search_indexed_at)))"
        " AND c.doctor_account_id = "
    ).format(s=s)
    # The matches come from the GIN index alone, the doctor's own token narrowing them there: a
    # document is large (read from TOAST), and the planner, which does not count that, would
    # otherwise test every document of the doctor in turn. The bitmap scan reads each match's
    # row anyway, so the matches carry what the page's conditions and order need: the page is
    # chosen among them, and only its own rows are read again (by primary key) with their line
    # counts. Joining every match back to the table first cost 4x the PostgreSQL time for a word
    # in all 5,000 consultations of the benchmark (ops/bench/consultations_list.py).
    #
    # A word in most of the doctor's consultations has thousands of matches, all read to find the
    # newest page of them (5 ms of PostgreSQL per search in the benchmark), when the page is
    # among the doctor's newest few consultations anyway. So a search first looks at the newest
    # EARLY_WINDOW consultations the page's conditions allow, in the list's order, and tests
    # each against the words until the page is full (`early`, a LIMIT over an ordered index
    # scan: rows past the page are never tested). When the window holds a full page, that is
    # the page (the window is the start of the same order, so its first matches are the first
    # matches); otherwise the index's matches are read as above (`hits`, whose scan a one-time
    # filter skips when `early` is full).
    early = sql.SQL(
        "SET LOCAL enable_seqscan = off; WITH early AS MATERIALIZED (SELECT w.id FROM (SELECT c.id,"
        " c.started_at, c.search FROM {s}.consultations c WHERE c.doctor_account_id = "
    ).format(s=s)
    search = sql.SQL(
        "), hits AS MATERIALIZED (SELECT id, doctor_account_id, started_at, ended_at, state"
        " FROM {s}.consultations WHERE (SELECT count(*) FROM early) < "
    ).format(s=s)
    search_page = sql.SQL("), page AS (SELECT c.id FROM hits c WHERE c.doctor_account_id = ").format()
    search_rest = sql.SQL(
        ") SELECT {columns} FROM {s}.consultations c WHERE c.id IN (SELECT id FROM page"
        " UNION ALL SELECT id FROM early WHERE (SELECT count(*) FROM early) >= "
    ).format(s=s, columns=columns)
    plain = sql.SQL("SELECT {columns} FROM {s}.consultations c WHERE c.doctor_account_id = ").format(
        s=s, columns=columns
    )
    return _ListSql(
        *(part.as_bytes(None) for part in (head, stale, early, search, search_page, search_rest, plain))
    )


# How many of the doctor's newest consultations (within the page's conditions) a search tests
# in order before it asks the index for every match (`_list_sql`).
EARLY_WINDOW = 200


async def list_page_async(
    schema: str, role: str, where: ListFilter, *, after: tuple[datetime, uuid.UUID] | None, limit: int
) -> ListedPage:
    """The doctor's consultations, newest first, keyset-paged on (started_at, id) from the
    (doctor_account_id, started_at, id) index: a deep page costs what the first does. One round
    trip on the event loop (cara.kit.db.fetch_sets) under the tenant's role; values are quoted
    literals (one simple-query string carries no parameters). A search also says whether any of
    the doctor's documents is behind, in the same read."""
    fixed = _list_sql(schema, role)
    doctor = _literal(where.doctor_id)
    # The page's conditions, on `c`: the table, or a search's matches.
    page: list[bytes] = [doctor]
    if where.started_from is not None:
        page += [b" AND c.started_at >= ", _literal(where.started_from)]
    if where.started_before is not None:
        page += [b" AND c.started_at < ", _literal(where.started_before)]
    if where.state is not None:
        page.append(_STATE_CONDITIONS[where.state])
    if after is not None:
        page += [b" AND (c.started_at, c.id) < (", _literal(after[0]), b", ", _literal(after[1]), b")"]
    conditions = len(page)
    page += [b" ORDER BY c.started_at DESC, c.id DESC LIMIT ", _literal(int(limit))]
    if where.words:
        # All words, each as a prefix, and the doctor's token: `ama:* & kb:* & zd<hex>`. Words are
        # letters and digits only (the service).
        query = " & ".join([*(f"{w}:*" for w in where.words), doctor_token(where.doctor_id)])
        tsquery = b"to_tsquery('simple'::regconfig, " + _literal(query) + b")"
        full = _literal(int(limit))
        parts = [fixed.head, fixed.stale, doctor, b"); ", fixed.early, *page[:conditions]]
        parts += [b" ORDER BY c.started_at DESC, c.id DESC LIMIT ", _literal(EARLY_WINDOW), b") w"]
        parts += [b" WHERE w.search @@ ", tsquery, b" ORDER BY w.started_at DESC, w.id DESC LIMIT ", full]
        parts += [fixed.search, full, b" AND search @@ ", tsquery, fixed.search_page, *page]
        parts += [fixed.search_rest, full, b") ORDER BY c.started_at DESC, c.id DESC; COMMIT"]
    else:
        parts = [fixed.head, fixed.plain, *page, b"; COMMIT"]
    sets = await fetch_sets(b"".join(parts))
    if where.words:
        (((behind,),), rows) = sets
        return ListedPage(rows, stale=bool(behind))
    (rows,) = sets
    return ListedPage(rows)


def _hospital_doctor() -> Any:
    """Joined to a consultation: its doctor, where the account is still this hospital's doctor.
    A removed doctor's account is gone but their consultations stay in the hospital's schema
    (only its doctors ever wrote there), so no account is this hospital's too."""
    return and_(Account.id == Consultation.doctor_account_id, Account.role == "doctor")


def _of_hospital(hospital_id: uuid.UUID) -> Any:
    return and_(or_(Account.hospital_id == hospital_id, Account.id.is_(None)), Consultation.state == "signed")


def hospital_signed_page(
    session: Session,
    hospital_id: uuid.UUID,
    *,
    doctor_id: uuid.UUID | None,
    after: tuple[datetime, uuid.UUID] | None,
    limit: int,
) -> list[tuple[Consultation, Account | None]]:
    """Signed consultations of this hospital's doctors, removed ones' included (no account),
    newest first (keyset on started_at, id)."""
    query = (
        select(Consultation, Account).outerjoin(Account, _hospital_doctor()).where(_of_hospital(hospital_id))
    )
    if doctor_id is not None:
        query = query.where(Consultation.doctor_account_id == doctor_id)
    if after is not None:
        query = query.where(
            tuple_(Consultation.started_at, Consultation.id)
            < tuple_(literal(after[0], Consultation.started_at.type), literal(after[1], Consultation.id.type))
        )
    query = query.order_by(Consultation.started_at.desc(), Consultation.id.desc()).limit(limit)
    return [(c, a) for c, a in session.execute(query).tuples().all()]


def hospital_signed(
    session: Session, hospital_id: uuid.UUID, consultation_id: uuid.UUID
) -> tuple[Consultation, Account | None] | None:
    row = session.execute(
        select(Consultation, Account)
        .outerjoin(Account, _hospital_doctor())
        .where(Consultation.id == consultation_id, _of_hospital(hospital_id))
    ).first()
    return (row[0], row[1]) if row is not None else None


STALE_SEARCH = or_(
    Consultation.search_indexed_at.is_(None),
    Consultation.ended_at.is_(None),
    Consultation.ended_at > Consultation.search_indexed_at,
)


def refresh_search(session: Session, doctor_id: uuid.UUID | None) -> int:
    """Gather the search words of this doctor's (or, with None, every) consultation whose
    document is behind (new, changed, still running or ended since). Rows another transaction is
    refreshing are skipped."""
    # A running consultation is gathered again only when lines came in since (the partial index
    # covers the wider STALE_SEARCH).
    changed = or_(
        Consultation.search_indexed_at.is_(None),
        Consultation.ended_at > Consultation.search_indexed_at,
        and_(
            Consultation.ended_at.is_(None),
            select(TranscriptLine.id)
            .where(
                TranscriptLine.consultation_id == Consultation.id,
                TranscriptLine.created_at > Consultation.search_indexed_at,
            )
            .exists(),
        ),
    )
    stale_query = select(Consultation.id).where(STALE_SEARCH, changed)
    if doctor_id is not None:
        stale_query = stale_query.where(Consultation.doctor_account_id == doctor_id)
    stale = stale_query.with_for_update(skip_locked=True).scalar_subquery()
    return _gather(session, Consultation.id.in_(stale))


def index_consultation(session: Session, consultation_id: uuid.UUID) -> None:
    """Gather one consultation's search words now (its lines were just stored, or it ended), so
    that no search has to gather them later."""
    _gather(session, Consultation.id == consultation_id)


def _gather(session: Session, which: ColumnElement[bool]) -> int:
    """Write the search document of the consultations `which` selects: the doctor's token, title,
    patient reference and transcript."""
    # The correlated aggregate makes the planner's estimate huge: JIT compiling it cost 250 ms
    # per search in the benchmark, for a statement that usually touches no row.
    session.execute(text("SELECT set_config('jit', 'off', true)"))
    transcript = (
        select(func.left(func.string_agg(TranscriptLine.text, text("' ' ORDER BY seq")), SEARCH_TEXT_LIMIT))
        .where(TranscriptLine.consultation_id == Consultation.id)
        .scalar_subquery()
    )
    # Joined with || and coalesce rather than concat_ws: concat_ws is STABLE, and Citus refuses a
    # STABLE function over columns in an UPDATE of a distributed table. The extra spaces of empty
    # parts vanish in regexp_replace below, so the document is the same.
    words = literal("zd") + func.replace(func.cast(Consultation.doctor_account_id, String), "-", "")
    for part in (
        Consultation.title,
        Consultation.patient_reference["recordNumber"].astext,
        Consultation.patient_reference["name"].astext,
        transcript,
    ):
        words = words + literal(" ") + func.coalesce(part, literal(""))
    result = session.execute(
        update(Consultation)
        .where(which)
        .values(
            # Letters and digits only, as the query's words: "KB-20931" is the words kb and 20931.
            search=func.to_tsvector(
                text("'simple'::regconfig"), func.regexp_replace(words, "[^[:alnum:]]+", " ", "g")
            ),
            search_indexed_at=utcnow(),
        )
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0) or 0)


def add_draft(session: Session, draft: ConsultationDraft) -> ConsultationDraft:
    session.add(draft)
    session.flush()
    return draft


def lines(session: Session, consultation_id: uuid.UUID) -> list[TranscriptLine]:
    return list(
        session.scalars(
            select(TranscriptLine)
            .where(TranscriptLine.consultation_id == consultation_id)
            .order_by(TranscriptLine.seq)
        )
    )


def last_seq(session: Session, consultation_id: uuid.UUID) -> int:
    """The number of the consultation's last line, -1 before the first."""
    last = session.scalar(
        select(func.max(TranscriptLine.seq)).where(TranscriptLine.consultation_id == consultation_id)
    )
    return -1 if last is None else int(last)


def reopen(session: Session, doctor_id: uuid.UUID, consultation_id: uuid.UUID) -> None:
    session.execute(
        update(Consultation)
        .where(Consultation.id == consultation_id, Consultation.doctor_account_id == doctor_id)
        .values(ended_at=None)
    )


def end(session: Session, doctor_id: uuid.UUID, consultation_id: uuid.UUID, reconnects: int) -> None:
    session.execute(
        update(Consultation)
        .where(Consultation.id == consultation_id, Consultation.doctor_account_id == doctor_id)
        .values(ended_at=utcnow(), reconnects=reconnects)
    )


def drafts(session: Session, consultation_id: uuid.UUID) -> list[ConsultationDraft]:
    return list(
        session.scalars(
            select(ConsultationDraft)
            .where(ConsultationDraft.consultation_id == consultation_id)
            .order_by(ConsultationDraft.created_at, ConsultationDraft.id)
        )
    )


def note(
    session: Session, consultation_id: uuid.UUID, *, for_update: bool = False
) -> ConsultationNote | None:
    query = select(ConsultationNote).where(ConsultationNote.consultation_id == consultation_id)
    if for_update:
        query = query.with_for_update()
    return session.scalar(query)


def draft(session: Session, consultation_id: uuid.UUID, draft_id: uuid.UUID) -> ConsultationDraft | None:
    return session.scalar(
        select(ConsultationDraft).where(
            ConsultationDraft.id == draft_id, ConsultationDraft.consultation_id == consultation_id
        )
    )


def add_note(session: Session, note: ConsultationNote) -> ConsultationNote:
    session.add(note)
    session.flush()
    return note


def add_entry(session: Session, entry: ConsultationNoteEntry) -> ConsultationNoteEntry:
    session.add(entry)
    session.flush()
    return entry


def note_entries(session: Session, note_id: uuid.UUID) -> list[ConsultationNoteEntry]:
    return list(
        session.scalars(
            select(ConsultationNoteEntry)
            .where(ConsultationNoteEntry.note_id == note_id)
            .order_by(ConsultationNoteEntry.number)
        )
    )


def account(session: Session, account_id: uuid.UUID) -> Account | None:
    return session.get(Account, account_id)


@dataclass(frozen=True)
class Signature:
    """What a consultation's signature shows, as fixed at signing (`shown`, None for a note
    signed before that was kept), and the name it was signed under."""

    shown: dict[str, Any] | None
    author_name: str


def signatures(session: Session, consultation_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Signature]:
    if not consultation_ids:
        return {}
    rows = session.execute(
        select(
            ConsultationNote.consultation_id, ConsultationNoteEntry.shown, ConsultationNoteEntry.author_name
        )
        .join(ConsultationNoteEntry, ConsultationNoteEntry.note_id == ConsultationNote.id)
        .where(ConsultationNote.consultation_id.in_(consultation_ids), ConsultationNoteEntry.number == 1)
    ).tuples()
    return {cid: Signature(shown, author) for cid, shown, author in rows.all()}


def hospital_name(session: Session, hospital_id: uuid.UUID) -> str | None:
    return session.scalar(select(Hospital.name).where(Hospital.id == hospital_id))


def hospital(session: Session, hospital_id: uuid.UUID) -> Hospital | None:
    return session.get(Hospital, hospital_id)


def doctor_profile(session: Session, account_id: uuid.UUID) -> DoctorProfile | None:
    """This doctor's profile in the tenant schema (None for an account without one)."""
    return session.scalar(select(DoctorProfile).where(DoctorProfile.account_id == account_id))


def expired_unsigned(
    session: Session, now: datetime, *, hospital: bool, default_days: int
) -> list[uuid.UUID]:
    """Unsigned consultations older than their retention period that still hold a transcript,
    drafts or an unsigned note. The period is the hospital's, or each independent doctor's own."""
    owner = literal("hospital") if hospital else func.cast(Consultation.doctor_account_id, String)
    days = func.coalesce(RecordSettings.retention_days, default_days)
    held = or_(
        select(TranscriptLine.id).where(TranscriptLine.consultation_id == Consultation.id).exists(),
        select(ConsultationDraft.id).where(ConsultationDraft.consultation_id == Consultation.id).exists(),
        select(ConsultationNote.id).where(ConsultationNote.consultation_id == Consultation.id).exists(),
    )
    query = (
        select(Consultation.id)
        .outerjoin(RecordSettings, RecordSettings.owner == owner)
        .where(
            Consultation.state != "signed",
            func.coalesce(Consultation.ended_at, Consultation.started_at)
            < now - func.make_interval(0, 0, 0, days),
            held,
        )
    )
    return list(session.scalars(query))


def purge(session: Session, consultation_ids: Sequence[uuid.UUID]) -> None:
    """Delete the transcripts, drafts and unsigned notes of these consultations; the consultation
    row (when, which console, title) stays. A signed note is never deleted here."""
    if not consultation_ids:
        return
    ids = list(consultation_ids)
    session.execute(delete(TranscriptLine).where(TranscriptLine.consultation_id.in_(ids)))
    session.execute(delete(ConsultationDraft).where(ConsultationDraft.consultation_id.in_(ids)))
    signed_notes = select(ConsultationNoteEntry.note_id)
    session.execute(
        delete(ConsultationNote).where(
            ConsultationNote.consultation_id.in_(ids), ConsultationNote.id.not_in(signed_notes)
        )
    )
    session.execute(
        update(Consultation)
        .where(Consultation.id.in_(ids), Consultation.state != "signed")
        .values(search=None, search_indexed_at=None)
        .execution_options(synchronize_session=False)
    )


def settings_row(session: Session, owner: str) -> RecordSettings | None:
    return session.get(RecordSettings, owner)


def save_settings(session: Session, row: RecordSettings) -> RecordSettings:
    session.add(row)
    session.flush()
    return row


def add_lines(session: Session, consultation_id: uuid.UUID, lines: Iterable[LineFields]) -> None:
    """The one writer of transcript lines (the live relay, the chat, a recording): each line's
    number, speaker, text and time, as the caller numbered them."""
    session.add_all(
        TranscriptLine(
            consultation_id=consultation_id,
            seq=line.seq,
            speaker=line.speaker,
            text=line.text,
            spoken_at=line.at,
            words=[w.as_json() for w in line.words] if line.words else None,
        )
        for line in lines
    )
    session.flush()


@dataclass(frozen=True)
class DraftChange:
    template: str | None
    draft_kind: str | None
    signed: int
    mean: float
    median: float


def draft_changes(session: Session) -> list[DraftChange]:
    """Per template (and draft kind), how much doctors changed drafts before signing, from the
    signatures' audit entries (`draftChange`, 0 to 1) in this tenant schema."""
    detail = TenantAuditEvent.detail
    change = detail["draftChange"].astext.cast(Float)
    template, kind = detail["template"].astext, detail["draftKind"].astext
    rows = session.execute(
        select(
            template,
            kind,
            func.count(),
            func.avg(change),
            func.percentile_cont(0.5).within_group(change),
        )
        .where(TenantAuditEvent.action == "consultation.note.sign", detail.has_key("draftChange"))
        .group_by(template, kind)
        .order_by(func.count().desc(), template)
    ).tuples()
    return [
        DraftChange(t, k, int(n), round(float(mean or 0), 4), round(float(median or 0), 4))
        for t, k, n, mean, median in rows.all()
    ]
