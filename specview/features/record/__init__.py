"""specview: record."""
