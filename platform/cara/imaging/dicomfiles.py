"""Reading an upload of DICOM files: each one checked before anything is stored.

A file is accepted when it is a DICOM Part 10 file (preamble and "DICM"), parses completely,
names its study, series and instance, and holds all of its pixel data (a truncated file often
parses, with its pixel data cut short). Zips are opened here too, with every limit applied to
what they expand to, not to what their headers claim.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass

import pydicom
from pydicom.dataset import Dataset
from pydicom.encaps import generate_fragments
from pydicom.errors import InvalidDicomError

ZIP_MAGIC = b"PK\x03\x04"
DICOM_PREFIX_AT = 128
# The Media Storage Directory (DICOMDIR) indexes a CD's files; it is not an image to store.
MEDIA_DIRECTORY_SOP_CLASS = "1.2.840.10008.1.3.10"
_READ_STEP = 1024 * 1024

NOT_DICOM = "is not a DICOM file"
DAMAGED = "could not be read as DICOM (damaged or cut short)"
TRUNCATED = "is cut short: its pixel data is incomplete"
MISSING_UIDS = (
    "does not name its study, series and instance (StudyInstanceUID, SeriesInstanceUID, SOPInstanceUID)"
)


class UploadProblem(Exception):
    """One file of the upload cannot be taken; `name` is the file as the client named it."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"{name} {problem}")
        self.name = name
        self.problem = problem


class UploadTooLarge(Exception):
    """The upload as a whole is past a limit: `kind` "files" or "bytes", at the file `name`."""

    def __init__(self, kind: str, name: str = "") -> None:
        super().__init__(kind)
        self.kind = kind
        self.name = name


@dataclass(frozen=True)
class StudyFacts:
    """What the list shows of a study, as its instances' headers say."""

    patient_name: str | None
    patient_id: str | None
    accession_number: str | None
    study_date: str | None  # YYYYMMDD
    modality: str | None
    description: str | None


@dataclass(frozen=True)
class Instance:
    name: str  # the file's name in the upload ("scan.zip/IMG0001" inside a zip)
    data: bytes
    study_uid: str
    series_uid: str
    sop_uid: str
    sop_class_uid: str
    facts: StudyFacts


def _text(dataset: Dataset, keyword: str) -> str | None:
    value = dataset.get(keyword)
    if value is None:
        return None
    text = str(value).strip()
    return text[:200] or None


def _facts(dataset: Dataset) -> StudyFacts:
    return StudyFacts(
        patient_name=_text(dataset, "PatientName"),
        patient_id=_text(dataset, "PatientID"),
        accession_number=_text(dataset, "AccessionNumber"),
        study_date=_text(dataset, "StudyDate"),
        modality=_text(dataset, "Modality"),
        description=_text(dataset, "StudyDescription"),
    )


@dataclass
class Budget:
    """What is left of the upload's limits while its files are read."""

    files: int
    unpacked_bytes: int

    def take_file(self) -> None:
        if self.files <= 0:
            raise UploadTooLarge("files")
        self.files -= 1

    def take_bytes(self, count: int) -> None:
        if count > self.unpacked_bytes:
            raise UploadTooLarge("bytes")
        self.unpacked_bytes -= count


def _uid(dataset: Dataset, keyword: str) -> str:
    value = dataset.get(keyword)
    text = str(value).strip() if value is not None else ""
    if not text or len(text) > 64 or any(ch not in "0123456789." for ch in text):
        return ""
    return text


def _expected_pixel_bytes(dataset: Dataset) -> int | None:
    try:
        rows = int(dataset.Rows)
        columns = int(dataset.Columns)
        bits = int(dataset.BitsAllocated)
        samples = int(dataset.get("SamplesPerPixel", 1) or 1)
        frames = int(dataset.get("NumberOfFrames", 1) or 1)
    except (AttributeError, TypeError, ValueError):
        return None
    total_bits = rows * columns * samples * frames * bits
    return (total_bits + 7) // 8


def _pixels_complete(dataset: Dataset) -> bool:
    if "PixelData" not in dataset:
        return True
    pixels = dataset.PixelData
    transfer = dataset.file_meta.get("TransferSyntaxUID")
    if transfer is not None and transfer.is_encapsulated:
        try:
            fragments = list(generate_fragments(pixels))
        except (ValueError, EOFError, KeyError):
            return False
        return bool(fragments) and all(fragments)
    expected = _expected_pixel_bytes(dataset)
    return expected is None or len(pixels) >= expected


