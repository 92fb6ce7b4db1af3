"""The scheduler enqueues each periodic job once per interval slot, however many replicas tick."""

from __future__ import annotations

import threading

from cara.kit.redis import get_redis
from workers import scheduler

# No worker runs in these tests: every message sent stays on its queue and can be counted.
NOW = 1_800_000_000.0  # the start of a slot of every interval in the schedule
NAMES = sorted(job.actor_name for job in scheduler.SCHEDULE)


def _queued(actor_name: str) -> int:
    queue = scheduler.broker.get_actor(actor_name).queue_name
    return int(get_redis().llen(f"dramatiq:{queue}"))


def _queued_per_actor() -> dict[str, int]:
    return {name: _queued(name) for name in NAMES}


def test_first_tick_of_a_slot_enqueues_every_job() -> None:
    assert all(NOW % job.every_seconds == 0 for job in scheduler.SCHEDULE)
    assert sorted(scheduler.tick(NOW)) == NAMES
    assert _queued_per_actor() == dict.fromkeys(NAMES, 1)


def test_a_second_tick_in_the_same_slot_enqueues_nothing() -> None:
    scheduler.tick(NOW)
    shortest = min(job.every_seconds for job in scheduler.SCHEDULE)
    assert scheduler.tick(NOW + shortest - 1) == []
    assert _queued_per_actor() == dict.fromkeys(NAMES, 1)


def test_the_next_slot_enqueues_each_job_again() -> None:
    scheduler.tick(NOW)
    by_name = {job.actor_name: job for job in scheduler.SCHEDULE}
    sent = scheduler.tick(NOW + min(job.every_seconds for job in scheduler.SCHEDULE))
    # Only the jobs with the shortest interval have reached their next slot.
    shortest = min(job.every_seconds for job in scheduler.SCHEDULE)
    assert sorted(sent) == sorted(n for n, j in by_name.items() if j.every_seconds == shortest)
    for name in NAMES:
        assert _queued(name) == (2 if name in sent else 1)


def test_replicas_ticking_together_enqueue_each_job_once() -> None:
    results: list[list[str]] = []
    start = threading.Barrier(4)

    def replica() -> None:
        start.wait()
        results.append(scheduler.tick(NOW))

    threads = [threading.Thread(target=replica) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert sorted(name for sent in results for name in sent) == NAMES
    assert _queued_per_actor() == dict.fromkeys(NAMES, 1)
