"""Conversation summaries and report drafts (POST /api/summarize), generated on a worker."""
