"""Radiotherapy dose-constraint check against QUANTEC (deterministic; no model involved).

The table (data/quantec_2010.json) is Table 1 of Marks et al. 2010, the
summary of the QUANTEC normal-tissue papers, for conventional fractionation
(about 2 Gy per fraction). Doses given for another fractionation are
converted to the equivalent dose in 2 Gy fractions before comparing:

    EQD2 = D * (d + a/b) / (2 + a/b)      D total dose, d = D / n dose per fraction

For a volume metric (V20 <= 30%) the volume cannot be converted; instead the
physical dose level whose EQD2 equals the metric's threshold over n fractions
is returned, so the clinician reads the DVH at the right dose
(n*d*(d + a/b) = X*(2 + a/b), solved for d).

Every answer names its source row, says whether the value is within the
limit, and lists the assumptions made. These are guidance values, not hard
thresholds: the answer says so.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

DATA_FILE = Path(__file__).resolve().parent / "data" / "quantec_2010.json"
STANDARD_DOSE_PER_FRACTION_GY = 2.0
MAX_FRACTIONS = 100

# Spoken or written names of the metrics, normalised by _key().
_METRIC_ALIASES = {
    "dmax": ("max", "maximum", "maxdose", "maximumdose", "pointmax", "maxpointdose"),
    "dmean": ("mean", "meandose", "averagedose", "mld", "meanlungdose"),
    "d95mean": ("meandoseto95", "meandoseto95ofgland", "meandoseto95ofthegland", "dmean95", "d95"),
    "d110cc": ("d1to10cc", "d1cc10cc"),
}


class ConstraintError(ValueError):
    """The question cannot be checked as asked; the message says why (shown to the model)."""


@dataclass(frozen=True)
class Organ:
    key: str
    label: str
    alpha_beta_gy: float
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class ConstraintRow:
    organ: Organ
    metric: str
    comparator: str  # "<" or "<="
    limit: float
    unit: str  # "Gy", "%" or "cc"
    endpoint: str
    source_row: str
    threshold_gy: float | None = None  # the dose level of a volume metric (V20 -> 20 Gy)
    note: str | None = None
    risk_bands: tuple[tuple[float | None, str], ...] = ()  # (upper bound, risk); None: no bound

    @property
    def is_dose(self) -> bool:
        return self.unit == "Gy"

    def within(self, value: float) -> bool:
        return value < self.limit if self.comparator == "<" else value <= self.limit

    @property
    def limit_text(self) -> str:
        sign = "<" if self.comparator == "<" else "≤"
        unit = "%" if self.unit == "%" else f" {self.unit}"
        return f"{sign} {_number(self.limit)}{unit}"


@dataclass(frozen=True)
class ConstraintTable:
    name: str
    citation: str
    table: str
    note: str
    organs: tuple[Organ, ...]
    rows: tuple[ConstraintRow, ...]
    _by_alias: dict[str, Organ] = field(default_factory=dict, compare=False, repr=False)

    def organ(self, name: str) -> Organ:
        found = self._by_alias.get(_key(name))
        if found is None:
            known = ", ".join(o.label for o in self.organs)
            raise ConstraintError(f"No QUANTEC constraint for the organ '{name}'. Known organs: {known}.")
        return found

    def row(self, organ: Organ, metric: str) -> ConstraintRow:
        wanted = _metric_key(metric)
        rows = [r for r in self.rows if r.organ == organ]
        for row in rows:
            if _metric_key(row.metric) == wanted:
                return row
        known = ", ".join(r.metric for r in rows)
        raise ConstraintError(f"No QUANTEC constraint for {organ.label} {metric}. Metrics for it: {known}.")


@dataclass(frozen=True)
class DoseCheck:
    """The answer: JSON for the model (`as_dict`) and one line for the transcript (`summary`)."""

    row: ConstraintRow
    table: ConstraintTable
    value: float
    compared_value: float
    within_limit: bool
    fractions: int | None
    alpha_beta_gy: float
    dose_per_fraction_gy: float | None = None
    eqd2_gy: float | None = None
    physical_threshold_gy: float | None = None
    risk: str | None = None
    assumptions: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        return "within limit" if self.within_limit else "over limit"

    @property
    def summary(self) -> str:
        row = self.row
        unit = "%" if row.unit == "%" else f" {row.unit}"
        parts = [f"Dose-constraint check: {row.organ.label} {row.metric} {_number(self.value)}{unit}"]
        if self.eqd2_gy is not None and self.fractions is not None:
            parts.append(
                f" in {self.fractions} fractions = {_number(self.eqd2_gy)} Gy EQD2"
                f" (alpha/beta {_number(self.alpha_beta_gy)} Gy)"
            )
        parts.append(f": {self.verdict} ({row.limit_text}, {row.endpoint}).")
        if self.physical_threshold_gy is not None and self.fractions is not None:
            parts.append(
                f" For {self.fractions} fractions read V at {_number(self.physical_threshold_gy)} Gy physical"
                f" (= {_number(row.threshold_gy or 0)} Gy EQD2)."
            )
        if self.risk:
            parts.append(f" Risk band: {self.risk}.")
        parts.append(f" Source: QUANTEC, Marks et al. 2010, {self.table.table}, row '{row.source_row}'.")
        return "".join(parts)

    def as_dict(self) -> dict[str, Any]:
        row = self.row
        result: dict[str, Any] = {
            "organ": row.organ.label,
            "metric": row.metric,
            "value": self.value,
            "unit": row.unit,
            "comparedValue": round(self.compared_value, 2),
            "limit": row.limit_text,
            "withinLimit": self.within_limit,
            "verdict": self.verdict,
            "endpoint": row.endpoint,
            "alphaBetaGy": self.alpha_beta_gy,
            "source": {"citation": self.table.citation, "table": self.table.table, "row": row.source_row},
            "assumptions": list(self.assumptions),
            "caution": "QUANTEC values are guidance for conventional fractionation, not hard thresholds.",
            "summary": self.summary,
        }
        if self.fractions is not None:
            result["fractions"] = self.fractions
        if self.dose_per_fraction_gy is not None:
            result["dosePerFractionGy"] = round(self.dose_per_fraction_gy, 3)
        if self.eqd2_gy is not None:
            result["eqd2Gy"] = round(self.eqd2_gy, 2)
        if self.physical_threshold_gy is not None:
            result["physicalThresholdGy"] = round(self.physical_threshold_gy, 2)
        if self.risk:
            result["riskBand"] = self.risk
        if row.note:
            result["note"] = row.note
        return result


# ------------------------------------------------------------------ radiobiology


def eqd2(total_dose_gy: float, fractions: int, alpha_beta_gy: float) -> float:
    """Equivalent dose in 2 Gy fractions (linear-quadratic model)."""
    _check_positive(alpha_beta_gy, "alpha/beta")
    if fractions < 1:
        raise ConstraintError("The number of fractions must be at least 1.")
    per_fraction = total_dose_gy / fractions
    return total_dose_gy * (per_fraction + alpha_beta_gy) / (STANDARD_DOSE_PER_FRACTION_GY + alpha_beta_gy)


def physical_dose_for_eqd2(eqd2_gy: float, fractions: int, alpha_beta_gy: float) -> float:
    """The total physical dose in `fractions` fractions whose EQD2 is `eqd2_gy`.

    Solves n*d^2 + n*(a/b)*d - X*(2 + a/b) = 0 for the dose per fraction d.
    """
    _check_positive(alpha_beta_gy, "alpha/beta")
    n = float(fractions)
    c = eqd2_gy * (STANDARD_DOSE_PER_FRACTION_GY + alpha_beta_gy)
    d = (-n * alpha_beta_gy + math.sqrt((n * alpha_beta_gy) ** 2 + 4 * n * c)) / (2 * n)
    return n * d


# ------------------------------------------------------------------ the check


def check_constraint(
    organ: str,
    metric: str,
    value: float,
    *,
    fractions: int | None = None,
    alpha_beta_gy: float | None = None,
    table: ConstraintTable | None = None,
) -> DoseCheck:
    """Compare `value` with the QUANTEC row for (organ, metric).

    `value` is a total physical dose in Gy for dose metrics (Dmax, Dmean, D100,
    ...), a percentage or cc for volume metrics (V20, V45). `fractions` is the
    number of fractions it was (or will be) delivered in; without it the value
    is taken as conventionally fractionated.
    """
    table = table or load_table()
    found = table.row(table.organ(organ), metric)
    _check_finite(value, "value")
    if value < 0:
        raise ConstraintError("The value must not be negative.")
    if found.unit == "%" and value > 100:
        raise ConstraintError("A volume percentage must be between 0 and 100.")
    if fractions is not None and not (1 <= fractions <= MAX_FRACTIONS):
        raise ConstraintError(f"The number of fractions must be between 1 and {MAX_FRACTIONS}.")
    if alpha_beta_gy is not None:
        _check_finite(alpha_beta_gy, "alpha/beta")
        if not (0.5 <= alpha_beta_gy <= 20):
            raise ConstraintError("alpha/beta must be between 0.5 and 20 Gy.")
    ab = alpha_beta_gy if alpha_beta_gy is not None else found.organ.alpha_beta_gy
    assumptions: list[str] = []
    if alpha_beta_gy is None:
        assumptions.append(f"alpha/beta {_number(ab)} Gy (late effects) for {found.organ.label}")

    if found.is_dose:
        compared, per_fraction, converted = value, None, None
        if fractions is None:
            assumptions.append(
                "conventional fractionation (about 2 Gy per fraction) assumed: no EQD2 conversion"
            )
        else:
            per_fraction = value / fractions
            converted = eqd2(value, fractions, ab)
            compared = converted
            if found.metric != "Dmax":
                assumptions.append(
                    "EQD2 of a mean or volume dose computed from its average dose per fraction"
                    " (an approximation; a voxel-wise conversion of the DVH is exact)"
                )
        risk = _risk_band(found, compared)
        return DoseCheck(
            row=found,
            table=table,
            value=value,
            compared_value=compared,
            within_limit=found.within(compared),
            fractions=fractions,
            alpha_beta_gy=ab,
            dose_per_fraction_gy=per_fraction,
            eqd2_gy=converted,
            risk=risk,
            assumptions=tuple(assumptions),
        )

    threshold = None
    if fractions is None:
        assumptions.append(
            f"the volume was read at {_number(found.threshold_gy or 0)} Gy with conventional fractionation"
        )
    elif found.threshold_gy is not None:
        threshold = physical_dose_for_eqd2(found.threshold_gy, fractions, ab)
        assumptions.append(
            f"the volume was read at {_number(threshold)} Gy physical, the EQD2 equivalent of"
            f" {_number(found.threshold_gy)} Gy in {fractions} fractions"
        )
    return DoseCheck(
        row=found,
        table=table,
        value=value,
        compared_value=value,
        within_limit=found.within(value),
        fractions=fractions,
        alpha_beta_gy=ab,
        physical_threshold_gy=threshold,
        assumptions=tuple(assumptions),
    )


def _risk_band(row: ConstraintRow, dose: float) -> str | None:
    """The band of a graded row (lung mean dose 7 / 13 / 20 Gy) that `dose` falls in."""
    for below, risk in row.risk_bands:
        if below is None or dose < below:
            return risk
    return None


# ------------------------------------------------------------------ the data


@lru_cache(maxsize=1)
def load_table(path: Path = DATA_FILE) -> ConstraintTable:
    data = json.loads(path.read_text(encoding="utf-8"))
    default_ab = float(data["default_alpha_beta_gy"])
    organs = tuple(
        Organ(
            key=o["key"],
            label=o["label"],
            alpha_beta_gy=float(o.get("alpha_beta_gy", default_ab)),
            aliases=tuple(o["aliases"]),
        )
        for o in data["organs"]
    )
    by_key = {o.key: o for o in organs}
    rows = tuple(
        ConstraintRow(
            organ=by_key[r["organ"]],
            metric=r["metric"],
            comparator=r["comparator"],
            limit=float(r["limit"]),
            unit=r["unit"],
            endpoint=r["endpoint"],
            source_row=r["source_row"],
            threshold_gy=float(r["threshold_gy"]) if "threshold_gy" in r else None,
            note=r.get("note"),
            risk_bands=tuple(
                (float(b["below"]) if "below" in b else None, b["risk"]) for b in r.get("risk_bands", [])
            ),
        )
        for r in data["rows"]
    )
    by_alias: dict[str, Organ] = {}
    for organ in organs:
        for name in (organ.key, organ.label, *organ.aliases):
            by_alias.setdefault(_key(name), organ)
    return ConstraintTable(
        name=data["name"],
        citation=data["citation"],
        table=data["table"],
        note=data["note"],
        organs=organs,
        rows=rows,
        _by_alias=by_alias,
    )


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _metric_key(metric: str) -> str:
    key = _key(metric)
    if re.fullmatch(r"v\d+gy", key):  # "V20 Gy" -> "v20"
        key = key[:-2]
    for canonical, aliases in _METRIC_ALIASES.items():
        if key == canonical or key in aliases:
            return canonical
    return key


def _check_finite(value: float, name: str) -> None:
    if not math.isfinite(value):
        raise ConstraintError(f"The {name} must be a finite number.")


def _check_positive(value: float, name: str) -> None:
    if not value > 0:
        raise ConstraintError(f"The {name} must be positive.")


def _number(value: float) -> str:
    """12 -> '12', 36.0 -> '36', 16.0849 -> '16.08'."""
    rounded = round(value, 2)
    return str(int(rounded)) if rounded == int(rounded) else f"{rounded:g}"
