"""Subcommands of `tableref` that belong to the vision layer (detect, eval, watch, bench, datasets, train)."""
