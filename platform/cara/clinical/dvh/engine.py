"""Cumulative dose-volume histograms from closed planar contours and an axial dose grid.

The geometry, per structure:

- Each contour plane stands for a slab of the structure, as thick as the
  spacing between its planes (the CT's slice spacing), centred on the plane.
  Every polygon of a plane is pooled and filled with the even-odd rule, so an
  inner contour is a hole, as RTSTRUCT draws them.
- The slab is sampled on a grid finer than the dose grid: in the plane, at
  most half the dose grid's spacing and `MAX_SAMPLE_MM` (finer for a small structure, so that it is
  at least `MIN_SAMPLES_ACROSS` samples across, plane by plane); across the slab, at sub-planes
  no more than `MAX_SUBPLANE_MM` apart. A sample is inside when its centre is
  inside the polygon (a scanline fill, exact for any polygon).
- The dose at each sample is interpolated trilinearly from the grid (linear
  between the two dose planes around the sub-plane, bilinear in the plane), so
  a linear dose is reproduced exactly. Dose values are the stored integers
  times DoseGridScaling.
- Samples outside the dose grid have no known dose: they are left out of the
  histogram and reported as `outside_cc`.

Each sample adds its volume to a differential histogram of fine bins
(`BIN_GY`); the cumulative DVH and every metric (Dmean from the samples
themselves, Dmax, Dx%, Dxcc, Vx Gy) are read from it, interpolating linearly
within a bin.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from cara.clinical.dvh.dicom_files import DoseGrid, Structure

BIN_GY = 0.01
MAX_SUBPLANE_MM = 0.5
MAX_SAMPLE_MM = 1.0
MIN_SAMPLES_ACROSS = 40
MIN_SAMPLE_MM = 0.2
D_SMALL_CC = 0.03  # the near-maximum dose, D0.03cc


@dataclass(frozen=True)
class StructureDVH:
    number: int
    name: str
    volume_cc: float  # the contoured volume with a known dose
    outside_cc: float  # contoured volume outside the dose grid
    dmin_gy: float
    dmax_gy: float
    dmean_gy: float
    hist_cc: np.ndarray  # differential: cc per bin [i * bin_gy, (i + 1) * bin_gy)
    bin_gy: float = BIN_GY

    @property
    def total_cc(self) -> float:
        return self.volume_cc + self.outside_cc

    def cumulative_cc(self) -> np.ndarray:
        """Volume receiving at least each bin edge's dose (len(hist) + 1 values)."""
        cum = np.concatenate([np.cumsum(self.hist_cc[::-1])[::-1], [0.0]])
        return np.asarray(cum, dtype=np.float64)

    def volume_at_dose_cc(self, dose_gy: float) -> float:
        """Vx: the volume (cc) receiving at least `dose_gy`."""
        if self.volume_cc <= 0:
            return 0.0
        if dose_gy <= self.dmin_gy:
            return self.volume_cc
        if dose_gy > self.dmax_gy:
            return 0.0
        cum = self.cumulative_cc()
        edges = np.arange(len(cum)) * self.bin_gy
        return float(np.interp(dose_gy, edges, cum))

    def volume_at_dose_percent(self, dose_gy: float) -> float:
        return 100.0 * self.volume_at_dose_cc(dose_gy) / self.volume_cc if self.volume_cc > 0 else 0.0

    def dose_at_volume_cc(self, volume_cc: float) -> float:
        """Dxcc: the highest dose that at least `volume_cc` of the structure receives."""
        if self.volume_cc <= 0:
            return 0.0
        if volume_cc >= self.volume_cc:
            return self.dmin_gy
        if volume_cc <= 0:
            return self.dmax_gy
        cum = self.cumulative_cc()
        # cum is non-increasing; the first edge where it drops below the volume bounds the answer.
        below = int(np.argmax(cum < volume_cc))
        i = max(below - 1, 0)
        hi, lo = cum[i], cum[i + 1]
        frac = (hi - volume_cc) / (hi - lo) if hi > lo else 0.0
        dose = (i + frac) * self.bin_gy
        return float(min(max(dose, self.dmin_gy), self.dmax_gy))

    def dose_at_volume_percent(self, percent: float) -> float:
        """Dx%: the highest dose that at least `percent` % of the structure receives."""
        return self.dose_at_volume_cc(self.volume_cc * percent / 100.0)

    def curve(self, points: int = 101) -> list[tuple[float, float]]:
        """(dose Gy, volume %) points of the cumulative DVH from 0 to Dmax, for a chart."""
        if self.volume_cc <= 0:
            return []
        doses = np.linspace(0.0, self.dmax_gy, points)
        return [(round(float(d), 3), round(self.volume_at_dose_percent(float(d)), 3)) for d in doses]


