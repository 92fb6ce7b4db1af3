"""Reading a plan's DICOM files: the RTSTRUCT contours, the RTDOSE grid, the RTPLAN fractionation.

Every refusal is a `PlanFileError` whose message names the file and says what
is wrong with it in words a physicist can act on (never a pydicom traceback).
"""

from __future__ import annotations

import io
import itertools
import math
import struct
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pydicom
from pydicom.dataset import Dataset
from pydicom.errors import InvalidDicomError

# The dose grid must be axial: rows along +y, columns along +x (head first or feet first).
_AXIAL = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0)
MAX_DOSE_VOXELS = 64_000_000
MAX_CONTOUR_POINTS = 2_000_000


class PlanFileError(ValueError):
    """A file of the plan cannot be used; `str()` names the file and the reason."""

    def __init__(self, filename: str, reason: str) -> None:
        super().__init__(f"{filename}: {reason}")
        self.filename = filename
        self.reason = reason


@dataclass(frozen=True)
class DoseGrid:
    """The dose in Gy on an axial grid: `dose[k, j, i]` at (x[i], y[j], z[k]), every axis ascending."""

    filename: str
    dose: np.ndarray
    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    frame_of_reference: str
    summation: str
    units: str = "GY"  # "RELATIVE": a DVH can be drawn, no constraint checked

    @property
    def max_gy(self) -> float:
        return float(self.dose.max()) if self.dose.size else 0.0


@dataclass(frozen=True)
class Structure:
    number: int
    name: str
    kind: str  # "volume" (closed planar contours), "point", "empty"
    planes: dict[float, list[np.ndarray]] = field(default_factory=dict)  # z -> [(N, 2) x, y polygons]
    frame_of_reference: str | None = None


@dataclass(frozen=True)
class StructureSet:
    filename: str
    frames_of_reference: frozenset[str]
    structures: tuple[Structure, ...]

    @property
    def plane_spacing_mm(self) -> float | None:
        """The smallest spacing between contour planes over every structure (the CT's slice spacing)."""
        gaps: list[float] = []
        for s in self.structures:
            zs = sorted(s.planes)
            gaps.extend(b - a for a, b in itertools.pairwise(zs) if b - a > 1e-3)
        return min(gaps) if gaps else None


@dataclass(frozen=True)
class Fractionation:
    filename: str
    fractions: int
    prescription_gy: float | None
    frame_of_reference: str | None
    label: str | None = None

    @property
    def dose_per_fraction_gy(self) -> float | None:
        return self.prescription_gy / self.fractions if self.prescription_gy else None


def read_dataset(data: bytes, filename: str) -> Dataset:
    """Parse bytes as DICOM (Part 10 file, or a bare data set with the DICM preamble missing)."""
    if not data:
        raise PlanFileError(filename, "the file is empty.")
    ds: Dataset
    damaged = "the file is truncated or damaged; it cannot be read as DICOM."
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydicom's value warnings quote values: not for the logs
        try:
            ds = pydicom.dcmread(io.BytesIO(data))
        except InvalidDicomError:
            # No 128-byte preamble and "DICM": a bare data set is still DICOM if it parses to one.
            ds = _bare_dataset(data, filename)
        except Exception:
            raise PlanFileError(filename, damaged) from None
        try:
            ds.get("Modality")
            ds.get("SOPClassUID")
        except Exception:
            raise PlanFileError(filename, damaged) from None
    if "Modality" not in ds and "SOPClassUID" not in ds:
        raise PlanFileError(filename, damaged if data[128:132] == b"DICM" else "this is not a DICOM file.")
    _check_complete(data, ds, filename)
    return ds


class _Truncated(Exception):
    pass


_LONG_VRS = {b"OB", b"OD", b"OF", b"OL", b"OV", b"OW", b"SQ", b"SV", b"UC", b"UN", b"UR", b"UT", b"UV"}
_UNDEFINED = 0xFFFFFFFF


def _check_complete(data: bytes, ds: Dataset, filename: str) -> None:
    """Refuse a file cut short: pydicom reads up to the end of what is there without a word.

    Walks the elements (little endian, explicit or implicit VR): every length
    must fit in the file and every sequence or item of undefined length must
    reach its delimiter.
    """
    implicit, little = ds.original_encoding
    if little is False or implicit is None:
        return  # big endian (retired) or deflated: left to pydicom
    pos = 0
    if data[128:132] == b"DICM":
        pos = 132
        while pos + 8 <= len(data) and struct.unpack_from("<H", data, pos)[0] == 0x0002:
            pos = _element_end(data, pos, explicit=True)
    try:
        _walk(data, pos, explicit=not implicit, in_item=False)
    except (_Truncated, struct.error):
        raise PlanFileError(filename, "the file is truncated: it ends in the middle of its data.") from None


