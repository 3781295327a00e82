"""Subcommands of `tableref` that belong to the web layer (serve, referee, rules, simulate)."""