@dataclass
class _Accumulator:
    nbins: int
    bin_gy: float

    def __post_init__(self) -> None:
        self.hist = np.zeros(self.nbins, dtype=np.float64)
        self.dose_sum = 0.0
        self.volume = 0.0
        self.outside = 0.0
        self.dmax = -math.inf
        self.dmin = math.inf

    def add(self, dose: np.ndarray, sample_mm3: float) -> None:
        if dose.size == 0:
            return
        bins = np.minimum((dose / self.bin_gy).astype(np.int64), self.nbins - 1)
        np.maximum(bins, 0, out=bins)
        self.hist += np.bincount(bins, minlength=self.nbins) * (sample_mm3 / 1000.0)
        self.dose_sum += float(dose.sum(dtype=np.float64)) * sample_mm3
        self.volume += dose.size * sample_mm3
        self.dmax = max(self.dmax, float(dose.max()))
        self.dmin = min(self.dmin, float(dose.min()))


def slab_thickness_mm(structure: Structure, set_spacing_mm: float | None, grid: DoseGrid) -> float:
    """The structure's contour spacing: its own (median gap), else the set's, else the dose planes'."""
    zs = sorted(structure.planes)
    gaps = [b - a for a, b in itertools.pairwise(zs) if b - a > 1e-3]
    if gaps:
        return float(np.median(gaps))
    if set_spacing_mm:
        return set_spacing_mm
    if len(grid.z) > 1:
        return float(np.median(np.diff(grid.z)))
    return 1.0


def compute_dvh(
    structure: Structure,
    grid: DoseGrid,
    *,
    thickness_mm: float,
    sample_mm: float | None = None,
    subplane_mm: float = MAX_SUBPLANE_MM,
    bin_gy: float = BIN_GY,
) -> StructureDVH:
    """The cumulative DVH of one structure with closed planar contours."""
    nbins = max(math.ceil(grid.max_gy / bin_gy) + 2, 2)
    acc = _Accumulator(nbins, bin_gy)
    dx = float(grid.x[1] - grid.x[0]) if len(grid.x) > 1 else 1.0
    dy = float(grid.y[1] - grid.y[0]) if len(grid.y) > 1 else 1.0
    grid_mm = min(dx, dy)
    n_sub = max(1, math.ceil(thickness_mm / subplane_mm - 1e-9))
    sub_offsets = (np.arange(n_sub) + 0.5) / n_sub * thickness_mm - thickness_mm / 2
    for z, polygons in sorted(structure.planes.items()):
        step = sample_mm or _sample_spacing(polygons, grid_mm)
        xs, ys, inside = _rasterise(polygons, step)
        if not inside.any():
            continue
        sx = float(xs[1] - xs[0]) if len(xs) > 1 else step
        sy = float(ys[1] - ys[0]) if len(ys) > 1 else step
        rows, cols = np.nonzero(inside)
        px, py = xs[cols], ys[rows]
        sample_mm3 = sx * sy * thickness_mm / n_sub
        corners, w = _bilinear_weights(px, py, grid)
        for dz in sub_offsets:
            plane = _dose_plane(grid, z + float(dz))
            if plane is None:
                acc.outside += rows.size * sample_mm3
                continue
            acc.outside += (rows.size - corners[0].size) * sample_mm3
            if corners[0].size == 0:
                continue
            flat = plane.ravel()
            dose = (
                flat[corners[0]] * w[0]
                + flat[corners[1]] * w[1]
                + flat[corners[2]] * w[2]
                + flat[corners[3]] * w[3]
            )
            acc.add(dose, sample_mm3)
    volume_cc = acc.volume / 1000.0
    return StructureDVH(
        number=structure.number,
        name=structure.name,
        volume_cc=volume_cc,
        outside_cc=acc.outside / 1000.0,
        dmin_gy=acc.dmin if acc.volume else 0.0,
        dmax_gy=acc.dmax if acc.volume else 0.0,
        dmean_gy=acc.dose_sum / acc.volume if acc.volume else 0.0,
        hist_cc=acc.hist,
        bin_gy=bin_gy,
    )


def _sample_spacing(polygons: list[np.ndarray], grid_mm: float) -> float:
    """Half the dose grid's spacing (at most MAX_SAMPLE_MM); finer on a plane less than
    MIN_SAMPLES_ACROSS samples across."""
    pts = np.concatenate(polygons)
    extent = float(max(np.ptp(pts[:, 0]), np.ptp(pts[:, 1])))
    return float(min(grid_mm / 2, MAX_SAMPLE_MM, max(extent / MIN_SAMPLES_ACROSS, MIN_SAMPLE_MM)))


