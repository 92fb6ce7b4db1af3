"""Outgoing email."""
