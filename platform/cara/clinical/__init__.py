"""Deterministic clinical checks the assistant can call as tools (no model in the loop)."""
