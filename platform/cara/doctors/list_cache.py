"""The doctor list, encoded once per change instead of once per request.

The hospital dashboard and the Manage Doctors page read the whole list on
every visit, while it changes a few times a day. Encoding 500 doctors as JSON
and compressing it costs tens of milliseconds of CPU; checking whether the list
changed costs one aggregate query. So each API process keeps the encoded list
(plain and gzip) keyed by the list's *version* read from the database: the
number of doctors and the exact sum of the `updated_at` instants of their
accounts and profiles. Every write path sets a new `updated_at` (the models'
onupdate) or changes the count, so a stale entry is never served, with no
invalidation to forget: a changed list simply has a new key. (A sum, not a
maximum, so that a clock stepping back still changes the version.) The ETag
is that version, so a browser that already has the list gets 304 Not Modified.

Entries hold staff contact details (never patient data) in this process's
memory only, bounded by `MAX_BYTES`.
"""

from __future__ import annotations

import gzip
import hashlib
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from pydantic import TypeAdapter
from sqlalchemy.orm import Session

from cara.doctors import repository
from cara.doctors.schemas import HospitalDoctorOut

MAX_BYTES = 32 * 1024 * 1024
_ENCODER = TypeAdapter(list[HospitalDoctorOut])


@dataclass(frozen=True)
class Encoded:
    etag: str
    plain: bytes
    compressed: bytes

    @property
    def size(self) -> int:
        return len(self.plain) + len(self.compressed)


Version = tuple[str, str, bool | None, int, Decimal | None, Decimal | None]


def version(session: Session, schema: str, hospital_id: uuid.UUID, hospital_created: bool | None) -> Version:
    count, accounts_changed, profiles_changed = repository.list_version(
        session, hospital_id, hospital_created=hospital_created
    )
    return (schema, str(hospital_id), hospital_created, count, accounts_changed, profiles_changed)


class ListCache:
    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Version, Encoded] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get_or_build(self, key: Version, build: Callable[[], list[HospitalDoctorOut]]) -> Encoded:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
        plain = _ENCODER.dump_json(build(), by_alias=True)
        encoded = Encoded(
            etag='"' + hashlib.sha256(repr(key).encode()).hexdigest()[:32] + '"',
            plain=plain,
            compressed=gzip.compress(plain, compresslevel=6),
        )
        with self._lock:
            # Older versions of the same list will never be asked for again.
            for stale in [k for k in self._entries if k[:3] == key[:3] and k != key]:
                self._bytes -= self._entries.pop(stale).size
            if key not in self._entries and encoded.size <= self.max_bytes:
                self._entries[key] = encoded
                self._bytes += encoded.size
                while self._bytes > self.max_bytes:
                    _, evicted = self._entries.popitem(last=False)
                    self._bytes -= evicted.size
        return encoded

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0


LISTS = ListCache()
