"""Dose-volume histograms of a radiotherapy plan, checked against QUANTEC.

`dicom_files` reads and validates the RTSTRUCT, RTDOSE and RTPLAN (every
refusal a `PlanFileError` naming the file); `engine` computes each
structure's cumulative DVH from the contours and the dose grid; `review`
converts it to EQD2 with the plan's own fractionation and checks every
structure that maps to a QUANTEC organ, with the table of
`cara.clinical.dose_constraints`.
"""
