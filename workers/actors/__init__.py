"""Actors by domain. Names read `<domain>.<event>`; arguments are ids."""