def _rasterise(polygons: list[np.ndarray], step: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample centres over the polygons' bounding box and which of them are inside (even-odd)."""
    pts = np.concatenate(polygons)
    xmin, ymin = pts.min(axis=0)
    xmax, ymax = pts.max(axis=0)
    nx = max(1, math.ceil((xmax - xmin) / step))
    ny = max(1, math.ceil((ymax - ymin) / step))
    sx = (xmax - xmin) / nx if xmax > xmin else step
    sy = (ymax - ymin) / ny if ymax > ymin else step
    xs = xmin + (np.arange(nx) + 0.5) * sx
    ys = ymin + (np.arange(ny) + 0.5) * sy
    # Every edge of every polygon of the plane (closed: last point back to the first).
    starts = np.concatenate(polygons)
    ends = np.concatenate([np.roll(p, -1, axis=0) for p in polygons])
    x1, y1, x2, y2 = starts[:, 0], starts[:, 1], ends[:, 0], ends[:, 1]
    yy = ys[:, None]
    crosses = (y1[None, :] <= yy) != (y2[None, :] <= yy)
    with np.errstate(divide="ignore", invalid="ignore"):
        xc = x1[None, :] + (yy - y1[None, :]) * ((x2 - x1) / (y2 - y1))[None, :]
    xc = np.where(crosses, xc, np.inf)
    xc.sort(axis=1)
    counts = crosses.sum(axis=1)
    width = int(counts.max()) if counts.size else 0
    inside = np.zeros((ny, nx), dtype=bool)
    if width == 0:
        return xs, ys, inside
    xc = xc[:, :width]
    rank = np.arange(width)[None, :]
    valid = rank < counts[:, None]
    # The first sample column whose centre is at or right of each crossing.
    col = np.clip(np.ceil((xc - xs[0]) / sx - 1e-9), 0, nx).astype(np.int64)
    sign = np.where(rank % 2 == 0, 1, -1)
    diff = np.zeros((ny, nx + 1), dtype=np.int32)
    r_idx = np.broadcast_to(np.arange(ny)[:, None], xc.shape)[valid]
    np.add.at(diff, (r_idx, col[valid]), np.broadcast_to(sign, xc.shape)[valid])
    inside = np.cumsum(diff[:, :nx], axis=1) > 0
    return xs, ys, inside


def _bilinear_weights(
    px: np.ndarray, py: np.ndarray, grid: DoseGrid
) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """For the points of a plane on the dose grid: the flat indices of their four corners, and weights."""
    nx, ny = len(grid.x), len(grid.y)
    fx = _fractional_index(px, grid.x)
    fy = _fractional_index(py, grid.y)
    ok = (fx >= 0) & (fx <= nx - 1) & (fy >= 0) & (fy <= ny - 1)
    fx, fy = fx[ok], fy[ok]
    i0 = np.minimum(np.floor(fx).astype(np.int64), max(nx - 2, 0))
    j0 = np.minimum(np.floor(fy).astype(np.int64), max(ny - 2, 0))
    tx = (fx - i0).astype(np.float32)
    ty = (fy - j0).astype(np.float32)
    i1 = np.minimum(i0 + 1, nx - 1)
    j1 = np.minimum(j0 + 1, ny - 1)
    corners = (j0 * nx + i0, j0 * nx + i1, j1 * nx + i0, j1 * nx + i1)
    weights = ((1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty)
    return corners, weights


def _fractional_index(values: np.ndarray, axis: np.ndarray) -> np.ndarray:
    if len(axis) == 1:
        return np.asarray(np.where(np.abs(values - axis[0]) < 1e-6, 0.0, -1.0))
    step = (axis[-1] - axis[0]) / (len(axis) - 1)
    f = (values - axis[0]) / step
    # Points a rounding error beyond the edge are on it.
    return np.asarray(np.where(np.abs(f - np.round(f)) < 1e-6, np.round(f), f))


def _dose_plane(grid: DoseGrid, z: float) -> np.ndarray | None:
    """The dose plane at z, linear between the two dose planes around it; None outside the grid."""
    zs = grid.z
    tol = 1e-3
    if z < zs[0] - tol or z > zs[-1] + tol:
        return None
    planes: np.ndarray = grid.dose
    if len(zs) == 1:
        return np.asarray(planes[0])
    k = int(np.clip(np.searchsorted(zs, z, side="right") - 1, 0, len(zs) - 2))
    t = float((z - zs[k]) / (zs[k + 1] - zs[k]))
    t = min(max(t, 0.0), 1.0)
    if t <= 1e-6:
        return np.asarray(planes[k])
    if t >= 1 - 1e-6:
        return np.asarray(planes[k + 1])
    return np.asarray(planes[k] * np.float32(1 - t) + planes[k + 1] * np.float32(t))
