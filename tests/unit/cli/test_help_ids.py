"""Every help text of the command line is a catalog id both languages hold (the project's rule: every text a
user reads is a catalog id), read two ways.

The source: each `help=`, `description=` and `epilog=` of a call in the parser modules, each group title and
description, and each text handed to a helper that makes an option's help (`lang_option(p, "id")`, …) is a
string literal that is an id, a `Help("id", …)`, argparse.SUPPRESS, or a helper's own parameter. The parser
as built: every action's help, every parser's description and epilog, every group's title and description
is an id (a `Help`'s fields that are texts too), and each `{field}` its texts name is given.
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator
from pathlib import Path
from string import Formatter

from specview.cli.help_format import ARGPARSE_TITLES, Help, help_text
from specview.cli.parser import build_parser
from specview.compat.stdlib_compat import SubParsersAction, action_groups, parser_actions, subcommand_helps
from specview.texts.catalog import catalog, languages

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "specview"
TEXT_KEYWORDS = ("help", "description", "epilog")
HELPERS_TAKING_A_TEXT = {"lang_option", "speed_option", "server_option"}  # (parser, text id, …)
# Ids made at run time, each checked by the walk of the built parser below:
DYNAMIC = {"specview/features/watch/command/fleet_args.py": "cli_help.alerts.{key}, one per THRESHOLDS key"}


def parser_modules() -> list[Path]:
    found = sorted((PACKAGE / "cli").glob("*.py"))
    found += sorted(PACKAGE.glob("features/*/command*.py")) + sorted(PACKAGE.glob("features/*/command/*.py"))
    return [path for path in found if "add_argument" in path.read_text(encoding="utf-8")]


def _is_id(value: object) -> bool:
    return isinstance(value, str) and all(value in catalog(lang) for lang in languages())


def _text_ok(node: ast.expr, params: set[str], rel: str) -> bool:
    if isinstance(node, ast.Constant):
        return _is_id(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Help":
        return bool(node.args) and _text_ok(node.args[0], params, rel) and all(
            _text_ok(k.value, params, rel) for k in node.keywords
            if isinstance(k.value, ast.Call) and isinstance(k.value.func, ast.Name) and k.value.func.id == "Help")
    if isinstance(node, ast.Attribute):
        return node.attr == "SUPPRESS"
    if isinstance(node, ast.Name):
        return node.id in params  # a helper's parameter: its callers are checked
    return isinstance(node, ast.JoinedStr) and rel in DYNAMIC


def plain_help_texts() -> list[str]:
    """'path:line what' for every help text of the parser modules that is no id of every catalog."""
    found = []
    for path in parser_modules():
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        params: dict[ast.AST, set[str]] = {}  # each call: the parameters of the functions around it
        for func in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
            names = {a.arg for a in func.args.args + func.args.kwonlyargs}
            for node in ast.walk(func):
                params.setdefault(node, set()).update(names)
            if func.name in HELPERS_TAKING_A_TEXT:
                found += [f"{rel}:{func.lineno} default of {func.name}" for d in func.args.defaults
                          if isinstance(d, ast.Constant) and isinstance(d.value, str) and not _is_id(d.value)]
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name | ast.Attribute):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            texts = [(k.arg, k.value) for k in node.keywords if k.arg in TEXT_KEYWORDS]
            if name == "add_argument_group" or name in HELPERS_TAKING_A_TEXT:
                texts += [(f"{name} argument", a) for a in node.args[1 if name in HELPERS_TAKING_A_TEXT else 0:]]
            found += [f"{rel}:{node.lineno} {what}" for what, value in texts
                      if not _text_ok(value, params.get(node, set()), rel)]
    return sorted(set(found))


def test_every_help_text_in_the_source_is_a_catalog_id() -> None:
    assert plain_help_texts() == []


def test_the_source_walk_finds_a_plain_text(tmp_path: Path, monkeypatch: object) -> None:
    """The walker itself: an English help literal, or a group title, is listed."""
    assert not _text_ok(ast.parse('"rounds to simulate"', mode="eval").body, set(), "x.py")
    assert _text_ok(ast.parse('Help("cli_help.sel.gamma", max=3)', mode="eval").body, set(), "x.py")
    assert not _text_ok(ast.parse('Help("cli_help.sel.gamma", what=Help("no such id"))', mode="eval").body,
                        set(), "x.py")
    assert len(parser_modules()) >= 12


def parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser_actions(parser):
        if isinstance(action, SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from parsers(sub)


def _texts_of(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str]]:
    """(where, text) for each help text of one parser."""
    yield from ((f"{parser.prog} {name}", help_line) for name, help_line in subcommand_helps(parser).items())
    for action in parser_actions(parser):
        if action.help is not argparse.SUPPRESS and action.help is not None:
            yield f"{parser.prog} {'/'.join(action.option_strings) or action.dest}", action.help
    for name in ("description", "epilog"):
        if getattr(parser, name):
            yield f"{parser.prog} {name}", getattr(parser, name)
    for group in action_groups(parser):
        if group.title:
            yield f"{parser.prog} group", ARGPARSE_TITLES.get(group.title, group.title)
        if group.description:
            yield f"{parser.prog} group {group.title}", group.description


def _problems(where: str, value: str) -> Iterator[str]:
    if not _is_id(value):
        yield f"{where}: {value!r} is no catalog id"
        return
    fields = getattr(value, "fields", {})
    for lang in languages():
        named = {name for _, name, _, _ in Formatter().parse(catalog(lang)[value]) if name}
        if named - set(fields):
            yield f"{where}: {value} ({lang}) names {sorted(named - set(fields))}, not given"
    for name, field in fields.items():
        if isinstance(field, Help):
            yield from _problems(f"{where} field {name}", field)


def test_the_built_parser_says_only_catalog_texts() -> None:
    found = [line for parser in parsers(build_parser()) for where, value in _texts_of(parser)
             for line in _problems(where, value)]
    assert found == []


def test_a_help_text_renders_in_each_language() -> None:
    server = Help("cli_help.server", what=Help("cli_help.watch.server"))
    assert help_text(server, "en") == "server family: %(choices)s (default: auto, which detects it)"
    assert help_text(server, "zh") == "服务器类型：%(choices)s（默认：auto，自动检测）"
    assert help_text("words that are no id", "zh") == "words that are no id"
