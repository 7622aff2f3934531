"""specview: watch."""
