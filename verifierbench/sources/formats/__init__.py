"""Candidate formats: one `Format` object per format (base.py), registered by its name; registry.py finds the
format of a task or a sample. A source declares its format (`Source.format`); the task type is the format's."""
