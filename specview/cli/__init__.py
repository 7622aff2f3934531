"""Command-line entry point. `specview --help` imports nothing heavy."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from specview.cli.errors import fail
from specview.core.errors import SpecviewError


def main(argv: Sequence[str] | None = None) -> int:
    from specview.cli.parser import build_parser

    args = build_parser().parse_args(argv)
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, as Unix tools do.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except SpecviewError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(str(exc))


def _dispatch(args: object) -> int:
    import argparse

    assert isinstance(args, argparse.Namespace)
    run = getattr(args, "run", None)  # set by the subcommand's parser
    if run is not None:
        code: int = run(args)
        return code
    from specview.cli.live import run_live

    return run_live(args)


if __name__ == "__main__":
    sys.exit(main())
