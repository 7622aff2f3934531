"""Exports of a run: the recording and a Markdown report (used by the live view and `replay --markdown`)."""
