"""Bad plan files: each refusal names the file and says what is wrong."""

from __future__ import annotations

import io
from pathlib import Path

import pydicom
import pytest
from pydicom import examples

from cara.clinical.dvh import dicom_files, phantoms, review
from cara.clinical.dvh.dicom_files import PlanFileError


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    grid = phantoms.dose_grid((-30, -30, -30), (30, 30, 30), (3.0, 3.0, 3.0), lambda x, y, z: 20 + 0.2 * x)
    cord = phantoms.box((-5, -5, -10), (5, 5, 10), 2.0, name="Spinal Cord")
    return phantoms.plan_files([cord], grid, fractions=5)


def _edit(data: bytes, change: object) -> bytes:
    ds = pydicom.dcmread(io.BytesIO(data))
    change(ds)  # type: ignore[operator]
    out = io.BytesIO()
    ds.save_as(out)
    return out.getvalue()


def _review(files: dict[str, bytes]) -> review.PlanReview:
    return review.review_plan(
        dicom_files.read_structures(files["rtstruct"], "rtss.dcm"),
        dicom_files.read_dose(files["rtdose"], "rtdose.dcm"),
        dicom_files.read_fractionation(files["rtplan"], "rtplan.dcm"),
    )


def test_good_files_are_read(files: dict[str, bytes]) -> None:
    result = _review(files)
    assert [(c.structure, c.status) for c in result.checks] == [("Spinal Cord", "pass")]


@pytest.mark.parametrize(
    "reader", [dicom_files.read_structures, dicom_files.read_dose, dicom_files.read_fractionation]
)
def test_not_dicom(reader: object) -> None:
    with pytest.raises(PlanFileError, match=r"^notes\.txt: this is not a DICOM file\.$"):
        reader(b"Patient plan notes, not an image\n" * 20, "notes.txt")  # type: ignore[operator]
    with pytest.raises(PlanFileError, match=r"^blank\.dcm: the file is empty\.$"):
        reader(b"", "blank.dcm")  # type: ignore[operator]


def test_truncated_dose(files: dict[str, bytes]) -> None:
    data = files["rtdose"]
    with pytest.raises(PlanFileError, match=r"^rtdose\.dcm: the file is truncated"):
        dicom_files.read_dose(data[: len(data) // 2], "rtdose.dcm")


def test_truncated_structure_set(files: dict[str, bytes]) -> None:
    data = files["rtstruct"]
    with pytest.raises(PlanFileError, match=r"^rtss\.dcm: the file is truncated"):
        dicom_files.read_structures(data[: len(data) // 2], "rtss.dcm")


def test_a_file_of_the_wrong_kind(files: dict[str, bytes]) -> None:
    with pytest.raises(
        PlanFileError, match=r"^plan\.dcm: expected an RTDOSE file, found modality 'RTPLAN'\.$"
    ):
        dicom_files.read_dose(files["rtplan"], "plan.dcm")


def test_dose_in_another_frame_of_reference(files: dict[str, bytes]) -> None:
    other = dict(
        files, rtdose=_edit(files["rtdose"], lambda ds: setattr(ds, "FrameOfReferenceUID", "1.2.3.4"))
    )
    with pytest.raises(PlanFileError) as caught:
        _review(other)
    message = str(caught.value)
    assert message.startswith(
        "rtdose.dcm: its frame of reference (1.2.3.4) does not match the structure set rtss.dcm"
    )


def test_a_structure_without_contours(files: dict[str, bytes]) -> None:
    def empty_heart(ds: pydicom.Dataset) -> None:
        roi = pydicom.Dataset()
        roi.ROINumber = 9
        roi.ROIName = "Heart"
        ds.StructureSetROISequence.append(roi)

    result = _review(dict(files, rtstruct=_edit(files["rtstruct"], empty_heart)))
    heart = [c for c in result.checks if c.structure == "Heart"]
    assert [c.status for c in heart] == ["not assessable"]
    assert heart[0].reason == "'Heart' has no contours in rtss.dcm."
    assert "'Heart' has no contours in rtss.dcm." in result.warnings


def test_plan_without_fractionation(files: dict[str, bytes]) -> None:
    no_count = _edit(
        files["rtplan"], lambda ds: delattr(ds.FractionGroupSequence[0], "NumberOfFractionsPlanned")
    )
    with pytest.raises(PlanFileError, match=r"^rtplan\.dcm: the plan does not give its number of fractions"):
        dicom_files.read_fractionation(no_count, "rtplan.dcm")
    no_group = _edit(files["rtplan"], lambda ds: delattr(ds, "FractionGroupSequence"))
    with pytest.raises(PlanFileError, match=r"^rtplan\.dcm: the plan has no fraction group"):
        dicom_files.read_fractionation(no_group, "rtplan.dcm")


def test_no_plan_and_no_fractions(files: dict[str, bytes]) -> None:
    structures = dicom_files.read_structures(files["rtstruct"], "rtss.dcm")
    dose = dicom_files.read_dose(files["rtdose"], "rtdose.dcm")
    with pytest.raises(PlanFileError, match="the number of fractions is unknown"):
        review.review_plan(structures, dose, None)
    assert review.review_plan(structures, dose, None, fractions=25).fractions == 25


def test_pydicoms_toy_set_is_refused_for_its_frames_of_reference() -> None:
    structures = dicom_files.read_structures(Path(examples.get_path("rt_ss")).read_bytes(), "rtstruct.dcm")
    dose = dicom_files.read_dose(Path(examples.get_path("rt_dose")).read_bytes(), "rtdose.dcm")
    assert dose.units == "RELATIVE"
    with pytest.raises(PlanFileError, match=r"^rtdose\.dcm: its frame of reference"):
        review.review_plan(structures, dose, None, fractions=30)


def test_relative_dose_is_drawn_but_not_checked(files: dict[str, bytes]) -> None:
    relative = dict(files, rtdose=_edit(files["rtdose"], lambda ds: setattr(ds, "DoseUnits", "RELATIVE")))
    result = _review(relative)
    assert [c.status for c in result.checks] == ["not assessable"]
    assert "relative" in (result.checks[0].reason or "")
    assert result.structures[0]["dmeanGy"] > 0


@pytest.mark.parametrize("summation", ["BEAM", "FRACTION"])
def test_a_dose_of_one_beam_or_fraction_is_not_checked(files: dict[str, bytes], summation: str) -> None:
    partial = dict(
        files, rtdose=_edit(files["rtdose"], lambda ds: setattr(ds, "DoseSummationType", summation))
    )
    result = _review(partial)
    assert [c.status for c in result.checks] == ["not assessable"]
    assert result.checks[0].reason == (
        f"the dose of rtdose.dcm is not the whole plan's (DoseSummationType {summation}):"
        " no limit can be checked against it."
    )