def _element_end(data: bytes, pos: int, *, explicit: bool) -> int:
    if pos + 8 > len(data):
        raise _Truncated
    if explicit and data[pos + 4 : pos + 6] in _LONG_VRS:
        if pos + 12 > len(data):
            raise _Truncated
        length, header = struct.unpack_from("<I", data, pos + 8)[0], 12
    elif explicit:
        length, header = struct.unpack_from("<H", data, pos + 6)[0], 8
    else:
        length, header = struct.unpack_from("<I", data, pos + 4)[0], 8
    pos += header
    if length == _UNDEFINED:
        return _walk_sequence(data, pos, explicit=explicit)
    if pos + length > len(data):
        raise _Truncated
    return int(pos + length)


def _walk(data: bytes, pos: int, *, explicit: bool, in_item: bool) -> int:
    while pos < len(data):
        if pos + 8 > len(data):
            raise _Truncated
        group, element = struct.unpack_from("<HH", data, pos)
        if group == 0xFFFE and element == 0xE00D and in_item:
            return pos + 8
        pos = _element_end(data, pos, explicit=explicit)
    if in_item:
        raise _Truncated
    return pos


def _walk_sequence(data: bytes, pos: int, *, explicit: bool) -> int:
    while True:
        if pos + 8 > len(data):
            raise _Truncated
        group, element, length = struct.unpack_from("<HHI", data, pos)
        pos += 8
        if (group, element) == (0xFFFE, 0xE0DD):
            return pos
        if (group, element) != (0xFFFE, 0xE000):
            raise _Truncated
        if length == _UNDEFINED:
            pos = _walk(data, pos, explicit=explicit, in_item=True)
        elif pos + length > len(data):
            raise _Truncated
        else:
            pos += length


def _bare_dataset(data: bytes, filename: str) -> Dataset:
    # A data set starts with a group 0x0008 (or 0x0002) element, in either byte order.
    if len(data) < 8 or data[:2] not in (b"\x08\x00", b"\x02\x00", b"\x00\x08", b"\x00\x02"):
        raise PlanFileError(filename, "this is not a DICOM file.")
    try:
        ds = pydicom.dcmread(io.BytesIO(data), force=True)
        ds.get("Modality")
        ds.get("SOPClassUID")
    except Exception:
        raise PlanFileError(filename, "this is not a DICOM file.") from None
    return ds


def modality(ds: Dataset) -> str:
    return str(ds.get("Modality", "") or "").upper()


def _require(ds: Dataset, filename: str, wanted: str) -> None:
    found = modality(ds)
    if found != wanted:
        raise PlanFileError(filename, f"expected an {wanted} file, found modality '{found or 'none'}'.")


def _floats(value: Any, filename: str, what: str, count: int | None = None) -> list[float]:
    items = (
        value
        if isinstance(value, list | tuple) or (hasattr(value, "__iter__") and not isinstance(value, str))
        else [value]
    )
    try:
        out = [float(v) for v in items]
    except (TypeError, ValueError):
        raise PlanFileError(filename, f"{what} is not a list of numbers.") from None
    if count is not None and len(out) != count:
        raise PlanFileError(filename, f"{what} should have {count} values, it has {len(out)}.")
    if not all(math.isfinite(v) for v in out):
        raise PlanFileError(filename, f"{what} holds a value that is not a finite number.")
    return out


# ------------------------------------------------------------------ RTDOSE


def read_dose(data: bytes, filename: str) -> DoseGrid:
    ds = read_dataset(data, filename)
    _require(ds, filename, "RTDOSE")
    return dose_from_dataset(ds, filename)


