"""A DICOMweb client for one PACS: QIDO-RS (search), STOW-RS (store), and the connection test.

Plain httpx, so every failure becomes one of a few named outcomes (refused credentials, no
answer in time, unreachable, an address that is not DICOMweb) that the service turns into a
clear message naming the PACS setting. Nothing here logs a request or an answer: both carry
patient data.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

DICOM_JSON = "application/dicom+json"
# STOW-RS request bodies are sent in parts of at most this size (or this many instances).
STOW_BATCH_BYTES = 32 * 1024 * 1024
STOW_BATCH_INSTANCES = 200


@dataclass(frozen=True)
class PacsTarget:
    """Where one tenant's studies go: the DICOMweb root and the credentials (server-side only)."""

    base_url: str
    username: str | None
    password: str | None
    shared: bool  # the platform's PACS, holding several tenants' studies
    source: str  # "platform" or "hospital"

    def auth(self) -> httpx.BasicAuth | None:
        if not self.username:
            return None
        return httpx.BasicAuth(self.username, self.password or "")


class PacsError(Exception):
    """The PACS could not do what was asked. `kind`: unauthorized, timeout, unreachable,
    not_dicomweb, refused."""

    def __init__(self, kind: str, status: int | None = None, detail: str = "") -> None:
        super().__init__(kind)
        self.kind = kind
        self.status = status
        self.detail = detail


def _client(target: PacsTarget, timeout: float) -> httpx.Client:
    return httpx.Client(
        base_url=target.base_url.rstrip("/"),
        auth=target.auth(),
        timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)),
        follow_redirects=False,
        trust_env=False,
    )


def _call(target: PacsTarget, timeout: float, method: str, path: str, **kwargs: Any) -> httpx.Response:
    try:
        with _client(target, timeout) as client:
            answer = client.request(method, path, **kwargs)
    except httpx.TimeoutException:
        raise PacsError("timeout") from None
    except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.UnsupportedProtocol, httpx.InvalidURL):
        raise PacsError("unreachable") from None
    except httpx.HTTPError:
        raise PacsError("unreachable") from None
    if answer.status_code in (401, 403):
        raise PacsError("unauthorized", answer.status_code)
    return answer


def _is_dicom_json_list(answer: httpx.Response) -> list[dict[str, Any]] | None:
    """The QIDO answer's datasets, or None when the answer is not DICOM JSON."""
    if answer.status_code == 204:
        return []
    if answer.status_code != 200:
        return None
    try:
        body = answer.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(body, list) or not all(isinstance(item, dict) for item in body):
        return None
    content_type = answer.headers.get("content-type", "").split(";")[0].strip().lower()
    # An empty list proves nothing by itself: only a DICOMweb server labels it dicom+json.
    if not body and content_type != DICOM_JSON:
        return None
    if body and not all(all(len(tag) == 8 for tag in item) for item in body):
        return None
    return body


def _query(params: Mapping[str, str]) -> str:
    """A QIDO query string. `*` (wildcard) and `,` (UID list) stay literal: Orthanc takes an
    encoded `%2A` for a plain character, which no study name contains."""
    return "&".join(f"{quote(key, safe='')}={quote(value, safe='*,')}" for key, value in params.items())


def probe(target: PacsTarget, timeout: float) -> None:
    """Raise PacsError unless the target answers a QIDO-RS study search as DICOMweb."""
    answer = _call(target, timeout, "GET", "/studies?limit=1", headers={"Accept": DICOM_JSON})
    if _is_dicom_json_list(answer) is None:
        raise PacsError("not_dicomweb", answer.status_code)


def search_studies(target: PacsTarget, timeout: float, params: Mapping[str, str]) -> list[dict[str, Any]]:
    """QIDO-RS `GET /studies` with the given matching keys; the DICOM JSON datasets."""
    path = f"/studies?{_query(params)}" if params else "/studies"
    answer = _call(target, timeout, "GET", path, headers={"Accept": DICOM_JSON})
    found = _is_dicom_json_list(answer)
    if found is None:
        if answer.status_code >= 400 and answer.status_code not in (404,):
            raise PacsError("refused", answer.status_code)
        raise PacsError("not_dicomweb", answer.status_code)
    return found


@dataclass
class StowResult:
    stored: set[str]  # SOPInstanceUIDs the PACS says it stored
    failed: dict[str, str]  # SOPInstanceUID -> failure reason code (hex), as the PACS gave it


def _value(item: dict[str, Any], tag: str) -> Any:
    values = item.get(tag, {}).get("Value") or [None]
    return values[0]


def _batches(instances: Iterable[bytes]) -> Iterable[list[bytes]]:
    batch: list[bytes] = []
    size = 0
    for data in instances:
        if batch and (size + len(data) > STOW_BATCH_BYTES or len(batch) >= STOW_BATCH_INSTANCES):
            yield batch
            batch, size = [], 0
        batch.append(data)
        size += len(data)
    if batch:
        yield batch


def store(target: PacsTarget, timeout: float, instances: list[bytes]) -> StowResult:
    """STOW-RS `POST /studies`, in batches; what the PACS stored and what it refused."""
    result = StowResult(stored=set(), failed={})
    for batch in _batches(instances):
        boundary = uuid.uuid4().hex
        body = bytearray()
        for data in batch:
            body += f"--{boundary}\r\nContent-Type: application/dicom\r\n\r\n".encode()
            body += data
            body += b"\r\n"
        body += f"--{boundary}--\r\n".encode()
        answer = _call(
            target,
            timeout,
            "POST",
            "/studies",
            content=bytes(body),
            headers={
                "Content-Type": f'multipart/related; type="application/dicom"; boundary={boundary}',
                "Accept": DICOM_JSON,
            },
        )
        if answer.status_code not in (200, 202, 409):
            if answer.status_code in (404, 405):
                raise PacsError("not_dicomweb", answer.status_code)
            raise PacsError("refused", answer.status_code)
        try:
            report = answer.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise PacsError("not_dicomweb", answer.status_code) from None
        if not isinstance(report, dict):
            raise PacsError("not_dicomweb", answer.status_code)
        for item in report.get("00081199", {}).get("Value") or []:
            sop = _value(item, "00081155")
            if sop:
                result.stored.add(str(sop))
        for item in report.get("00081198", {}).get("Value") or []:
            sop = _value(item, "00081155")
            if sop:
                reason = _value(item, "00081197")
                result.failed[str(sop)] = f"{int(reason):04X}" if isinstance(reason, int) else "unknown"
    return result
