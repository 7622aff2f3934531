"""specview: sweep."""
