"""OpenTelemetry wiring."""
