"""The consultation record: consent, transcript, drafts, the signed note and its exports."""
