"""Other libraries' private names are touched in specview/compat only, and each compat module lists
every one it touches (so tests/unit/test_*_compat.py checks them all against the installed releases)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from pathlib import Path

import specview
from specview.compat import Private, llama_compat, stdlib_compat, textual_compat

ROOT = Path(specview.__file__).parent
COMPAT = ROOT / "compat"
# documented names with a leading underscore: os._exit, namedtuple's _replace…, enum's sunder names
PUBLIC = {"_exit", "_replace", "_asdict", "_fields", "_field_defaults", "_make"}


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and not (name.endswith("_") and len(name) > 2)


def touched(tree: ast.AST, *, own: bool) -> Iterator[tuple[int, str]]:
    """(line, name) of each private name `tree` touches: imported from a private module, read off another
    object (off `self` too if not `own`: in a compat module every one is a library's), called on super(),
    given to getattr, or defined as a method or class inside a class."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for module in modules:
                if not module.startswith("specview") and not node.__dict__.get("level"):
                    yield from ((node.lineno, part) for part in module.split(".") if private(part))
        elif isinstance(node, ast.Attribute) and private(node.attr) and node.attr not in PUBLIC:
            value = node.value
            mine = isinstance(value, ast.Name) and value.id in ("self", "cls")
            if not (own and mine):
                yield node.lineno, node.attr
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
              and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str) and private(node.args[1].value)):
            yield node.lineno, node.args[1].value
        elif isinstance(node, ast.ClassDef) and not own:
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and private(item.name):
                    yield item.lineno, item.name


def test_no_module_outside_compat_reads_a_private_name_of_another_object() -> None:
    found = [f"{path.relative_to(ROOT.parent)}:{line}: {name}"
             for path in sorted(ROOT.rglob("*.py")) if COMPAT not in path.parents
             for line, name in touched(ast.parse(path.read_text(encoding="utf-8")), own=True)]
    assert not found, "a library's private name outside specview/compat (put it there): " + ", ".join(found)


def test_no_class_outside_compat_overrides_a_library_s_private_method() -> None:
    found = []
    for info in pkgutil.walk_packages(specview.__path__, "specview."):
        if info.name == "specview.__main__" or info.name.startswith("specview.compat"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            continue
        for cls in vars(module).values():
            if not inspect.isclass(cls) or cls.__module__ != module.__name__:
                continue
            for name, value in vars(cls).items():
                if not private(name) or not (inspect.isfunction(value) or isinstance(value, classmethod | staticmethod
                                                                                             | property | type)):
                    continue
                owners = [base for base in cls.__mro__[1:] if name in vars(base)
                          and not base.__module__.startswith("specview")]
                if owners:
                    found.append(f"{cls.__module__}.{cls.__qualname__}.{name} (of {owners[0].__qualname__})")
    assert not found, "a library's private method overridden outside specview/compat: " + ", ".join(found)


def test_each_compat_module_lists_every_private_name_it_touches() -> None:
    listed: dict[str, tuple[Private, ...]] = {"textual_compat": textual_compat.PRIVATE,
                                              "stdlib_compat": stdlib_compat.PRIVATE,
                                              "llama_compat": llama_compat.PRIVATE}
    serve = COMPAT / "serve_compat.py"  # (its module needs textual-serve; its list is read from its source)
    listed["serve_compat"] = tuple(Private("", str(ast.literal_eval(node.args[1])), "")
                                   for node in ast.walk(ast.parse(serve.read_text(encoding="utf-8")))
                                   if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                                   and node.func.id == "Private")
    for name, names in listed.items():
        path = COMPAT / f"{name}.py"
        known = {private.name for private in names} | {part for private in names
                                                        for part in private.owner.replace(":", ".").split(".")}
        unlisted = sorted({f"{line}: {used}" for line, used in touched(ast.parse(path.read_text(encoding="utf-8")),
                                                                        own=False) if used not in known})
        assert not unlisted, f"specview/compat/{name}.py touches private names its PRIVATE does not list: {unlisted}"
    assert {path.stem for path in COMPAT.glob("*_compat.py")} == set(listed)
