"""Cara API: the FastAPI service behind /api."""
