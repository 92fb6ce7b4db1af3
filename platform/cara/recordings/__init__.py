"""Consultations recorded offline in the browser and processed later (/api/recordings)."""
