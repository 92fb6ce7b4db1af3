"""Subscription plans: the catalogue and its seeding."""
