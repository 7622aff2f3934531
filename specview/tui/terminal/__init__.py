"""specview: terminal."""
