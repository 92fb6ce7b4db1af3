"""The five specialties (spec §1) and the console path each one leads to."""

from __future__ import annotations

SPECIALTIES = ("Radiologist", "Radiotherapist", "Cardiologist", "General Practitioner", "Nurse")
DEFAULT_SPECIALTY = "Radiologist"


def specialty_path(specialty: str) -> str:
    """'/general-practitioner' for 'General Practitioner' (lower-cased, spaces → hyphens)."""
    return "/" + specialty.strip().lower().replace(" ", "-")
