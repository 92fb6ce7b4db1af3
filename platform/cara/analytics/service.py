"""What other domains call: platform figures changed, so the rollups should follow.

A payment, a signup or a subscription change calls `figures_changed(session)`
inside its transaction. The job is sent only after that transaction commits
(cara.kit.jobs), once per transaction however many rows changed; the
`analytics.figures_changed` actor then debounces a burst of them into a single
refresh a few seconds later, so the admin overview follows within a minute
without recomputing once per event.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from cara.kit.jobs import enqueue_after_commit

FIGURES_CHANGED = "analytics.figures_changed"
_ENQUEUED = "cara_analytics_refresh_enqueued"


def figures_changed(session: Session) -> None:
    """Ask for a rollup refresh once this transaction commits (at most one job per transaction)."""
    transaction = session.get_transaction()
    if transaction is not None and session.info.get(_ENQUEUED) is transaction:
        return
    enqueue_after_commit(session, FIGURES_CHANGED)
    session.info[_ENQUEUED] = session.get_transaction()