def dose_from_dataset(ds: Dataset, filename: str) -> DoseGrid:
    for tag in ("PixelData", "Rows", "Columns", "PixelSpacing", "ImagePositionPatient", "DoseGridScaling"):
        if tag not in ds:
            raise PlanFileError(filename, f"the dose grid has no {tag}.")
    units = str(ds.get("DoseUnits", "GY") or "GY").upper()
    if units not in ("GY", "RELATIVE"):
        raise PlanFileError(
            filename, f"dose units are '{units}'; only GY (or RELATIVE, not checked) can be read."
        )
    orientation = _floats(
        ds.get("ImageOrientationPatient", list(_AXIAL)), filename, "ImageOrientationPatient", 6
    )
    if any(abs(a - b) > 1e-3 for a, b in zip(orientation, _AXIAL, strict=True)):
        raise PlanFileError(
            filename, "the dose grid is not axial (ImageOrientationPatient 1\\0\\0\\0\\1\\0)."
        )
    rows, cols = int(ds.Rows), int(ds.Columns)
    frames = int(ds.get("NumberOfFrames", 1) or 1)
    if rows < 1 or cols < 1 or frames < 1 or rows * cols * frames > MAX_DOSE_VOXELS:
        raise PlanFileError(filename, f"a dose grid of {cols} x {rows} x {frames} voxels cannot be used.")
    bits = int(ds.get("BitsAllocated", 16))
    expected = rows * cols * frames * bits // 8
    if ds.file_meta.get("TransferSyntaxUID", pydicom.uid.ImplicitVRLittleEndian).is_compressed:
        pass  # decoded below; an unsupported syntax is refused there
    elif len(ds.PixelData) < expected:
        raise PlanFileError(
            filename,
            f"the file is truncated: the dose grid needs {expected} bytes, it holds {len(ds.PixelData)}.",
        )
    try:
        pixels = ds.pixel_array
    except Exception:
        syntax = ds.file_meta.get("TransferSyntaxUID", "unknown")
        raise PlanFileError(
            filename, f"the dose grid cannot be decoded (transfer syntax {syntax})."
        ) from None
    pixels = np.asarray(pixels).reshape(frames, rows, cols)
    scaling = _floats(ds.DoseGridScaling, filename, "DoseGridScaling", 1)[0]
    if not scaling > 0:
        raise PlanFileError(filename, "DoseGridScaling must be positive.")
    dose = pixels.astype(np.float32) * np.float32(scaling)
    dy, dx = _floats(ds.PixelSpacing, filename, "PixelSpacing", 2)
    if not (dx > 0 and dy > 0):
        raise PlanFileError(filename, "PixelSpacing must be positive.")
    x0, y0, z0 = _floats(ds.ImagePositionPatient, filename, "ImagePositionPatient", 3)
    if frames > 1:
        if "GridFrameOffsetVector" not in ds:
            raise PlanFileError(filename, "a multi-frame dose grid needs a GridFrameOffsetVector.")
        offsets = np.array(_floats(ds.GridFrameOffsetVector, filename, "GridFrameOffsetVector", frames))
        # Relative offsets start at 0; otherwise they are absolute z positions (PS3.3 C.8.8.3.2).
        z = z0 + offsets if offsets[0] == 0 else offsets
    else:
        z = np.array([z0])
    steps = np.diff(z)
    if frames > 1 and not (np.all(steps > 0) or np.all(steps < 0)):
        raise PlanFileError(filename, "the dose planes are not in a strictly monotonic order.")
    if frames > 1 and steps[0] < 0:
        z = z[::-1]
        dose = dose[::-1]
    x = x0 + dx * np.arange(cols)
    y = y0 + dy * np.arange(rows)
    for_uid = str(ds.get("FrameOfReferenceUID", "") or "")
    if not for_uid:
        raise PlanFileError(filename, "the dose grid has no FrameOfReferenceUID.")
    return DoseGrid(
        filename=filename,
        dose=np.ascontiguousarray(dose),
        x=x.astype(np.float64),
        y=y.astype(np.float64),
        z=np.asarray(z, dtype=np.float64),
        frame_of_reference=for_uid,
        summation=str(ds.get("DoseSummationType", "") or ""),
        units=units,
    )


# ------------------------------------------------------------------ RTSTRUCT


def read_structures(data: bytes, filename: str) -> StructureSet:
    ds = read_dataset(data, filename)
    _require(ds, filename, "RTSTRUCT")
    return structures_from_dataset(ds, filename)


def structures_from_dataset(ds: Dataset, filename: str) -> StructureSet:
    if "StructureSetROISequence" not in ds:
        raise PlanFileError(filename, "the structure set has no StructureSetROISequence.")
    frames = {
        str(item.get("FrameOfReferenceUID", ""))
        for item in ds.get("ReferencedFrameOfReferenceSequence", [])
        if item.get("FrameOfReferenceUID")
    }
    contours_by_roi: dict[int, Any] = {}
    for item in ds.get("ROIContourSequence", []):
        if "ReferencedROINumber" in item:
            contours_by_roi[int(item.ReferencedROINumber)] = item
    total_points = 0
    structures: list[Structure] = []
    for roi in ds.StructureSetROISequence:
        number = int(roi.get("ROINumber", 0) or 0)
        name = str(roi.get("ROIName", "") or f"ROI {number}").strip()
        roi_frame = str(roi.get("ReferencedFrameOfReferenceUID", "") or "") or None
        if roi_frame:
            frames.add(roi_frame)
        item = contours_by_roi.get(number)
        planes: dict[float, list[np.ndarray]] = {}
        points_only = False
        for contour in item.get("ContourSequence", []) if item is not None else []:
            kind = str(contour.get("ContourGeometricType", "CLOSED_PLANAR")).upper()
            values = _contour_data(contour, filename, name)
            if values is None:
                continue
            if values.size % 3:
                raise PlanFileError(
                    filename, f"a contour of '{name}' has a number of coordinates not divisible by 3."
                )
            pts = values.reshape(-1, 3)
            total_points += len(pts)
            if total_points > MAX_CONTOUR_POINTS:
                raise PlanFileError(
                    filename, f"the structure set holds more than {MAX_CONTOUR_POINTS} contour points."
                )
            if kind == "POINT":
                points_only = True
                continue
            if kind != "CLOSED_PLANAR" or len(pts) < 3:
                continue
            if float(np.ptp(pts[:, 2])) > 0.5:
                raise PlanFileError(
                    filename, f"a contour of '{name}' is not planar (its z varies by more than 0.5 mm)."
                )
            z = round(float(pts[:, 2].mean()), 2)
            planes.setdefault(z, []).append(np.ascontiguousarray(pts[:, :2]))
        kind = "volume" if planes else ("point" if points_only else "empty")
        structures.append(Structure(number, name, kind, planes, roi_frame))
    return StructureSet(
        filename=filename, frames_of_reference=frozenset(frames), structures=tuple(structures)
    )


