"""A plan's DVHs in EQD2, checked against QUANTEC organ by organ (deterministic; no model involved).

- Fractionation is the plan's own: the number of fractions from RTPLAN (or a
  number the physicist gives), never an assumed 2 Gy.
- EQD2 is converted voxel by voxel (bin by bin of the differential DVH):
  exact for Dmax, Dx% and Dxcc (EQD2 is monotonic in dose) and for Dmean
  (the mean of the converted doses). A volume metric (V20) is read at the
  physical dose whose EQD2 is its threshold (`physical_dose_for_eqd2`).
- A structure is checked against the organ its name maps to: the physicist's
  correction for this plan first, then the hospital's saved names, then the
  defaults (the QUANTEC table's aliases, laterality words left out; names of
  targets, PRVs and helper structures never map).
- Alpha/beta per organ: the table's default (3 Gy for late effects, its
  note cites Marks et al. 2010), or the value the physicist sets.
- Each check is pass, fail or not assessable (no contours, a point, no
  volume, or more than `MAX_OUTSIDE_FRACTION` of the structure outside the
  dose grid), with the table's citation and row.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from cara.clinical.dose_constraints import (
    STANDARD_DOSE_PER_FRACTION_GY,
    ConstraintRow,
    ConstraintTable,
    load_table,
    physical_dose_for_eqd2,
)
from cara.clinical.dvh.dicom_files import (
    DoseGrid,
    Fractionation,
    PlanFileError,
    StructureSet,
    check_frames_of_reference,
)
from cara.clinical.dvh.engine import StructureDVH, compute_dvh, slab_thickness_mm

MAX_OUTSIDE_FRACTION = 0.02
MAX_FRACTIONS = 100
REPORTED_PERCENTS = (98, 95, 50, 2)
REPORTED_CC = (0.03, 1.0, 2.0)
REPORTED_V_GY = (5, 10, 20, 30)
_NEVER_MAP = {
    "ptv", "ctv", "gtv", "itv", "prv", "tumor", "tumour", "boost", "bed", "block", "body", "external",
    "skin", "ring", "opt", "avoid", "dose", "iso", "isocenter", "isocentre", "marker", "couch", "scar",
    "nodes", "node",
}  # fmt: skip
_LATERALITY = {"l", "r", "lt", "rt", "left", "right", "ipsi", "contra", "ipsilateral", "contralateral"}
_SINGLE_SIDE_OF_PAIR = {
    "lung": "QUANTEC's lung limits are for both lungs minus the GTV; this structure is one lung."
}
ALPHA_BETA_RANGE = (0.5, 20.0)
# A dose grid summed over the whole plan (or several; an unset type is taken as the plan's). One
# beam's, one fraction's or a control point's dose would be checked against whole-course limits.
WHOLE_PLAN_SUMMATIONS = {"PLAN", "MULTI_PLAN", ""}


@dataclass(frozen=True)
class OrganChoice:
    organ_key: str | None
    source: str  # "plan" (the physicist's correction), "hospital" (saved names), "default", "none"


@dataclass(frozen=True)
class Check:
    structure: str
    organ: str
    organ_key: str
    metric: str
    status: str  # "pass", "fail", "not assessable"
    limit: str
    endpoint: str
    alpha_beta_gy: float
    value: float | None = None  # physical: Gy, % or cc
    unit: str = "Gy"
    eqd2_gy: float | None = None
    read_at_gy: float | None = None  # a volume metric's physical dose level
    reason: str | None = None
    notes: tuple[str, ...] = ()
    source_row: str = ""

    def as_dict(self, citation: str, table: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "structure": self.structure,
            "organ": self.organ,
            "organKey": self.organ_key,
            "metric": self.metric,
            "status": self.status,
            "limit": self.limit,
            "endpoint": self.endpoint,
            "alphaBetaGy": self.alpha_beta_gy,
            "unit": self.unit,
            "value": _round(self.value),
            "eqd2Gy": _round(self.eqd2_gy),
            "readAtGy": _round(self.read_at_gy),
            "reason": self.reason,
            "notes": list(self.notes),
            "source": {"citation": citation, "table": table, "row": self.source_row},
        }
        return out


@dataclass
class PlanReview:
    fractions: int
    fractions_source: str  # the RTPLAN's file name, or "entered"
    prescription_gy: float | None
    structures: list[dict[str, Any]] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    table: ConstraintTable = field(default_factory=load_table)

    def as_dict(self) -> dict[str, Any]:
        counts = {s: sum(1 for c in self.checks if c.status == s) for s in ("pass", "fail", "not assessable")}
        return {
            "fractions": self.fractions,
            "fractionsSource": self.fractions_source,
            "prescriptionGy": _round(self.prescription_gy),
            "dosePerFractionGy": _round(self.prescription_gy / self.fractions)
            if self.prescription_gy
            else None,
            "structures": self.structures,
            "checks": [c.as_dict(self.table.citation, self.table.table) for c in self.checks],
            "summary": {
                "pass": counts["pass"],
                "fail": counts["fail"],
                "notAssessable": counts["not assessable"],
            },
            "warnings": self.warnings,
            "source": {"citation": self.table.citation, "table": self.table.table, "note": self.table.note},
            "caution": "QUANTEC values are guidance for conventional fractionation, not hard thresholds;"
            " decision support, not a diagnosis.",
        }


# ------------------------------------------------------------------ names


def name_key(name: str) -> str:
    """A structure name as the hospital's saved names store it: lower case, words joined by one space."""
    return " ".join(re.findall(r"[a-z0-9]+", name.lower()))


