"""Benchmarks of the vision layer (`tableref bench ...`)."""
