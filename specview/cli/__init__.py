"""Command-line entry point. `specview --help` imports nothing heavy."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from specview.cli.errors import CliError, fail


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
    except CliError as exc:
        fail(str(exc))
    except Exception as exc:
        from specview.backends.base import BackendError
        from specview.core.presets import PresetError

        if isinstance(exc, BackendError | PresetError | OSError):
            fail(str(exc))
        raise


def _dispatch(args: object) -> int:
    import argparse

    assert isinstance(args, argparse.Namespace)
    if args.command == "presets":
        from specview.cli.presets_cmd import run_presets

        return run_presets(args.json)
    if args.command == "compare":
        from specview.cli.compare_cmd import run_compare

        return run_compare(args)
    if args.command == "replay":
        from specview.cli.replay_cmd import run_replay

        return run_replay(args)
    if args.command == "bench":
        from specview.cli.bench import run_bench

        return run_bench(args)
    from specview.cli.live import run_live

    return run_live(args)


if __name__ == "__main__":
    sys.exit(main())
