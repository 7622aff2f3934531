"""What the fleet watch runs besides its polls: the `--on-alert` command."""
