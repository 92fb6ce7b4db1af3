"""DVH accuracy and speed of cara.clinical.dvh (prints figures; no database, no server).

1. Analytic phantoms: a box and a sphere under a uniform dose and a linear gradient (0.5 Gy/mm,
   in the plane and across the planes), on dose grids of 2.5 and 4 mm and contours 1 to 5 mm
   apart. Dmean, Dmax and D95 errors in % of the prescription (60 Gy; target within 1%) and the
   volume error (target within 2%).
2. The vendored breast plan (../shared/vendor/dicom-example-plan: 10 structures, a 129 x 194 x 98
   dose grid, 7 fractions) beside dicompyler-core 0.5.6 run in a separate environment (it needs
   pydicom < 3; built under .data/bench-dicompyler unless --reference-python names one), and
   beside the planning system's own DVHs stored in its RTDOSE. Differences in % of the plan's
   prescription (14 Gy, from its RTPLAN).
3. pydicom's example RT set, a toy whose RTDOSE is in another frame of reference than its RTSTRUCT
   and in relative units: what the review says of it.
4. The time of the full DVH of the vendored plan (files read, every structure), on one core:
   best of --repeat runs (target < 3 s).

    .venv/bin/python ops/bench/dvh_accuracy.py [--repeat 3] [--no-reference] [--reference-python PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

# One core: no BLAS threads (the engine itself is single-threaded numpy).
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "platform"))

import numpy as np  # noqa: E402
import pydicom  # noqa: E402

from cara.clinical.dvh import dicom_files, engine, phantoms, review  # noqa: E402

VENDOR = REPO.parent / "shared" / "vendor" / "dicom-example-plan"
RX = 60.0
GRADIENT = 0.5  # Gy/mm
REFERENCE_VENV = REPO / ".data" / "bench-dicompyler"

REFERENCE_SCRIPT = r"""
import json, sys, time
from dicompylercore import dicomparser, dvhcalc
rtss, rtdose = sys.argv[1], sys.argv[2]
out = {}
start = time.perf_counter()
for number, s in dicomparser.DicomParser(rtss).GetStructures().items():
    try:
        dvh = dvhcalc.get_dvh(rtss, rtdose, number)
    except Exception as exc:
        out[s["name"]] = {"error": type(exc).__name__}
        continue
    if not dvh.volume:
        out[s["name"]] = {"volume": 0}
        continue
    out[s["name"]] = {"volume": dvh.volume, "mean": dvh.mean, "max": dvh.max, "d95": dvh.D95.value}
