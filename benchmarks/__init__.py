"""Measurements that are not tests: run each from the repository root as
``.venv/bin/python -m benchmarks.NAME`` (its docstring says what it prints)."""
