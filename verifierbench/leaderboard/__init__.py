"""Leaderboards from Inspect logs: configurations, merged samples, metrics of the median round."""