print(json.dumps({"seconds": time.perf_counter() - start, "structures": out}))
"""


def _ok(value: float, target: float) -> str:
    return "ok" if abs(value) <= target else "MISS"


# ------------------------------------------------------------------ 1. phantoms


def phantom_cases() -> list[tuple[str, float, float, float, float, float]]:
    grid_lo, grid_hi = (-41.1, -52.3, -47.6), (43.0, 50.0, 55.0)
    box_lo, box_hi = (-20.3, -30.7, -25.0), (19.7, 29.3, 35.0)
    centre = (1.3, -2.1, 4.2)
    rows = []
    for grid_mm in (2.5, 4.0):
        for contour_mm in (1.0, 2.5, 3.0, 5.0):
            for dose_name, axis in (("uniform", None), ("gradient x", 0), ("gradient z", 2)):
                for shape in ("box", "sphere"):
                    if shape == "box":
                        structure = phantoms.box(box_lo, box_hi, contour_mm)
                        mid = (box_lo[axis] + box_hi[axis]) / 2 if axis is not None else 0.0
                    else:
                        structure = phantoms.sphere(centre, 30.0, contour_mm)
                        mid = centre[axis] if axis is not None else 0.0

                    def dose(
                        x: np.ndarray, y: np.ndarray, z: np.ndarray, a: int | None = axis, m: float = mid
                    ) -> np.ndarray:
                        if a is None:
                            return 0 * x + RX
                        return 50 + GRADIENT * ((x, y, z)[a] - m)

                    if shape == "box":
                        expected = (
                            phantoms.box_expected(box_lo, box_hi, RX, 0, 0)
                            if axis is None
                            else phantoms.box_expected(box_lo, box_hi, 50, GRADIENT, axis)
                        )
                    else:
                        expected = (
                            phantoms.sphere_expected(30.0, RX, 0)
                            if axis is None
                            else phantoms.sphere_expected(30.0, 50, GRADIENT)
                        )
                    grid = phantoms.dose_grid(grid_lo, grid_hi, (grid_mm,) * 3, dose)
                    dvh = engine.compute_dvh(
                        structure, grid, thickness_mm=engine.slab_thickness_mm(structure, None, grid)
                    )
                    rows.append(
                        (
                            f"{shape:6} {dose_name:10} grid {grid_mm} mm contours {contour_mm} mm",
                            100 * (dvh.dmean_gy - expected.dmean_gy) / RX,
                            100 * (dvh.dmax_gy - expected.dmax_gy) / RX,
                            100 * (dvh.dose_at_volume_percent(95) - expected.d95_gy) / RX,
                            100 * (dvh.volume_cc - expected.volume_cc) / expected.volume_cc,
                            0.0,
                        )
                    )
    return rows


def print_phantoms() -> None:
    print("1. Analytic phantoms (errors: doses in % of the 60 Gy prescription, volume in %)")
    print(f"   {'case':52} {'Dmean':>7} {'Dmax':>7} {'D95':>7} {'volume':>7}")
    rows = phantom_cases()
    for label, dmean, dmax, d95, volume, _ in rows:
        flags = " ".join(f for f in (_ok(dmean, 1), _ok(dmax, 1), _ok(d95, 1), _ok(volume, 2)) if f == "MISS")
        print(f"   {label:52} {dmean:+7.3f} {dmax:+7.3f} {d95:+7.3f} {volume:+7.3f} {flags}")
    worst = [max(abs(r[i]) for r in rows) for i in (1, 2, 3, 4)]
    print(
        f"   largest |error|: Dmean {worst[0]:.3f}% ({_ok(worst[0], 1)}), Dmax {worst[1]:.3f}%"
        f" ({_ok(worst[1], 1)}), D95 {worst[2]:.3f}% ({_ok(worst[2], 1)}), volume {worst[3]:.3f}%"
        f" ({_ok(worst[3], 2)})"
    )
    in_plane = [r for r in rows if "gradient z" not in r[0] or r[0].startswith("box")]
    print(
        "   Dmax of the sphere under a gradient across the planes: its last contour plane lies up to one"
        " spacing short of the pole, so the contoured sphere ends below the true one (a property of"
        " the contours, not of the histogram); every other case's largest Dmax error:"
        f" {max(abs(r[2]) for r in in_plane):.3f}%"
    )


# ------------------------------------------------------------------ 2. the vendored plan


def ours(rtss: Path, rtdose: Path) -> dict[str, engine.StructureDVH]:
    structures = dicom_files.read_structures(rtss.read_bytes(), rtss.name)
    grid = dicom_files.read_dose(rtdose.read_bytes(), rtdose.name)
    out = {}
    for s in structures.structures:
        if s.kind == "volume":
            thickness = engine.slab_thickness_mm(s, structures.plane_spacing_mm, grid)
            out[s.name] = engine.compute_dvh(s, grid, thickness_mm=thickness)
    return out


def reference_python(given: str | None) -> Path | None:
    if given:
        return Path(given)
    python = REFERENCE_VENV / "bin" / "python"
    if python.exists():
        return python
    print(f"   building the reference environment in {REFERENCE_VENV} (dicompyler-core 0.5.6, pydicom 2.4.4)")
    try:
        subprocess.run([sys.executable, "-m", "venv", str(REFERENCE_VENV)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "dicompyler-core==0.5.6", "pydicom==2.4.4"],
            check=True,
        )
    except (subprocess.CalledProcessError, OSError) as exc:
        print(f"   the reference could not be installed ({exc}); skipped")
        return None
    return python


def reference(python: Path, rtss: Path, rtdose: Path) -> dict[str, dict[str, float]] | None:
    done = subprocess.run(
        [str(python), "-c", REFERENCE_SCRIPT, str(rtss), str(rtdose)], capture_output=True, text=True
    )
    if done.returncode != 0:
        print(f"   dicompyler-core failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    data = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"   dicompyler-core computed the plan in {data['seconds']:.1f} s")
    return dict(data["structures"])


def planning_system(rtdose: Path, rtss: Path, rx: float) -> dict[str, dict[str, float]]:
    """The DVHs the planning system stored in the RTDOSE (doses in % of the prescription)."""
    ds = pydicom.dcmread(rtdose)
    names = {int(r.ROINumber): str(r.ROIName) for r in pydicom.dcmread(rtss).StructureSetROISequence}
    out = {}
    for item in ds.get("DVHSequence", []):
        number = int(item.DVHReferencedROISequence[0].ReferencedROINumber)
        data = np.asarray(item.DVHData, dtype=float)
        out[names.get(number, str(number))] = {
            "volume": float(data[1]),
            "mean": float(item.DVHMeanDose) * rx / 100,
            "max": float(item.DVHMaximumDose) * rx / 100,
        }
    return out


def print_plan(use_reference: bool, given_python: str | None) -> None:
    print()
    print(f"2. The vendored breast plan ({VENDOR})")
    rtss, rtdose, rtplan = VENDOR / "rtss.dcm", VENDOR / "rtdose.dcm", VENDOR / "rtplan.dcm"
    if not rtss.exists():
        print("   not found; skipped")
        return
    plan = dicom_files.read_fractionation(rtplan.read_bytes(), rtplan.name)
    rx = plan.prescription_gy or 1.0
    print(f"   prescription {rx:g} Gy in {plan.fractions} fractions (from the RTPLAN)")
    mine = ours(rtss, rtdose)
    theirs: dict[str, dict[str, float]] | None = None
    if use_reference:
        python = reference_python(given_python)
        theirs = reference(python, rtss, rtdose) if python else None
    tps = planning_system(rtdose, rtss, rx)
    header = f"   {'structure':16} {'volume cc':>10} {'Dmean':>7} {'Dmax':>7} {'D0.03cc':>7} {'D95':>7}"
    print(
        header
        + "   | vs dicompyler-core: dVol% dDmean dDmax dD95 (% of Rx)"
        + " | vs the planning system: dVol% dDmean dDmax"
    )
    worst: dict[str, float] = {"mean": 0.0, "max": 0.0, "d95": 0.0, "volume": 0.0}
    for name, dvh in mine.items():
        line = (
            f"   {name:16} {dvh.volume_cc:10.2f} {dvh.dmean_gy:7.3f} {dvh.dmax_gy:7.3f}"
            f" {dvh.dose_at_volume_cc(0.03):7.3f} {dvh.dose_at_volume_percent(95):7.3f}   |"
        )
        ref = (theirs or {}).get(name)
        if ref and ref.get("volume"):
            dv = 100 * (dvh.volume_cc - ref["volume"]) / ref["volume"]
            dm = 100 * (dvh.dmean_gy - ref["mean"]) / rx
            dx = 100 * (dvh.dmax_gy - ref["max"]) / rx
            d95 = 100 * (dvh.dose_at_volume_percent(95) - ref["d95"]) / rx
            line += f" {dv:+6.2f} {dm:+6.2f} {dx:+6.2f} {d95:+6.2f}"
            if dvh.volume_cc >= 1.0:  # a structure of a few dose voxels is compared, not counted
                for key, value in (("volume", dv), ("mean", dm), ("max", dx), ("d95", d95)):
                    worst[key] = max(worst[key], abs(value))
        else:
            line += " " * 28 if theirs else "  (no reference)          "
        planned = tps.get(name)
        if planned:
            line += (
                f"  | {100 * (dvh.volume_cc - planned['volume']) / planned['volume']:+6.2f}"
                f" {100 * (dvh.dmean_gy - planned['mean']) / rx:+6.2f}"
                f" {100 * (dvh.dmax_gy - planned['max']) / rx:+6.2f}"
            )
        print(line)
    if theirs:
        print(
            "   largest |difference| from dicompyler-core over structures of 1 cc or more: Dmean"
            f" {worst['mean']:.2f}% ({_ok(worst['mean'], 1)}),"
            f" Dmax {worst['max']:.2f}% ({_ok(worst['max'], 1)}),"
            f" D95 {worst['d95']:.2f}% ({_ok(worst['d95'], 1)}) of the prescription,"
            f" volume {worst['volume']:.2f}%"
        )
        print(
            "   (dicompyler-core reads the dose at the grid points inside each contour, at its plane; this"
            " engine samples each slab 4 times finer, so a Dmax at a steep edge differs by the gradient over"
            " half a voxel)"
        )


# ------------------------------------------------------------------ 3. pydicom's toy set


def print_toy() -> None:
    print()
    print("3. pydicom's example RT set (rt_ss, rt_dose, rt_plan)")
    from pydicom import examples

    files = {n: Path(examples.get_path(n)) for n in ("rt_ss", "rt_dose", "rt_plan")}
    structures = dicom_files.read_structures(files["rt_ss"].read_bytes(), files["rt_ss"].name)
    dose = dicom_files.read_dose(files["rt_dose"].read_bytes(), files["rt_dose"].name)
    plan = dicom_files.read_fractionation(files["rt_plan"].read_bytes(), files["rt_plan"].name)
    print(f"   structures: {[(s.name, s.kind) for s in structures.structures]}; dose units {dose.units}")
    try:
        review.review_plan(structures, dose, plan)
    except dicom_files.PlanFileError as exc:
        print(f"   refused: {exc}")


# ------------------------------------------------------------------ 4. time


def print_time(repeat: int) -> None:
    print()
    rtss, rtdose, rtplan = VENDOR / "rtss.dcm", VENDOR / "rtdose.dcm", VENDOR / "rtplan.dcm"
    if not rtss.exists():
        return
    with_affinity = hasattr(os, "sched_setaffinity")
    if with_affinity:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    times, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        review.review_plan(
            dicom_files.read_structures(rtss.read_bytes(), rtss.name),
            dicom_files.read_dose(rtdose.read_bytes(), rtdose.name),
            dicom_files.read_fractionation(rtplan.read_bytes(), rtplan.name),
        )
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    best = min(times)
    print(
        f"4. Full plan review of the vendored plan (read 3 files, 9 DVHs, EQD2, QUANTEC) on one core:"
        f" best {best:.2f} s wall, median {sorted(times)[len(times) // 2]:.2f} s of {repeat}"
        f" ({_ok(best, 3)}: target < 3 s); CPU time best {min(cpu):.2f} s"
        f" (the wall time includes waiting for the core on a shared host)"
        f"{'' if with_affinity else ' (affinity not set)'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of the full plan (best is printed)")
    parser.add_argument("--no-reference", action="store_true", help="skip dicompyler-core")
    parser.add_argument("--reference-python", help="a python with dicompyler-core 0.5.6 and pydicom < 3")
    args = parser.parse_args()
    print_phantoms()
    print_plan(not args.no_reference, args.reference_python)
    print_toy()
    print_time(max(1, args.repeat))


if __name__ == "__main__":
    main()