_CONTOUR_DATA = 0x30060050


def _contour_data(contour: Dataset, filename: str, name: str) -> np.ndarray | None:
    """A contour's coordinates. Parsed from the element's bytes when pydicom has not converted it
    yet: pydicom makes one object per number, most of a large structure set's read time."""
    if _CONTOUR_DATA not in contour:
        return None
    element = contour.get_item(_CONTOUR_DATA)
    raw = getattr(element, "value", None)
    if isinstance(raw, bytes) and getattr(element, "VR", "DS") in ("DS", None):
        try:
            values = np.array(raw.strip(b" \x00").split(b"\\")).astype(np.float64)
        except ValueError:
            raise PlanFileError(filename, f"ContourData of '{name}' is not a list of numbers.") from None
        if not np.all(np.isfinite(values)):
            raise PlanFileError(
                filename, f"ContourData of '{name}' holds a value that is not a finite number."
            )
        return values
    return np.asarray(_floats(contour.ContourData, filename, f"ContourData of '{name}'"), dtype=np.float64)


# ------------------------------------------------------------------ RTPLAN


def read_fractionation(data: bytes, filename: str) -> Fractionation:
    ds = read_dataset(data, filename)
    _require(ds, filename, "RTPLAN")
    return fractionation_from_dataset(ds, filename)


def fractionation_from_dataset(ds: Dataset, filename: str) -> Fractionation:
    groups = list(ds.get("FractionGroupSequence", []))
    if not groups:
        raise PlanFileError(
            filename, "the plan has no fraction group, so its number of fractions is unknown."
        )
    raw = groups[0].get("NumberOfFractionsPlanned")
    try:
        fractions = int(raw) if raw not in (None, "") else 0
    except (TypeError, ValueError):
        fractions = 0
    if fractions < 1:
        raise PlanFileError(
            filename, "the plan does not give its number of fractions (NumberOfFractionsPlanned)."
        )
    prescription: float | None = None
    for ref in ds.get("DoseReferenceSequence", []):
        value = ref.get("TargetPrescriptionDose")
        if value in (None, "") or str(ref.get("DoseReferenceType", "")).upper() != "TARGET":
            continue
        try:
            dose = float(value)
        except (TypeError, ValueError):
            continue
        if math.isfinite(dose) and dose > 0:
            prescription = max(prescription or 0.0, dose)
    label = str(ds.get("RTPlanLabel", "") or "") or None
    return Fractionation(
        filename=filename,
        fractions=fractions,
        prescription_gy=prescription,
        frame_of_reference=str(ds.get("FrameOfReferenceUID", "") or "") or None,
        label=label,
    )


def check_frames_of_reference(structures: StructureSet, dose: DoseGrid, plan: Fractionation | None) -> None:
    """The dose, the contours (and the plan, when it names one) must share one frame of reference."""
    if structures.frames_of_reference and dose.frame_of_reference not in structures.frames_of_reference:
        raise PlanFileError(
            dose.filename,
            f"its frame of reference ({dose.frame_of_reference}) does not match the structure set"
            f" {structures.filename} ({', '.join(sorted(structures.frames_of_reference))}): the dose and the"
            " contours are not in the same coordinates.",
        )
    if plan is not None and plan.frame_of_reference and plan.frame_of_reference != dose.frame_of_reference:
        raise PlanFileError(
            plan.filename,
            f"its frame of reference ({plan.frame_of_reference}) does not match the dose grid {dose.filename}"
            f" ({dose.frame_of_reference}).",
        )
