"""Subscriptions as the web app sees them: the current plan and the access gates.

No routes of its own: billing serves /api/subscription/* and doctors serves
/api/doctors/hospital-subscription-status, both calling this service."""
