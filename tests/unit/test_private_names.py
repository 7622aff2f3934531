"""Other libraries' private names are touched in specview/compat only, and each compat module lists
every one it touches (so tests/unit/compat/test_*_compat.py checks them all against the installed
releases). The tests too reach a library's private name only through specview/compat, or through
tests/support/*_compat.py for what only the test harness needs (pytest's)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections.abc import Iterator, Set
from functools import cache
from pathlib import Path

import specview
from specview.compat import Private, llama_compat, stdlib_compat, textual_compat

ROOT = Path(specview.__file__).parent
COMPAT = ROOT / "compat"
TESTS = ROOT.parent / "tests"
TESTS_COMPAT = TESTS / "unit" / "compat"  # the tests of the compat modules read the names they check
HARNESS_COMPAT = frozenset((TESTS / "support").glob("*_compat.py"))  # what only the test harness needs
# documented names with a leading underscore: os._exit, namedtuple's _replace…, enum's sunder names
PUBLIC = {"_exit", "_replace", "_asdict", "_fields", "_field_defaults", "_make"}


@cache
def parsed(path: Path) -> ast.Module:
    """A file's syntax tree, parsed once for every check here."""
    return ast.parse(path.read_text(encoding="utf-8"))


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
             for line, name in touched(parsed(path), own=True)]
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


def defined(tree: ast.Module, *, module_level: bool) -> Iterator[str]:
    """The names `tree` defines for itself: a class's methods, nested classes and class-level names, what
    a method sets on `self` or `cls` (and `__slots__`), and with `module_level` the module's own names."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) or (module_level and isinstance(node, ast.Module)):
            for stmt in node.body:
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    yield stmt.name
                targets = (stmt.targets if isinstance(stmt, ast.Assign)
                           else [stmt.target] if isinstance(stmt, ast.AnnAssign | ast.AugAssign) else [])
                yield from (name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name))
                if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__"
                                                        for t in stmt.targets):
                    yield from (c.value for c in ast.walk(stmt.value) if isinstance(c, ast.Constant)
                                and isinstance(c.value, str))
        elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name)
              and node.value.id in ("self", "cls")):
            yield node.attr


@cache
def own_private_names() -> frozenset[str]:
    """The private names specview (outside its compat modules) and the tests' classes define themselves:
    a test reading one of those reads the project's own, not a library's. (A test module's top-level
    names are no object's attributes: a helper `_actions()` there must not excuse `parser._actions`.)"""
    names: set[str] = set()
    for path in [*ROOT.rglob("*.py"), *TESTS.rglob("*.py")]:
        if COMPAT in path.parents or path in HARNESS_COMPAT:
            continue
        names.update(name for name in defined(parsed(path), module_level=ROOT in path.parents) if private(name))
    return frozenset(names)


def library_names_read(tree: ast.Module, own: Set[str]) -> list[tuple[int, str]]:
    """(line, name) of each private name `tree` touches that the project does not define: a library's."""
    return [(line, name) for line, name in touched(tree, own=True) if name not in own]


def test_no_test_reads_a_library_s_private_name() -> None:
    own = own_private_names()
    found = [f"{path.relative_to(TESTS.parent)}:{line}: {name}"
             for path in sorted(TESTS.rglob("*.py"))
             if TESTS_COMPAT not in path.parents and path not in HARNESS_COMPAT
             for line, name in library_names_read(parsed(path), own)]
    assert not found, ("a library's private name in the tests (read it through specview/compat, or "
                       "tests/support/*_compat.py for the harness's own): " + ", ".join(found))


def test_the_tests_check_finds_a_library_s_name_and_leaves_the_project_s_own() -> None:
    planted = ast.parse("""
def f(app, parser, metrics):
    app._notifications
    getattr(item, "_fixtureinfo")
    Screen._refresh_layout = None
    metrics._window
""")
    assert library_names_read(planted, {"_window"}) == [(3, "_notifications"), (4, "_fixtureinfo"),
                                                        (5, "_refresh_layout")]
    assert {"_window", "_rounds_since_calibration"} <= own_private_names()  # Metrics', AutoGamma's
    assert "_notifications" not in own_private_names()


def test_the_harness_s_compat_module_lists_every_private_name_it_touches() -> None:
    from tests.support import pytest_compat

    path = Path(pytest_compat.__file__)
    known = {private.name for private in pytest_compat.PRIVATE}
    touched_names = {name for _, name in touched(ast.parse(path.read_text(encoding="utf-8")), own=False)}
    assert touched_names <= known, f"tests/support/pytest_compat.py touches names its PRIVATE does not list: " \
                                   f"{sorted(touched_names - known)}"
    assert {path} == HARNESS_COMPAT
