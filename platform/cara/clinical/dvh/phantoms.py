"""Analytic phantoms whose DVH is known exactly: a box and a sphere under a uniform or linear dose.

Used by the tests and by `ops/bench/dvh_accuracy.py` to measure the engine's
error. A structure is contoured as a planning system would: one polygon per
plane, planes `contour_mm` apart (the box's planes at the centres of slabs that
tile it; the sphere's on planes through its centre, like CT slices); the dose
is sampled on a grid of its own spacing and origin, not aligned with them.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pydicom.uid
from pydicom.dataset import Dataset

from cara.clinical.dvh.dicom_files import DoseGrid, Structure

DoseFunction = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Expected:
    volume_cc: float
    dmean_gy: float
    dmax_gy: float
    d95_gy: float


def dose_grid(
    lo: tuple[float, float, float],
    hi: tuple[float, float, float],
    spacing: tuple[float, float, float],
    dose: DoseFunction,
    name: str = "phantom-dose",
) -> DoseGrid:
    axes = [np.arange(a, b + s / 2, s) for a, b, s in zip(lo, hi, spacing, strict=True)]
    zz, yy, xx = np.meshgrid(axes[2], axes[1], axes[0], indexing="ij")
    values = np.asarray(dose(xx, yy, zz), dtype=np.float32)
    return DoseGrid(
        filename=name,
        dose=np.ascontiguousarray(values),
        x=axes[0],
        y=axes[1],
        z=axes[2],
        frame_of_reference="1.2.3",
        summation="PLAN",
    )


def box(
    lo: tuple[float, float, float], hi: tuple[float, float, float], contour_mm: float, name: str = "box"
) -> Structure:
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    slabs = round((z1 - z0) / contour_mm)
    if abs(slabs * contour_mm - (z1 - z0)) > 1e-6:
        raise ValueError("the box's height must be a whole number of contour spacings")
    square = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
    planes = {round(z0 + (k + 0.5) * contour_mm, 4): [square] for k in range(slabs)}
    return Structure(1, name, "volume", planes, "1.2.3")


def sphere(
    centre: tuple[float, float, float],
    radius: float,
    contour_mm: float,
    points: int = 360,
    name: str = "sphere",
) -> Structure:
    cx, cy, cz = centre
    planes: dict[float, list[np.ndarray]] = {}
    k_max = math.floor(radius / contour_mm)
    angles = np.linspace(0, 2 * math.pi, points, endpoint=False)
    # A polygon whose area equals its circle's (vertices slightly outside it).
    stretch = math.sqrt((2 * math.pi / points) / math.sin(2 * math.pi / points))
    for k in range(-k_max, k_max + 1):
        dz = k * contour_mm
        r = math.sqrt(max(radius**2 - dz**2, 0.0))
        if r <= 0:
            continue
        ring = np.column_stack([cx + r * stretch * np.cos(angles), cy + r * stretch * np.sin(angles)])
        planes[round(cz + dz, 4)] = [ring]
    return Structure(2, name, "volume", planes, "1.2.3")


def box_expected(
    lo: tuple[float, float, float], hi: tuple[float, float, float], base: float, gradient: float, axis: int
) -> Expected:
    """Dose `base + gradient * (u - centre)` along `axis` (0 x, 1 y, 2 z), centre of the box."""
    size = [b - a for a, b in zip(lo, hi, strict=True)]
    half = gradient * size[axis] / 2
    lo_d, hi_d = base - abs(half), base + abs(half)
    return Expected(
        volume_cc=size[0] * size[1] * size[2] / 1000,
        dmean_gy=base,
        dmax_gy=hi_d,
        d95_gy=lo_d + 0.05 * (hi_d - lo_d),
    )


def sphere_expected(radius: float, base: float, gradient: float) -> Expected:
    """Dose `base + gradient * (u - centre)` along one axis over a sphere."""
    # The 5% of the volume with the lowest dose is a cap of height h: h^2 (3R - h) = 0.2 R^3.
    u = 0.0
    lo, hi = 0.0, 1.0
    for _ in range(80):
        u = (lo + hi) / 2
        lo, hi = (u, hi) if u * u * (3 - u) < 0.2 else (lo, u)
    g = abs(gradient)
    return Expected(
        volume_cc=4 / 3 * math.pi * radius**3 / 1000,
        dmean_gy=base,
        dmax_gy=base + g * radius,
        d95_gy=base - g * radius + g * u * radius,
    )


# ------------------------------------------------------------------ as DICOM files


def plan_files(
    structures: list[Structure],
    grid: DoseGrid,
    *,
    fractions: int | None = 5,
    prescription_gy: float = 40.0,
    frame_of_reference: str = "1.2.826.0.1.3680043.8.498.1",
) -> dict[str, bytes]:
    """RTSTRUCT, RTDOSE and RTPLAN files of a phantom (`fractions=None`: a plan without it)."""
    from pydicom.dataset import FileMetaDataset
    from pydicom.sequence import Sequence
    from pydicom.uid import ExplicitVRLittleEndian, generate_uid

    def base(modality: str, sop_class: str) -> Dataset:
        ds = Dataset()
        meta = FileMetaDataset()
        meta.MediaStorageSOPClassUID = pydicom.uid.UID(sop_class)
        meta.MediaStorageSOPInstanceUID = generate_uid()
        meta.TransferSyntaxUID = ExplicitVRLittleEndian
        ds.file_meta = meta
        ds.SOPClassUID = sop_class
        ds.SOPInstanceUID = str(meta.MediaStorageSOPInstanceUID)
        ds.Modality = modality
        ds.PatientID = "PHANTOM"
        ds.StudyInstanceUID = "1.2.826.0.1.3680043.8.498.2"
        ds.SeriesInstanceUID = generate_uid()
        return ds

    def encode(ds: Dataset) -> bytes:
        out = io.BytesIO()
        ds.save_as(out, enforce_file_format=True)
        return out.getvalue()

    ss = base("RTSTRUCT", "1.2.840.10008.5.1.4.1.1.481.3")
    ref = Dataset()
    ref.FrameOfReferenceUID = frame_of_reference
    ss.ReferencedFrameOfReferenceSequence = Sequence([ref])
    rois, contours = [], []
    for number, structure in enumerate(structures, start=1):
        roi = Dataset()
        roi.ROINumber = number
        roi.ROIName = structure.name
        roi.ReferencedFrameOfReferenceUID = frame_of_reference
        rois.append(roi)
        item = Dataset()
        item.ReferencedROINumber = number
        items = []
        for z, polygons in structure.planes.items():
            for polygon in polygons:
                contour = Dataset()
                contour.ContourGeometricType = "CLOSED_PLANAR"
                contour.NumberOfContourPoints = len(polygon)
                xyz = np.column_stack([polygon, np.full(len(polygon), z)])
                contour.ContourData = [f"{v:.4f}" for v in xyz.ravel()]
                items.append(contour)
        item.ContourSequence = Sequence(items)
        contours.append(item)
    ss.StructureSetROISequence = Sequence(rois)
    ss.ROIContourSequence = Sequence(contours)

    rd = base("RTDOSE", "1.2.840.10008.5.1.4.1.1.481.2")
    rd.FrameOfReferenceUID = frame_of_reference
    scaling = max(grid.max_gy, 1e-6) / 65000
    pixels = np.round(grid.dose / scaling).astype(np.uint16)
    rd.Rows, rd.Columns = pixels.shape[1], pixels.shape[2]
    rd.NumberOfFrames = pixels.shape[0]
    rd.SamplesPerPixel = 1
    rd.PhotometricInterpretation = "MONOCHROME2"
    rd.BitsAllocated = rd.BitsStored = 16
    rd.HighBit = 15
    rd.PixelRepresentation = 0
    rd.PixelSpacing = [f"{grid.y[1] - grid.y[0]:.4f}", f"{grid.x[1] - grid.x[0]:.4f}"]
    rd.ImagePositionPatient = [f"{grid.x[0]:.4f}", f"{grid.y[0]:.4f}", f"{grid.z[0]:.4f}"]
    rd.ImageOrientationPatient = [1, 0, 0, 0, 1, 0]
    rd.GridFrameOffsetVector = [f"{z - grid.z[0]:.4f}" for z in grid.z]
    rd.FrameIncrementPointer = 0x3004000C
    rd.DoseUnits = "GY"
    rd.DoseType = "PHYSICAL"
    rd.DoseSummationType = "PLAN"
    rd.DoseGridScaling = f"{scaling:.10g}"
    rd.PixelData = pixels.tobytes()

    rp = base("RTPLAN", "1.2.840.10008.5.1.4.1.1.481.5")
    rp.FrameOfReferenceUID = frame_of_reference
    rp.RTPlanLabel = "Phantom"
    group = Dataset()
    group.FractionGroupNumber = 1
    if fractions is not None:
        group.NumberOfFractionsPlanned = fractions
    rp.FractionGroupSequence = Sequence([group])
    target = Dataset()
    target.DoseReferenceNumber = 1
    target.DoseReferenceStructureType = "SITE"
    target.DoseReferenceType = "TARGET"
    target.TargetPrescriptionDose = f"{prescription_gy:g}"
    rp.DoseReferenceSequence = Sequence([target])
    return {"rtstruct": encode(ss), "rtdose": encode(rd), "rtplan": encode(rp)}
