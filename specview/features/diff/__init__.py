"""specview: diff."""
