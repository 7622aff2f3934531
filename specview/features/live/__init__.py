"""specview: live."""
