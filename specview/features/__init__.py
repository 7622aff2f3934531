"""specview: features."""
