"""Subscriptions as the web app sees them: the current plan and the access gates."""
