"""specview: kinds."""
