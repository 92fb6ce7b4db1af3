"""Analytics rollups: platform figures computed by a worker, read by the admin console."""
