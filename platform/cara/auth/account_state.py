"""What the principal check needs of an account, remembered per process and kept current.

The check (cara.auth.principal) compares the token with the account's role, tenant (schema,
kind, status), `is_active` and password change time. Those change rarely, so each process keeps
them in memory after the first read (`AccountStates`), and every change is announced after its
commit (cara.kit.account_events): to this process at once, to every other over Redis pub/sub,
on the channel of token revocations. A request uses a remembered state only while that
channel's subscriber has proved alive within `tokens.STALE_AFTER` (1 s), so a deactivation, a
suspension, a password change or a deletion takes effect on every replica within a second, or
the replica reads the database as before.

The announcements come from the ORM itself, whoever the writer is: a session that flushes a
change of one of the watched columns of `Account` or `Tenant` (or deletes one), or runs a bulk
UPDATE/DELETE of those tables, announces it when it commits. Raw SQL writers announce
themselves (tenants.erasure).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain
from typing import Any

from sqlalchemy import event, inspect
from sqlalchemy.orm import ORMExecuteState, Session

from cara.kit import account_events
from cara.models import Account, Tenant


@dataclass(frozen=True, slots=True)
class AccountState:
    role: str
    tenant_id: uuid.UUID | None
    tenant_schema: str | None
    tenant_kind: str | None
    tenant_status: str | None
    is_active: bool
    password_changed_ms: int
    hospital_id: uuid.UUID | None


class AccountStates:
    """Account id -> state. `generation` moves on every change announced, so a state read
    from the database before a change that was announced meanwhile is not remembered."""

    def __init__(self, max_entries: int = 100_000) -> None:
        self._states: dict[uuid.UUID, AccountState] = {}
        self._max = max_entries
        self.generation = 0

    def get(self, account_id: uuid.UUID) -> AccountState | None:
        return self._states.get(account_id)

    def remember(self, account_id: uuid.UUID, state: AccountState, generation: int) -> None:
        if generation != self.generation:
            return
        if len(self._states) >= self._max:
            self._states.clear()
        self._states[account_id] = state

    def handle(self, message: str) -> None:
        parsed = account_events.parse(message)
        if parsed is None:
            return
        kind, ident = parsed
        self.generation += 1
        if kind == "account":
            self._states.pop(_uuid(ident), None)  # type: ignore[arg-type]
        elif kind == "tenant":
            tenant = _uuid(ident)
            for account_id, state in list(self._states.items()):
                if state.tenant_id == tenant:
                    self._states.pop(account_id, None)
        else:
            self._states.clear()

    def __len__(self) -> int:
        return len(self._states)


def _uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


STATES = AccountStates()
account_events.on_message(STATES.handle)


def state_of(account: Account, schema: str | None, kind: str | None, status: str | None) -> AccountState:
    return AccountState(
        role=account.role,
        tenant_id=account.tenant_id,
        tenant_schema=schema,
        tenant_kind=kind,
        tenant_status=status,
        is_active=account.is_active,
        password_changed_ms=int(account.password_changed_at.timestamp() * 1000),
        hospital_id=account.hospital_id,
    )


# ---------------------------------------------------------------- announcing changes

_WATCHED = {
    Account: ("role", "tenant_id", "hospital_id", "is_active", "password_changed_at"),
    Tenant: ("status", "schema_name", "kind"),
}
_CHANGES = "cara_account_changes"


def _pending(session: Session) -> set[tuple[account_events.Kind, str]]:
    found: set[tuple[account_events.Kind, str]] = session.info.setdefault(_CHANGES, set())
    return found


@event.listens_for(Session, "before_flush")
def _note_changes(session: Session, flush_context: Any, instances: Iterable[Any] | None) -> None:
    deleted = session.deleted
    for obj in chain(session.dirty, deleted):
        watched = _WATCHED.get(type(obj))
        if watched is None:
            continue
        if obj not in deleted:
            attrs = inspect(obj).attrs
            if not any(attrs[name].history.has_changes() for name in watched):
                continue
        kind: account_events.Kind = "account" if isinstance(obj, Account) else "tenant"
        _pending(session).add((kind, str(obj.id)))


@event.listens_for(Session, "do_orm_execute")
def _note_bulk_changes(state: ORMExecuteState) -> None:
    if not (state.is_update or state.is_delete):
        return
    mapper = state.bind_mapper
    if mapper is None or mapper.class_ not in _WATCHED:
        return
    values = getattr(state.statement, "_values", None)
    if state.is_update and values:
        names = {getattr(key, "key", key) for key in values}
        if not names & set(_WATCHED[mapper.class_]):
            return  # e.g. an email verified, a Stripe customer id: nothing the check reads
    _pending(state.session).add(("all", "*"))


@event.listens_for(Session, "after_commit")
def _announce(session: Session) -> None:
    changes = session.info.pop(_CHANGES, None)
    if changes:
        account_events.changed(changes)
    # Not forgotten on a rollback: announcing a change that did not happen costs one re-read,
    # forgetting one that did (a savepoint's rollback after it) would leave a stale state.