def read_instance(name: str, data: bytes) -> Instance | None:
    """The checked instance, None for a DICOMDIR (skipped), or UploadProblem naming the file."""
    if len(data) < DICOM_PREFIX_AT + 4 or data[DICOM_PREFIX_AT : DICOM_PREFIX_AT + 4] != b"DICM":
        raise UploadProblem(name, NOT_DICOM)
    try:
        dataset = pydicom.dcmread(io.BytesIO(data))
        # Reading every element now makes a file cut inside its header fail here, not later.
        for _ in dataset.iterall():
            pass
    except InvalidDicomError:
        raise UploadProblem(name, NOT_DICOM) from None
    except Exception:  # pydicom raises many kinds on damaged input; each one means the same here
        raise UploadProblem(name, DAMAGED) from None
    sop_class = str(dataset.file_meta.get("MediaStorageSOPClassUID", "") or dataset.get("SOPClassUID", ""))
    if sop_class == MEDIA_DIRECTORY_SOP_CLASS:
        return None
    study, series, sop = (
        _uid(dataset, k) for k in ("StudyInstanceUID", "SeriesInstanceUID", "SOPInstanceUID")
    )
    if not (study and series and sop):
        raise UploadProblem(name, MISSING_UIDS)
    try:
        complete = _pixels_complete(dataset)
    except Exception:
        complete = False
    if not complete:
        raise UploadProblem(name, TRUNCATED)
    return Instance(name, data, study, series, sop, sop_class, _facts(dataset))


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: Budget) -> bytes:
    """The member's bytes, read in steps so a zip bomb stops at the budget, whatever its header says."""
    chunks: list[bytes] = []
    with archive.open(info) as member:
        while True:
            chunk = member.read(_READ_STEP)
            if not chunk:
                break
            budget.take_bytes(len(chunk))
            chunks.append(chunk)
    return b"".join(chunks)


def _zip_members(name: str, data: bytes, budget: Budget) -> Iterator[tuple[str, bytes]]:
    try:
        yield from _zip_members_of(name, data, budget)
    except UploadTooLarge as exc:
        raise UploadTooLarge(exc.kind, name) from None


def _zip_members_of(name: str, data: bytes, budget: Budget) -> Iterator[tuple[str, bytes]]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [info for info in archive.infolist() if not info.is_dir()]
    except (zipfile.BadZipFile, ValueError, OSError):
        raise UploadProblem(name, "is not a readable zip file") from None
    with archive:
        for info in members:
            base = info.filename.rsplit("/", 1)[-1]
            if (
                info.filename.startswith("__MACOSX/")
                or base.startswith("._")
                or base in (".DS_Store", "Thumbs.db")
            ):
                continue
            budget.take_file()
            member_name = f"{name}/{info.filename}"
            if info.flag_bits & 0x1:
                raise UploadProblem(member_name, "is encrypted; send the zip without a password")
            try:
                yield member_name, _read_member(archive, info, budget)
            except (zipfile.BadZipFile, NotImplementedError, EOFError, OSError, ValueError):
                raise UploadProblem(member_name, "could not be unzipped (damaged zip)") from None


def read_upload(files: list[tuple[str, bytes]], budget: Budget) -> tuple[list[Instance], list[UploadProblem]]:
    """Every instance of the upload, and a problem for each file that cannot be taken.

    Raises UploadTooLarge past the budget (the upload is refused whole)."""
    instances: list[Instance] = []
    problems: list[UploadProblem] = []

    def take(name: str, data: bytes) -> None:
        try:
            found = read_instance(name, data)
        except UploadProblem as problem:
            problems.append(problem)
            return
        if found is not None:
            instances.append(found)

    for name, data in files:
        if data[:4] == ZIP_MAGIC:
            try:
                for member_name, member in _zip_members(name, data, budget):
                    if member[:4] == ZIP_MAGIC:
                        problems.append(UploadProblem(member_name, "is a zip inside a zip; unzip it first"))
                        continue
                    take(member_name, member)
            except UploadProblem as problem:
                problems.append(problem)
            continue
        try:
            budget.take_file()
        except UploadTooLarge:
            raise UploadTooLarge("files", name) from None
        take(name, data)
    return instances, problems
