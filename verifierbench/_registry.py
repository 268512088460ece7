"""Inspect entry point (`[project.entry-points.inspect_ai]`).

Inspect imports this module to find the package's registered objects. The Inspect task, the
no-Docker sandbox provider and the model-free policies register here as they land (issue 5).
"""
