"""The QUANTEC dose-constraint check, against values computed by hand.

EQD2 = D (d + a/b) / (2 + a/b), d = D / n. For example, 30 Gy in 10 fractions
with a/b = 3 Gy: d = 3, EQD2 = 30 x 6 / 5 = 36 Gy.
"""

from __future__ import annotations

import json
import math

import pytest

from cara.clinical import tool
from cara.clinical.dose_constraints import (
    DATA_FILE,
    ConstraintError,
    check_constraint,
    eqd2,
    load_table,
    physical_dose_for_eqd2,
)


class TestEqd2:
    @pytest.mark.parametrize(
        ("dose", "fractions", "alpha_beta", "expected"),
        [
            (30, 10, 3, 36.0),  # d = 3: 30 x 6 / 5
            (40, 5, 3, 88.0),  # d = 8: 40 x 11 / 5
            (20, 5, 2, 30.0),  # d = 4: 20 x 6 / 4
            (60, 30, 3, 60.0),  # d = 2: unchanged
            (24, 3, 3, 52.8),  # d = 8: 24 x 11 / 5
            (50, 25, 10, 50.0),  # d = 2, any a/b: unchanged
            (45, 15, 10, 48.75),  # d = 3: 45 x 13 / 12
            (8, 1, 3, 17.6),  # d = 8: 8 x 11 / 5
            (36, 12, 3, 43.2),  # d = 3: 36 x 6 / 5
        ],
    )
    def test_hand_computed(self, dose: float, fractions: int, alpha_beta: float, expected: float) -> None:
        assert eqd2(dose, fractions, alpha_beta) == pytest.approx(expected)

    @pytest.mark.parametrize(
        ("target", "fractions", "alpha_beta", "expected"),
        [
            # n d^2 + n(a/b) d - X(2 + a/b) = 0
            (20, 10, 3, 20.0),  # d^2 + 3d - 10 = 0 -> d = 2
            (20, 5, 3, 5 * (-3 + math.sqrt(89)) / 2),  # d^2 + 3d - 20 = 0 -> d = 3.2170 -> 16.085 Gy
            (50, 5, 3, 5 * (-3 + math.sqrt(209)) / 2),  # d^2 + 3d - 50 = 0 -> d = 5.7284 -> 28.642 Gy
            (60, 30, 3, 60.0),
        ],
    )
    def test_physical_dose_for_an_eqd2(
        self, target: float, fractions: int, alpha_beta: float, expected: float
    ) -> None:
        physical = physical_dose_for_eqd2(target, fractions, alpha_beta)
        assert physical == pytest.approx(expected)
        assert eqd2(physical, fractions, alpha_beta) == pytest.approx(target)

    def test_rejects_nonsense(self) -> None:
        with pytest.raises(ConstraintError):
            eqd2(30, 0, 3)
        with pytest.raises(ConstraintError):
            eqd2(30, 10, 0)


