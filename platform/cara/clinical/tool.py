"""The dose-constraint check as a function the live model can call.

The model sends a `toolCall` with the arguments it heard; the relay runs
`run()` and answers with a `toolResponse`. Arguments come from a model, so
they are parsed defensively: a bad argument gives an error answer the model
can recover from (and the doctor can hear), never an exception.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from google.genai import types

from cara.clinical.dose_constraints import ConstraintError, check_constraint, load_table

FUNCTION_NAME = "check_dose_constraint"


@dataclass(frozen=True)
class ToolOutcome:
    response: dict[str, Any]  # sent to the model
    transcript: str  # one line for the consultation transcript


def declaration() -> types.FunctionDeclaration:
    table = load_table()
    organs = ", ".join(o.label for o in table.organs)
    return types.FunctionDeclaration(
        name=FUNCTION_NAME,
        description=(
            "Check a normal-tissue dose or dose-volume value of a radiotherapy plan against the QUANTEC "
            "guidance (Marks et al. 2010, Table 1), converting doses to EQD2 when a number of fractions "
            "is given. Returns whether the value is within the limit, the source row and the assumptions. "
            f"Organs: {organs}."
        ),
        parameters=types.Schema(
            type=types.Type.OBJECT,
            properties={
                "organ": types.Schema(
                    type=types.Type.STRING, description="Organ at risk, e.g. 'spinal cord'."
                ),
                "metric": types.Schema(
                    type=types.Type.STRING,
                    description=(
                        "Dmax, Dmean, D100, D1-10cc, D95mean (dose metrics, Gy) or Vx such as V20 (volume)."
                    ),
                ),
                "value": types.Schema(
                    type=types.Type.NUMBER,
                    description=(
                        "Total physical dose in Gy for dose metrics; percent (or cc for small bowel) for Vx."
                    ),
                ),
                "fractions": types.Schema(
                    type=types.Type.INTEGER,
                    description="Number of fractions of the plan; omit for conventional ~2 Gy fractions.",
                ),
                "alpha_beta": types.Schema(
                    type=types.Type.NUMBER, description="alpha/beta in Gy; omit to use 3 Gy (late effects)."
                ),
            },
            required=["organ", "metric", "value"],
        ),
    )


def run(args: dict[str, Any] | None) -> ToolOutcome:
    args = args or {}
    try:
        organ = _text(args.get("organ"), "organ")
        metric = _text(args.get("metric"), "metric")
        value = _number(args.get("value"), "value")
        fractions = _whole(args.get("fractions"), "fractions")
        alpha_beta = _optional_number(args.get("alpha_beta", args.get("alphaBeta")), "alpha_beta")
        result = check_constraint(organ, metric, value, fractions=fractions, alpha_beta_gy=alpha_beta)
    except ConstraintError as exc:
        message = str(exc)
        return ToolOutcome(
            response={"error": message}, transcript=f"Dose-constraint check could not be done: {message}"
        )
    return ToolOutcome(response=result.as_dict(), transcript=result.summary)


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 100:
        raise ConstraintError(f"'{name}' must be a short text.")
    return value.strip()


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool):
        raise ConstraintError(f"'{name}' must be a number.")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConstraintError(f"'{name}' must be a number.") from None
    if not math.isfinite(number):
        raise ConstraintError(f"'{name}' must be a finite number.")
    return number


def _optional_number(value: Any, name: str) -> float | None:
    return None if value is None else _number(value, name)


def _whole(value: Any, name: str) -> int | None:
    if value is None:
        return None
    number = _number(value, name)
    if number != int(number):
        raise ConstraintError(f"'{name}' must be a whole number.")
    return int(number)
