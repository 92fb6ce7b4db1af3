"""The platform admin console's API (/api/admin/...): statistics read from the
analytics rollups, lists in react-admin's REST conventions, and the actions
admins take on hospitals and doctors (verify, suspend, reinstate), admin
invitations, and the first admin created from configuration."""