class TestCheck:
    def test_conventional_dose_within(self) -> None:
        result = check_constraint("spinal cord", "Dmax", 45)
        assert result.within_limit and result.eqd2_gy is None and result.compared_value == 45
        assert result.row.source_row == "Spinal cord | Dmax | 50 Gy | myelopathy 0.2%"
        assert any("no EQD2 conversion" in a for a in result.assumptions)

    def test_limit_itself_respects_the_comparator(self) -> None:
        assert check_constraint("spinal cord", "Dmax", 50).within_limit  # <= 50 Gy
        assert not check_constraint("brainstem", "Dmax", 54).within_limit  # < 54 Gy
        assert check_constraint("brainstem", "D1-10cc", 59).within_limit  # <= 59 Gy
        assert not check_constraint("parotids", "mean", 25).within_limit  # < 25 Gy

    def test_hypofractionated_dose_converted_before_comparing(self) -> None:
        # 40 Gy in 5 fractions to the cord: 88 Gy EQD2, far over 50 Gy although 40 < 50.
        result = check_constraint("Spinal Cord", "max", 40, fractions=5)
        assert result.eqd2_gy == pytest.approx(88.0)
        assert result.dose_per_fraction_gy == pytest.approx(8.0)
        assert not result.within_limit and result.verdict == "over limit"

    def test_conversion_can_bring_a_value_within(self) -> None:
        # 36 Gy in 20 fractions (1.8 Gy) to the oesophagus, mean: 36 x 4.8 / 5 = 34.56 -> still over 34.
        assert check_constraint("esophagus", "Dmean", 36, fractions=20).eqd2_gy == pytest.approx(34.56)
        # 35 Gy in 25 fractions (1.4 Gy): 35 x 4.4 / 5 = 30.8 -> within < 34 although 35 > 34.
        result = check_constraint("oesophagus", "mean dose", 35, fractions=25)
        assert result.eqd2_gy == pytest.approx(30.8) and result.within_limit

    def test_alpha_beta_override(self) -> None:
        # Brainstem Dmax 20 Gy in 5 fractions with a/b 2: d = 4, 20 x 6 / 4 = 30 Gy.
        result = check_constraint("brain stem", "Dmax", 20, fractions=5, alpha_beta_gy=2)
        assert result.eqd2_gy == pytest.approx(30.0) and result.alpha_beta_gy == 2
        assert not any("alpha/beta" in a for a in result.assumptions)

    def test_volume_metric_gives_the_dose_level_to_read(self) -> None:
        result = check_constraint("lungs", "V20", 28, fractions=5)
        assert result.within_limit and result.compared_value == 28
        assert result.physical_threshold_gy == pytest.approx(16.085, abs=0.001)
        assert "16.08 Gy physical" in result.summary
        assert not check_constraint("lung", "V20 Gy", 31).within_limit

    def test_volume_in_cc(self) -> None:
        assert check_constraint("small bowel", "V45", 150).within_limit
        assert not check_constraint("bowel bag", "V45", 195).within_limit

    def test_graded_lung_mean_dose(self) -> None:
        assert check_constraint("lung", "MLD", 6).risk == "symptomatic pneumonitis risk under about 5%"
        assert check_constraint("lung", "mean", 12.9).risk == "symptomatic pneumonitis risk about 5-10%"
        assert check_constraint("lung", "mean", 13).risk == "symptomatic pneumonitis risk about 10-20%"
        over = check_constraint("lung", "mean", 21)
        assert over.risk == "symptomatic pneumonitis risk about 20% or more" and not over.within_limit

    def test_ranges_check_the_stricter_end(self) -> None:
        liver = check_constraint("liver", "Dmean", 31)
        assert not liver.within_limit and "30-32 Gy" in liver.as_dict()["note"]

    @pytest.mark.parametrize(
        ("organ", "metric", "value", "fractions", "message"),
        [
            ("pancreas", "Dmax", 10, None, "No QUANTEC constraint for the organ 'pancreas'."),
            ("heart", "Dmax", 10, None, "No QUANTEC constraint for Heart Dmax. Metrics for it: V25."),
            ("lung", "V20", 130, None, "A volume percentage must be between 0 and 100."),
            ("cord", "Dmax", -1, None, "The value must not be negative."),
            ("cord", "Dmax", 30, 0, "The number of fractions must be between 1 and 100."),
            ("cord", "Dmax", math.inf, None, "The value must be a finite number."),
        ],
    )
    def test_questions_it_cannot_answer(
        self, organ: str, metric: str, value: float, fractions: int | None, message: str
    ) -> None:
        with pytest.raises(ConstraintError) as caught:
            check_constraint(organ, metric, value, fractions=fractions)
        assert str(caught.value).startswith(message)

    def test_answer_for_the_model_cites_its_source(self) -> None:
        answer = check_constraint("cord", "Dmax", 30, fractions=10).as_dict()
        assert answer["eqd2Gy"] == 36.0 and answer["withinLimit"] is True and answer["limit"] == "≤ 50 Gy"
        assert "Marks" in answer["source"]["citation"] and answer["source"]["table"] == "Table 1"
        assert "not hard thresholds" in answer["caution"]


class TestData:
    def test_every_row_of_the_clinical_brief_is_shipped(self) -> None:
        table = load_table()
        keys = {(row.organ.key, row.metric) for row in table.rows}
        assert len(keys) == len(table.rows) == 30
        assert {o.key for o in table.organs} == {row.organ.key for row in table.rows}
        assert all(row.unit in ("Gy", "%", "cc") and row.limit > 0 for row in table.rows)
        assert all(row.threshold_gy for row in table.rows if not row.is_dose)

    def test_data_file_names_its_citation(self) -> None:
        data = json.loads(DATA_FILE.read_text())
        assert "Int J Radiat Oncol Biol Phys. 2010;76(3 Suppl):S10-S19" in data["citation"]

    def test_aliases_are_unambiguous(self) -> None:
        table = load_table()
        seen: dict[str, str] = {}
        for organ in table.organs:
            for alias in organ.aliases:
                assert seen.setdefault(alias, organ.key) == organ.key, alias
                assert table.organ(alias) == organ


class TestTool:
    def test_arguments_as_a_model_sends_them(self) -> None:
        outcome = tool.run({"organ": "spinal cord", "metric": "Dmax", "value": "30", "fractions": 10.0})
        assert outcome.response["eqd2Gy"] == 36.0
        assert outcome.transcript.startswith(
            "Dose-constraint check: Spinal cord Dmax 30 Gy in 10 fractions = 36 Gy EQD2"
        )

    @pytest.mark.parametrize(
        ("args", "error"),
        [
            (None, "'organ' must be a short text."),
            ({"organ": "cord", "metric": "Dmax"}, "'value' must be a number."),
            ({"organ": "cord", "metric": "Dmax", "value": True}, "'value' must be a number."),
            (
                {"organ": "cord", "metric": "Dmax", "value": 30, "fractions": 2.5},
                "'fractions' must be a whole number.",
            ),
            ({"organ": "cord", "metric": "Dmax", "value": "nan"}, "'value' must be a finite number."),
            ({"organ": "x" * 101, "metric": "Dmax", "value": 1}, "'organ' must be a short text."),
            (
                {"organ": "cord", "metric": "Dmax", "value": 30, "alpha_beta": 50},
                "alpha/beta must be between 0.5 and 20 Gy.",
            ),
        ],
    )
    def test_bad_arguments_become_an_error_answer(self, args: dict[str, object] | None, error: str) -> None:
        outcome = tool.run(args)
        assert outcome.response == {"error": error}
        assert outcome.transcript == f"Dose-constraint check could not be done: {error}"

    def test_declaration(self) -> None:
        declaration = tool.declaration()
        assert declaration.name == "check_dose_constraint"
        assert declaration.parameters is not None and declaration.parameters.required == [
            "organ",
            "metric",
            "value",
        ]
        assert "Spinal cord" in (declaration.description or "")
