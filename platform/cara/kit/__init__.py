"""Small shared helpers used by every domain."""
