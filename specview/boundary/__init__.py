"""specview: boundary."""
