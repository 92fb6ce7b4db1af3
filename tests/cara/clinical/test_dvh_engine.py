"""The DVH engine against phantoms whose DVH is known exactly, and against a planning system's own DVHs."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pydicom
import pytest

from cara.clinical.dvh import dicom_files, engine, phantoms
from cara.clinical.dvh.dicom_files import Structure

RX = 60.0
VENDOR = Path(__file__).resolve().parents[3].parent / "shared" / "vendor" / "dicom-example-plan"
GRID_LO, GRID_HI = (-41.1, -52.3, -47.6), (43.0, 50.0, 55.0)
BOX_LO, BOX_HI = (-20.3, -30.7, -25.0), (19.7, 29.3, 35.0)


def _dvh(structure: Structure, grid: dicom_files.DoseGrid) -> engine.StructureDVH:
    return engine.compute_dvh(structure, grid, thickness_mm=engine.slab_thickness_mm(structure, None, grid))


def _pct(value: float, expected: float) -> float:
    return 100 * abs(value - expected) / RX


@pytest.mark.parametrize("grid_mm", [2.5, 4.0])
@pytest.mark.parametrize("contour_mm", [1.0, 3.0, 5.0])
def test_uniform_box_is_exact(grid_mm: float, contour_mm: float) -> None:
    grid = phantoms.dose_grid(GRID_LO, GRID_HI, (grid_mm,) * 3, lambda x, y, z: 0 * x + RX)
    dvh = _dvh(phantoms.box(BOX_LO, BOX_HI, contour_mm), grid)
    assert dvh.volume_cc == pytest.approx(40 * 60 * 60 / 1000, rel=1e-6)
    for value in (dvh.dmean_gy, dvh.dmax_gy, dvh.dose_at_volume_percent(95), dvh.dmin_gy):
        assert value == pytest.approx(RX, abs=0.02)
    assert dvh.volume_at_dose_percent(RX - 1) == pytest.approx(100)
    assert dvh.volume_at_dose_percent(RX + 1) == 0


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize(("grid_mm", "contour_mm"), [(2.5, 3.0), (4.0, 2.5), (3.0, 5.0)])
def test_linear_gradient_over_a_box(axis: int, grid_mm: float, contour_mm: float) -> None:
    centre = (BOX_LO[axis] + BOX_HI[axis]) / 2

    def dose(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
        return 50 + 0.5 * ((x, y, z)[axis] - centre)

    grid = phantoms.dose_grid(GRID_LO, GRID_HI, (grid_mm,) * 3, dose)
    dvh = _dvh(phantoms.box(BOX_LO, BOX_HI, contour_mm), grid)
    expected = phantoms.box_expected(BOX_LO, BOX_HI, 50, 0.5, axis)
    assert _pct(dvh.dmean_gy, expected.dmean_gy) < 0.05
    assert _pct(dvh.dmax_gy, expected.dmax_gy) < 1
    assert _pct(dvh.dose_at_volume_percent(95), expected.d95_gy) < 1
    assert dvh.volume_cc == pytest.approx(expected.volume_cc, rel=1e-6)
    # Half the box is above its centre's dose.
    assert dvh.volume_at_dose_percent(50) == pytest.approx(50, abs=1)


@pytest.mark.parametrize("contour_mm", [1.0, 2.5, 3.0])
def test_sphere_volume_and_gradient(contour_mm: float) -> None:
    centre = (1.3, -2.1, 4.2)
    grid = phantoms.dose_grid(GRID_LO, GRID_HI, (2.5,) * 3, lambda x, y, z: 50 + 0.5 * (x - centre[0]))
    dvh = _dvh(phantoms.sphere(centre, 30.0, contour_mm), grid)
    expected = phantoms.sphere_expected(30.0, 50, 0.5)
    assert dvh.volume_cc == pytest.approx(expected.volume_cc, rel=0.02)
    assert _pct(dvh.dmean_gy, expected.dmean_gy) < 0.1
    assert _pct(dvh.dmax_gy, expected.dmax_gy) < 1
    assert _pct(dvh.dose_at_volume_percent(95), expected.d95_gy) < 1


def test_an_inner_contour_is_a_hole() -> None:
    grid = phantoms.dose_grid((-30, -30, -12), (30, 30, 12), (2.0, 2.0, 2.0), lambda x, y, z: 0 * x + 10)
    outer = np.array([[-20, -20], [20, -20], [20, 20], [-20, 20]], dtype=float)
    inner = np.array([[-10, -10], [10, -10], [10, 10], [-10, 10]], dtype=float)
    planes = {float(z): [outer, inner] for z in (-4.0, -2.0, 0.0, 2.0, 4.0)}
    dvh = _dvh(Structure(1, "ring", "volume", planes), grid)
    assert dvh.volume_cc == pytest.approx((40 * 40 - 20 * 20) * 10 / 1000, rel=1e-6)


def test_volume_outside_the_dose_grid_is_reported_not_counted() -> None:
    grid = phantoms.dose_grid((-30, -30, -30), (0, 30, 30), (2.0, 2.0, 2.0), lambda x, y, z: 0 * x + 10)
    dvh = _dvh(phantoms.box((-20, -10, -10), (20, 10, 10), 2.0), grid)
    assert dvh.volume_cc == pytest.approx(8.0, rel=0.02)  # x from -20 to 0 of 40 x 20 x 20 mm
    assert dvh.outside_cc == pytest.approx(8.0, rel=0.02)
    assert dvh.dmean_gy == pytest.approx(10, abs=1e-3)


def test_dose_and_volume_metrics_agree() -> None:
    grid = phantoms.dose_grid(GRID_LO, GRID_HI, (2.5,) * 3, lambda x, y, z: 50 + 0.5 * (x + 0.3))
    dvh = _dvh(phantoms.box(BOX_LO, BOX_HI, 2.5), grid)
    d2cc = dvh.dose_at_volume_cc(2.0)
    assert dvh.volume_at_dose_cc(d2cc) == pytest.approx(2.0, rel=0.02)
    assert dvh.dose_at_volume_cc(0.03) <= dvh.dmax_gy
    assert dvh.dose_at_volume_percent(100) == pytest.approx(dvh.dmin_gy)
    curve = dvh.curve()
    assert curve[0] == (0.0, 100.0)
    assert all(a[1] >= b[1] for a, b in itertools.pairwise(curve))


@pytest.mark.skipif(not VENDOR.exists(), reason="the vendored breast plan is not beside the project")
def test_vendored_plan_matches_the_planning_systems_own_dvhs() -> None:
    """The RTDOSE carries the planning system's DVHs (dose in % of the 14 Gy prescription)."""
    structures = dicom_files.read_structures((VENDOR / "rtss.dcm").read_bytes(), "rtss.dcm")
    grid = dicom_files.read_dose((VENDOR / "rtdose.dcm").read_bytes(), "rtdose.dcm")
    raw = pydicom.dcmread(VENDOR / "rtdose.dcm")
    planned = {int(d.DVHReferencedROISequence[0].ReferencedROINumber): d for d in raw.DVHSequence}
    rx = 14.0
    checked = 0
    for structure in structures.structures:
        if structure.name not in ("Breast", "Heart", "Lt Lung", "Tumor Bed", "Tumor Bed Block"):
            continue
        theirs = planned[structure.number]
        mine = engine.compute_dvh(
            structure,
            grid,
            thickness_mm=engine.slab_thickness_mm(structure, structures.plane_spacing_mm, grid),
        )
        assert 100 * abs(mine.dmean_gy - float(theirs.DVHMeanDose) * rx / 100) / rx < 1, structure.name
        assert 100 * abs(mine.dmax_gy - float(theirs.DVHMaximumDose) * rx / 100) / rx < 1, structure.name
        # Planning systems differ on the first and last plane's half slab: 1 of 18 planes for the tumour bed.
        assert mine.volume_cc == pytest.approx(float(theirs.DVHData[1]), rel=0.05), structure.name
        checked += 1
    assert checked == 5
