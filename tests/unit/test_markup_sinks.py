"""No text from outside reaches a markup-interpreting call: checked on the UI's source.

Textual reads a plain `str` as markup in `notify`, `Static`/`Label`/`Button`, `Static.update`,
`Option` prompts, `border_title`/`border_subtitle`, tooltips and `from_markup`: a `[/]` from a
server crashes the app, `[link=…]` makes a link, `[@click=…]` an action. So in `tui/`,
`widgets/` and `learn/` such a call must pass `markup=False`, or text that cannot hold markup
from outside: a string literal, a catalog text (`text(…)`, `self.t(…)`, a Learn screen's
`self.ts(…)`), a `Text`/`Content` object (or specview's `Wrapped`, which renders one), a call of
a function or `self.` method of the same file annotated to return one, a number formatted with
a numeric format spec, or a combination of those. Anything else (a variable, an attribute, an
f-string of them) fails with the file and the line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "specview"
UI_LAYERS = ("tui", "widgets", "learn")
# call name -> the index of the positional argument read as markup (its keyword is checked too)
MARKUP_CALLS = {"notify": (0, "message"), "Static": (0, "content"), "Label": (0, "content"),
                "Button": (0, "label"), "update": (0, "content"), "Option": (0, "prompt"),
                "from_markup": (0, "text"), "add_row": (None, None), "add_column": (0, "label")}
MARKUP_ATTRIBUTES = {"border_title", "border_subtitle", "tooltip"}
CATALOG = {"text", "t", "ts"}  # message catalog lookups: texts we wrote
PLAIN = {"Text", "Content", "assemble", "Wrapped"}  # objects that are never parsed as markup
NUMERIC_SPEC = tuple("fegdxXn%")
PLAIN_WIDGETS = {"Prose"}  # specview widgets whose update() takes plain text only (never markup)


def _plain_widget(func: ast.expr) -> bool:
    """`….query_one(…, Prose).update`: a widget that never reads markup, found by its type."""
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call)):
        return False
    query = func.value
    return (isinstance(query.func, ast.Attribute) and query.func.attr == "query_one" and len(query.args) == 2
            and isinstance(query.args[1], ast.Name) and query.args[1].id in PLAIN_WIDGETS)


def _plain_makers(tree: ast.Module) -> set[str]:
    """Functions of one file annotated to return a `Text`/`Content` (mypy holds them to it)."""
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and isinstance(node.returns, ast.Name | ast.Constant)
            and (node.returns.id if isinstance(node.returns, ast.Name) else node.returns.value) in PLAIN}


def _trusted(node: ast.expr | None, plain: frozenset[str] | set[str] = frozenset()) -> bool:
    """Whether `node` can only be a text we wrote (see the module docstring); `plain` names the
    file's own functions that return a Text/Content."""
    if node is None:
        return True
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        own = isinstance(func, ast.Name) or (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                                             and func.value.id == "self")
        return name in CATALOG or name in PLAIN or (own and name in plain)
    if isinstance(node, ast.JoinedStr):
        return all(_trusted_piece(part) for part in node.values)
    if isinstance(node, ast.BinOp):
        return _trusted(node.left, plain) and _trusted(node.right, plain)
    if isinstance(node, ast.IfExp):
        return _trusted(node.body, plain) and _trusted(node.orelse, plain)
    return False


def _trusted_piece(part: ast.expr) -> bool:
    if isinstance(part, ast.Constant):
        return True
    assert isinstance(part, ast.FormattedValue)
    spec = part.format_spec
    if isinstance(spec, ast.JoinedStr) and spec.values:
        last = spec.values[-1]
        if isinstance(last, ast.Constant) and str(last.value).endswith(NUMERIC_SPEC):
            return True  # only a number can be formatted so
    return _trusted(part.value)


def _markup_off(call: ast.Call) -> bool:
    return any(k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False
               for k in call.keywords)


def violations(root: Path = PACKAGE) -> list[str]:
    """'file:line: what' for every markup-interpreting call fed by something not known to be ours."""
    out: list[str] = []
    for layer in UI_LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"))
            plain = _plain_makers(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    func = node.func
                    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                    if name not in MARKUP_CALLS or _markup_off(node) or _plain_widget(func):
                        continue
                    index, keyword = MARKUP_CALLS[name]
                    fed = [node.args[index]] if index is not None and len(node.args) > index else []
                    if index is None:
                        fed = list(node.args)
                    fed += [k.value for k in node.keywords if k.arg == keyword]
                    if name == "notify":
                        fed += [k.value for k in node.keywords if k.arg == "title"]
                    for value in fed:
                        if not _trusted(value, plain):
                            out.append(f"{rel}:{node.lineno}: {name}() is fed {ast.unparse(value)[:60]}")
                elif isinstance(node, ast.Assign | ast.AnnAssign):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        if (isinstance(target, ast.Attribute) and target.attr in MARKUP_ATTRIBUTES
                                and not _trusted(node.value, plain)):
                            shown = ast.unparse(node.value)[:60] if node.value else ""
                            out.append(f"{rel}:{node.lineno}: {target.attr} = {shown}")
    return out


def test_no_markup_sink_is_fed_untrusted_text() -> None:
    assert violations() == []


@pytest.mark.parametrize(
    ("line", "caught"),
    [
        ("self.notify(error)", True),
        ("self.query_one('#about', Prose).update(label)", False),
        ("self.query_one('#about', Static).update(label)", True),
        ("self.notify(error, markup=False)", False),
        ("self.notify('done')", False),
        ("self.notify(text('saved', lang))", False),
        ("self.notify(f'{count:d} runs')", False),
        ("self.notify(f'run {label}')", True),
        ("self.notify('x', title=label)", True),
        ("Static(preset.notes)", True),
        ("Static(preset.notes, markup=False)", False),
        ("self.query_one(Static).update(f'{a:.2f}')", False),
        ("self.query_one(Static).update(message)", True),
        ("self.query_one(Static).update(Text(message))", False),
        ("Option(f'{p.id} {p.label}', id=p.id)", True),
        ("box.border_title = f'run {preset.id}'", True),
        ("box.border_title = Text(sanitize(title))", False),
        ("box.border_title = text('help.title', lang)", False),
        ("Text.from_markup(label)", True),
        ("def line(p) -> Text: ...\nOption(line(p))", False),
        ("def line(p) -> str: ...\nOption(line(p))", True),
        ("Option(other.line(p))", True),
        ("def line(self) -> Text: ...\nStatic(self.line())", False),
        ("def line(self) -> str: ...\nStatic(self.line())", True),
        ("self.query_one(Static).update(self.ts('hint'))", False),
        ("self.query_one(Static).update(self.ts('hint').format(name=model))", True),
    ],
)
def test_the_walk_catches_what_it_should(tmp_path: Path, line: str, caught: bool) -> None:
    for layer in UI_LAYERS:
        (tmp_path / layer).mkdir()
    (tmp_path / "tui" / "screen.py").write_text(line + "\n")
    found = violations(tmp_path)
    assert bool(found) is caught, found
    if caught:
        assert found[0].startswith(f"tui/screen.py:{line.count(chr(10)) + 1}: ")
