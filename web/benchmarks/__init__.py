"""Benchmarks of the web layer (`tableref bench ...`)."""
