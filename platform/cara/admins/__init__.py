"""Platform administrators: invitations (admins are never self-registered)."""
