"""`specview doctor`: findings about a running server (command.py)."""
