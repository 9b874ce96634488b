"""The dry run's scheduler plugins, one concern per module (registry.py lists them in order)."""
