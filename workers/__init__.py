"""Dramatiq workers: broker, middleware, actors by domain, and the scheduler."""
