"""specview: kernel."""
