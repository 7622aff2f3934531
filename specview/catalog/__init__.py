"""specview: catalog."""