def default_organ(name: str, table: ConstraintTable | None = None) -> str | None:
    table = table or load_table()
    words = re.findall(r"[a-z]+|\d+", name.lower())
    if not words or any(w in _NEVER_MAP for w in words):
        return None
    for candidate in (words, [w for w in words if w not in _LATERALITY]):
        key = "".join(candidate)
        organ = table._by_alias.get(key)  # the table's own alias index
        if organ is not None:
            return organ.key
    return None


def choose_organ(
    name: str,
    plan_mapping: Mapping[str, str | None],
    saved_mapping: Mapping[str, str | None],
    table: ConstraintTable,
) -> OrganChoice:
    if name in plan_mapping:
        return OrganChoice(plan_mapping[name] or None, "plan")
    key = name_key(name)
    if key in saved_mapping:
        return OrganChoice(saved_mapping[key] or None, "hospital")
    found = default_organ(name, table)
    return OrganChoice(found, "default" if found else "none")


def organ_keys(table: ConstraintTable | None = None) -> set[str]:
    return {o.key for o in (table or load_table()).organs}


# ------------------------------------------------------------------ radiobiology on a DVH


def eqd2_of(dose_gy: float, fractions: int, alpha_beta_gy: float) -> float:
    """EQD2 of a total dose delivered in equal fractions (the voxel's own dose per fraction)."""
    d = dose_gy / fractions
    return dose_gy * (d + alpha_beta_gy) / (STANDARD_DOSE_PER_FRACTION_GY + alpha_beta_gy)


def eqd2_mean(dvh: StructureDVH, fractions: int, alpha_beta_gy: float) -> float:
    """The mean of the EQD2 of every voxel, from the differential DVH (bin centres)."""
    if dvh.volume_cc <= 0:
        return 0.0
    centres = (np.arange(len(dvh.hist_cc)) + 0.5) * dvh.bin_gy
    # The mean physical dose is known exactly; the conversion's quadratic term is read from the bins.
    square = float((dvh.hist_cc * centres**2).sum() / dvh.hist_cc.sum())
    return (dvh.dmean_gy * alpha_beta_gy + square / fractions) / (
        STANDARD_DOSE_PER_FRACTION_GY + alpha_beta_gy
    )


def _physical_metric(dvh: StructureDVH, row: ConstraintRow) -> tuple[float, str | None]:
    metric = row.metric.lower().replace(" ", "")
    if metric == "dmax":
        return (
            dvh.dmax_gy,
            f"Dmax is the highest sampled dose; D0.03cc is {_number(dvh.dose_at_volume_cc(0.03))} Gy",
        )
    if metric == "dmean":
        return dvh.dmean_gy, None
    if metric == "d100":
        return dvh.dmin_gy, "D100 is the minimum dose to the whole structure"
    if metric == "d1-10cc":
        return dvh.dose_at_volume_cc(1.0), "D1-10cc checked at 1 cc, the highest dose of that range"
    if metric == "d95mean":
        return dvh.dose_at_volume_percent(95), "mean dose to 95% of the gland read as D95"
    match = re.fullmatch(r"d(\d+(?:\.\d+)?)(cc|%)?", metric)
    if match:
        amount = float(match.group(1))
        if match.group(2) == "cc":
            return dvh.dose_at_volume_cc(amount), None
        return dvh.dose_at_volume_percent(amount), None
    raise ValueError(f"unknown dose metric {row.metric}")


