"""Command-line entry point. `specview --help` imports nothing heavy."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from specview.cli.errors import fail, internal_error
from specview.kernel.errors import CliError, SpecviewError, describe_error

RECORDING_COMMANDS = (None, "bench")  # the live view (no command) and bench can record


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command: bad input exits 2 with one line, a bug exits 1 with one line (the
    traceback goes to the crash log), a local engine that died exits 3, Ctrl-C exits 130. Run as
    a program, the process ends as soon as a UI is done (cli/quick_exit.py)."""
    code = _main(argv)
    if argv is None:
        from specview.cli.quick_exit import end_after_ui

        end_after_ui(code)
    return code


def _main(argv: Sequence[str] | None) -> int:
    args = None
    try:
        from functools import partial

        from specview.cli.error_lang import error_lang
        from specview.cli.parser import build_parser
        from specview.plugins.problems import set_language

        # a plugin left out is one line on stderr, in the error line's language (found only if there is one)
        set_language(partial(error_lang, None, sys.argv[1:] if argv is None else argv))
        # help is said in the error line's language, found only if help is shown (it may read the config)
        args = build_parser(partial(error_lang, None, sys.argv[1:] if argv is None else argv)).parse_args(argv)
        return _dispatch(args)
    except KeyboardInterrupt as exc:
        from specview.cli.quick_exit import Quit, arm

        if isinstance(exc, Quit):  # q before the UI: as q in it
            arm()
            return 0
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, as Unix tools do.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except SpecviewError as exc:
        from specview.cli.error_lang import error_lang

        # exit 2 for bad input; an error that names its own code keeps it (3: the local engine died)
        fail(describe_error(exc, error_lang(args, sys.argv[1:] if argv is None else argv)),
             getattr(exc, "exit_code", 2))
    except OSError as exc:
        fail(str(exc))
    except Exception as exc:  # noqa: BLE001 - a bug: one line and the log, never a traceback
        return internal_error(exc)


def _dispatch(args: object) -> int:
    import argparse

    assert isinstance(args, argparse.Namespace)
    run = getattr(args, "run", None)  # set by the subcommand's parser
    if getattr(args, "record", None) and getattr(args, "command", None) not in RECORDING_COMMANDS:
        raise CliError("clierr.record_command", command=args.command)
    if run is not None:
        from specview.cli.config_report import report_if_headless

        report_if_headless(args)
        code: int = run(args)
        return code
    from specview.features.live.command import run_live

    return run_live(args)


if __name__ == "__main__":
    sys.exit(main())
