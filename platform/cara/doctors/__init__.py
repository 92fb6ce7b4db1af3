"""Doctors: specialties and profiles."""