def check_row(
    dvh: StructureDVH,
    row: ConstraintRow,
    *,
    fractions: int,
    alpha_beta_gy: float,
    notes: tuple[str, ...] = (),
) -> Check:
    base = Check(
        structure=dvh.name,
        organ=row.organ.label,
        organ_key=row.organ.key,
        metric=row.metric,
        limit=row.limit_text,
        endpoint=row.endpoint,
        alpha_beta_gy=alpha_beta_gy,
        unit=row.unit,
        source_row=row.source_row,
        status="not assessable",
    )
    if row.is_dose:
        physical, note = _physical_metric(dvh, row)
        if row.metric.lower() == "dmean":
            converted = eqd2_mean(dvh, fractions, alpha_beta_gy)
        else:
            converted = eqd2_of(physical, fractions, alpha_beta_gy)
        return replace(
            base,
            status="pass" if row.within(converted) else "fail",
            value=physical,
            eqd2_gy=converted,
            notes=notes + ((note,) if note else ()),
        )
    threshold = physical_dose_for_eqd2(row.threshold_gy or 0.0, fractions, alpha_beta_gy)
    value = dvh.volume_at_dose_cc(threshold) if row.unit == "cc" else dvh.volume_at_dose_percent(threshold)
    return replace(
        base,
        status="pass" if row.within(value) else "fail",
        value=value,
        read_at_gy=threshold,
        notes=(
            *notes,
            f"read at {_number(threshold)} Gy physical, the EQD2 equivalent of"
            f" {_number(row.threshold_gy or 0)} Gy in {fractions} fractions",
        ),
    )


# ------------------------------------------------------------------ the whole plan


