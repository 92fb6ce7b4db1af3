"""EQD2 with the plan's own fractionation, the name mapping and the QUANTEC checks of a plan's DVHs."""

from __future__ import annotations

import pytest

from cara.clinical.dose_constraints import eqd2, physical_dose_for_eqd2
from cara.clinical.dvh import dicom_files, engine, phantoms, review
from cara.clinical.dvh.dicom_files import Fractionation, StructureSet

GRID = ((-40.0, -40.0, -40.0), (40.0, 40.0, 40.0), (2.0, 2.0, 2.0))


def _plan(fractions: int = 5) -> Fractionation:
    return Fractionation(
        filename="rtplan.dcm", fractions=fractions, prescription_gy=40.0, frame_of_reference=None
    )


def _set(*structures: dicom_files.Structure) -> StructureSet:
    return StructureSet("rtss.dcm", frozenset({"1.2.3"}), tuple(structures))


def _uniform(dose_gy: float) -> dicom_files.DoseGrid:
    return phantoms.dose_grid(*GRID, lambda x, y, z: 0 * x + dose_gy)


def _box(name: str) -> dicom_files.Structure:
    s = phantoms.box((-10, -10, -10), (10, 10, 10), 2.0)
    return dicom_files.Structure(s.number, name, s.kind, s.planes, s.frame_of_reference)


class TestEqd2OfADvh:
    def test_uniform_dose_converts_like_the_single_value(self) -> None:
        dvh = engine.compute_dvh(_box("Cord"), _uniform(30.0), thickness_mm=2.0)
        assert review.eqd2_mean(dvh, 10, 3.0) == pytest.approx(36.0, abs=0.01)  # 30 x 6 / 5
        assert review.eqd2_of(dvh.dmax_gy, 10, 3.0) == pytest.approx(eqd2(30.0, 10, 3.0), abs=0.01)

    def test_mean_of_a_gradient_is_voxel_wise(self) -> None:
        # Dose 20..40 Gy linear over the box: mean EQD2 = (ab*E[D] + E[D^2]/n)/(2+ab), E[D^2] = 900 + 400/12.
        grid = phantoms.dose_grid(*GRID, lambda x, y, z: 30 + x)
        dvh = engine.compute_dvh(_box("Cord"), grid, thickness_mm=2.0)
        expected = (3 * 30 + (900 + 400 / 12) / 5) / 5
        assert review.eqd2_mean(dvh, 5, 3.0) == pytest.approx(expected, rel=0.005)
        # Converting the mean dose instead would understate it.
        assert eqd2(dvh.dmean_gy, 5, 3.0) < expected - 0.5


class TestNames:
    @pytest.mark.parametrize(
        ("name", "organ"),
        [
            ("Spinal Cord", "spinal_cord"),
            ("SpinalCord", "spinal_cord"),
            ("Lt Lung", "lung"),
            ("Lungs", "lung"),
            ("Parotid_L", "parotid_single"),
            ("Heart", "heart"),
            ("Esophagus", "oesophagus"),
            ("Rectum", "rectum"),
            ("PTV_60", None),
            ("Cord PRV", None),
            ("Tumor Bed", None),
            ("BODY", None),
            ("Breast", None),
        ],
    )
    def test_defaults(self, name: str, organ: str | None) -> None:
        assert review.default_organ(name) == organ

    def test_plan_correction_wins_over_hospital_names_over_defaults(self) -> None:
        table = review.load_table()
        assert review.choose_organ("Heart", {}, {}, table) == review.OrganChoice("heart", "default")
        saved = {"heart": "heart_pericardium"}
        assert review.choose_organ("HEART", {}, saved, table) == review.OrganChoice(
            "heart_pericardium", "hospital"
        )
        assert review.choose_organ("HEART", {"HEART": None}, saved, table) == review.OrganChoice(None, "plan")
        assert review.name_key("  Spinal_Cord-01 ") == "spinal cord 01"


class TestChecks:
    def test_fractionation_decides_pass_or_fail(self) -> None:
        structures = _set(_box("Spinal Cord"))
        # 40 Gy in 20 fractions is 40 Gy EQD2: within 50 Gy. In 5 fractions, 88 Gy EQD2: over.
        ok = review.review_plan(structures, _uniform(40.0), _plan(20))
        over = review.review_plan(structures, _uniform(40.0), _plan(5))
        assert [(c.metric, c.status) for c in ok.checks] == [("Dmax", "pass")]
        assert [(c.metric, c.status) for c in over.checks] == [("Dmax", "fail")]
        assert over.checks[0].eqd2_gy == pytest.approx(88.0, abs=0.05)
        out = over.as_dict()
        assert out["checks"][0]["source"]["citation"].startswith("Marks LB")
        assert out["checks"][0]["source"]["row"].startswith("Spinal cord | Dmax")
        assert out["fractions"] == 5 and out["fractionsSource"] == "rtplan.dcm"
        assert out["summary"] == {"pass": 0, "fail": 1, "notAssessable": 0}

    def test_entered_fractions_and_alpha_beta(self) -> None:
        structures = _set(_box("Spinal Cord"))
        result = review.review_plan(
            structures, _uniform(40.0), _plan(5), fractions=10, alpha_beta={"spinal_cord": 2.0}
        )
        assert result.fractions == 10 and result.as_dict()["fractionsSource"] == "entered"
        assert result.checks[0].eqd2_gy == pytest.approx(eqd2(40.0, 10, 2.0), abs=0.05)
        assert result.checks[0].alpha_beta_gy == 2.0

    def test_volume_metric_is_read_at_the_eqd2_threshold(self) -> None:
        # Heart V25 < 10%: in 5 fractions read at the physical dose whose EQD2 is 25 Gy.
        grid = phantoms.dose_grid(*GRID, lambda x, y, z: 20 + 0.5 * x)  # 15..25 Gy over the box
        result = review.review_plan(_set(_box("Heart")), grid, _plan(5))
        (check,) = result.checks
        threshold = physical_dose_for_eqd2(25, 5, 3.0)
        assert check.read_at_gy == pytest.approx(threshold)
        assert check.value == pytest.approx(100 * (25 - threshold) / 10, abs=1.5)
        assert check.status == "fail"

    def test_mapping_corrected_to_no_organ_drops_the_check(self) -> None:
        result = review.review_plan(
            _set(_box("Heart")), _uniform(10.0), _plan(), plan_mapping={"Heart": None}
        )
        assert result.checks == []
        assert result.structures[0]["mappingSource"] == "plan"

    def test_unknown_organ_and_alpha_beta_out_of_range_are_refused(self) -> None:
        with pytest.raises(ValueError, match="not a QUANTEC organ"):
            review.review_plan(_set(_box("Heart")), _uniform(10.0), _plan(), plan_mapping={"Heart": "spleen"})
        with pytest.raises(ValueError, match=r"between 0\.5 and 20"):
            review.review_plan(_set(_box("Heart")), _uniform(10.0), _plan(), alpha_beta={"heart": 40.0})

    def test_one_lung_is_checked_with_a_caveat(self) -> None:
        result = review.review_plan(_set(_box("Lt Lung")), _uniform(10.0), _plan())
        assert {c.metric for c in result.checks} == {"V20", "Dmean"}
        assert all("both lungs" in c.notes[0] for c in result.checks)
