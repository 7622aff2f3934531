"""The explainer: one screen per idea (one file each), listed in `registry.py`."""
