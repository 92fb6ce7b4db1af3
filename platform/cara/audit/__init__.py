"""Append-only audit trails: platform-wide and per tenant."""