def review_plan(
    structures: StructureSet,
    dose: DoseGrid,
    plan: Fractionation | None,
    *,
    fractions: int | None = None,
    plan_mapping: Mapping[str, str | None] | None = None,
    saved_mapping: Mapping[str, str | None] | None = None,
    alpha_beta: Mapping[str, float] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> PlanReview:
    """Every structure's DVH and metrics, and the QUANTEC checks of those that map to an organ."""
    table = load_table()
    check_frames_of_reference(structures, dose, plan)
    if fractions is not None:
        if not (1 <= fractions <= MAX_FRACTIONS):
            raise ValueError(f"The number of fractions must be between 1 and {MAX_FRACTIONS}.")
        n, n_source = fractions, "entered"
    elif plan is not None:
        n, n_source = plan.fractions, plan.filename
    else:
        raise PlanFileError(
            "RTPLAN", "no plan was given, so the number of fractions is unknown; upload the RTPLAN."
        )
    known = organ_keys(table)
    for key, value in (alpha_beta or {}).items():
        if key not in known:
            raise ValueError(f"alpha/beta is set for '{key}', which is not a QUANTEC organ.")
        if not (math.isfinite(value) and ALPHA_BETA_RANGE[0] <= value <= ALPHA_BETA_RANGE[1]):
            raise ValueError(f"alpha/beta for '{key}' must be between 0.5 and 20 Gy.")
    for name, mapped in (plan_mapping or {}).items():
        if mapped and mapped not in known:
            raise ValueError(f"'{name}' is mapped to '{mapped}', which is not a QUANTEC organ.")
    review = PlanReview(
        fractions=n,
        fractions_source=n_source,
        prescription_gy=plan.prescription_gy if plan else None,
        table=table,
    )
    set_spacing = structures.plane_spacing_mm
    total = len(structures.structures)
    for index, structure in enumerate(structures.structures):
        choice = choose_organ(structure.name, plan_mapping or {}, saved_mapping or {}, table)
        organ = next((o for o in table.organs if o.key == choice.organ_key), None)
        ab = float((alpha_beta or {}).get(organ.key, organ.alpha_beta_gy)) if organ else None
        entry: dict[str, Any] = {
            "number": structure.number,
            "name": structure.name,
            "kind": structure.kind,
            "organKey": choice.organ_key,
            "organ": organ.label if organ else None,
            "mappingSource": choice.source,
            "alphaBetaGy": ab,
        }
        reason: str | None = None
        dvh: StructureDVH | None = None
        if structure.kind == "empty":
            reason = f"'{structure.name}' has no contours in {structures.filename}."
        elif structure.kind == "point":
            reason = f"'{structure.name}' is a point in {structures.filename}, not a volume."
        else:
            thickness = slab_thickness_mm(structure, set_spacing, dose)
            dvh = compute_dvh(structure, dose, thickness_mm=thickness)
            if dvh.volume_cc <= 0:
                reason = f"'{structure.name}' lies outside the dose grid of {dose.filename}."
            elif dvh.outside_cc > MAX_OUTSIDE_FRACTION * dvh.total_cc:
                share = 100 * dvh.outside_cc / dvh.total_cc
                reason = f"{share:.1f}% of '{structure.name}' lies outside the dose grid of {dose.filename}."
            entry.update(_metrics(dvh, n, ab, review.prescription_gy))
        if reason is None and dose.units != "GY":
            reason = (
                f"the dose of {dose.filename} is relative ({dose.units}), not in Gy: no limit can be checked."
            )
        if reason is None and dose.summation.upper() not in WHOLE_PLAN_SUMMATIONS:
            reason = (
                f"the dose of {dose.filename} is not the whole plan's (DoseSummationType"
                f" {dose.summation}): no limit can be checked against it."
            )
        if reason:
            entry["reason"] = reason
            if organ is None or structure.kind != "volume":
                review.warnings.append(reason)
        if organ is not None and ab is not None:
            notes = (_SINGLE_SIDE_OF_PAIR[organ.key],) if _one_side(structure.name, organ.key) else ()
            for row in (r for r in table.rows if r.organ == organ):
                if reason or dvh is None:
                    review.checks.append(
                        Check(
                            structure=structure.name,
                            organ=organ.label,
                            organ_key=organ.key,
                            metric=row.metric,
                            status="not assessable",
                            limit=row.limit_text,
                            endpoint=row.endpoint,
                            alpha_beta_gy=ab,
                            unit=row.unit,
                            reason=reason,
                            source_row=row.source_row,
                        )
                    )
                else:
                    review.checks.append(check_row(dvh, row, fractions=n, alpha_beta_gy=ab, notes=notes))
        review.structures.append(entry)
        if progress:
            progress(index + 1, total)
    return review


def _one_side(name: str, organ_key: str) -> bool:
    words = set(re.findall(r"[a-z]+", name.lower()))
    return organ_key in _SINGLE_SIDE_OF_PAIR and bool(words & _LATERALITY)


def _metrics(
    dvh: StructureDVH, fractions: int, ab: float | None, prescription: float | None
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "volumeCc": _round(dvh.volume_cc),
        "outsideGridCc": _round(dvh.outside_cc),
        "dminGy": _round(dvh.dmin_gy),
        "dmaxGy": _round(dvh.dmax_gy),
        "dmeanGy": _round(dvh.dmean_gy),
        "dPercent": {str(p): _round(dvh.dose_at_volume_percent(p)) for p in REPORTED_PERCENTS},
        "dCc": {_number(v): _round(dvh.dose_at_volume_cc(v)) for v in REPORTED_CC},
        "vGy": {str(g): _round(dvh.volume_at_dose_percent(g)) for g in REPORTED_V_GY},
        "curve": dvh.curve(),
    }
    if prescription:
        out["vPrescriptionPercent"] = {
            str(p): _round(dvh.volume_at_dose_percent(prescription * p / 100)) for p in (95, 100, 107)
        }
    if ab is not None:
        out["eqd2"] = {
            "dmeanGy": _round(eqd2_mean(dvh, fractions, ab)),
            "dmaxGy": _round(eqd2_of(dvh.dmax_gy, fractions, ab)),
        }
    return out


def _round(value: float | None, places: int = 3) -> float | None:
    return None if value is None else round(float(value), places)


def _number(value: float) -> str:
    rounded = round(value, 2)
    return str(int(rounded)) if rounded == int(rounded) else f"{rounded:g}"
