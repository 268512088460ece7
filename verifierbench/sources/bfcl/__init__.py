"""BFCL v4 (simple, multiple, parallel, parallel_multiple) from the installed `bfcl-eval` package."""
