"""The explainer: one screen per idea (one file each, declaring its `Lesson`; `registry.py` finds them)."""
