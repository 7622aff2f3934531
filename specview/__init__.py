"""specview: watch speculative decoding happen."""


def __getattr__(name: str) -> str:
    """`specview.__version__`: the installed distribution's version, from its metadata (specview/distribution.py),
    read only when asked, so that importing specview reads no metadata."""
    if name == "__version__":
        from specview.distribution import version

        return version()
    raise AttributeError(f"module 'specview' has no attribute {name!r}")
