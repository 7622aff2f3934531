"""The loader: a group's units from its entry points, built-ins first, each problem one line (see __init__)."""

from __future__ import annotations

import pkgutil
import tomllib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from importlib import import_module, util
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from types import ModuleType
from typing import Any, Generic, TypeVar

from specview.distribution import NAME, canonical, source_project
from specview.plugins.problems import report
from specview.texts.catalog import Phrase, TextsLackLanguage, add_texts, texts_beside

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Found(Generic[T]):
    """A unit and where it came from: its module and that module's file."""

    unit: T
    module: str
    file: str


@dataclass(frozen=True, slots=True)
class Group(Generic[T]):
    """One kind of extension: its entry-point group, the type of its units and how to name one.

    `refuse` may give a reason (a Phrase) to leave a unit out beside the ones taken before it
    (a number or a priority already taken); two units with one id are refused here already.
    `read`, for units that are data rather than objects (a method's folder): the units a module an
    entry point names holds, found its own way (it says what it cannot read, and joins their texts);
    None: the objects of the group's type at the module's top level.
    """

    name: str
    unit: type[T]
    ident: Callable[[T], str]
    refuse: Callable[[T, list[Found[T]]], Phrase | None] = field(default=lambda unit, before: None)
    read: Callable[[ModuleType], Iterable[Found[T]]] | None = None


_LOADED: dict[str, list[Any]] = {}  # a group's Found units, by group name


def units(group: Group[T]) -> tuple[T, ...]:
    """The group's units, built-ins first, then each plugin's in its entry points' order (found once)."""
    return tuple(found.unit for found in found_units(group))


def found_units(group: Group[T]) -> list[Found[T]]:
    """`units` with where each came from."""
    if group.name not in _LOADED:
        found = (unit for point in group_points(group.name) for unit in point_units(group, point))
        _LOADED[group.name] = accepted(group, found)
    loaded: list[Found[T]] = _LOADED[group.name]
    return loaded


def package_units(group: Group[T], *packages: str) -> list[Found[T]]:
    """The units of `packages` as if entry points named them in this order (tests plant packages)."""
    return accepted(group, (unit for name in packages for unit in module_units(group, import_module(name), walk=True)))


def accepted(group: Group[T], found: Iterable[Found[T]]) -> list[Found[T]]:
    """The units in order, each once; one that `refusal` refuses is one line and left out."""
    taken: list[Found[T]] = []
    for item in found:
        if any(item.unit is seen.unit for seen in taken):
            continue  # one unit imported by a second module is still one
        reason = refusal(group, item, taken)
        if reason is not None:
            report(Phrase("plugins.refused", what=unit_name(group, item), reason=reason))
            continue
        taken.append(item)
    return taken


def refusal(group: Group[T], found: Found[T], taken: list[Found[T]]) -> Phrase | None:
    ident = group.ident(found.unit)
    for other in taken:
        if group.ident(other.unit) == ident:
            return Phrase("plugins.same_id", id=repr(ident), other=other.file)
    return group.refuse(found.unit, taken)


def unit_name(group: Group[T], found: Found[T]) -> Phrase:
    return Phrase("plugins.unit", group=group.name, id=repr(group.ident(found.unit)), file=found.file)


def group_points(name: str) -> list[EntryPoint]:
    """The group's entry points, specview's own first. An install whose metadata predates the group
    (an editable install made before it, or one under specview's old distribution name) has none of
    specview's: they come from the pyproject.toml beside the package instead, so an old checkout still
    loads every built-in."""
    points = list(entry_points(group=name))
    own = [point for point in points if point.dist is not None and canonical(point.dist.name) == NAME]
    if not own:
        own = pyproject_points(name)
    others = sorted((point for point in points if point not in own and point.value not in {o.value for o in own}),
                    key=lambda point: (point.dist.name if point.dist is not None else "", point.name))
    return [*own, *others]


def pyproject_points(name: str) -> list[EntryPoint]:
    """The built-in entry points of `name` as this source tree's pyproject.toml declares them."""
    declared = source_project().get("entry-points", {}).get(name, {})
    return [EntryPoint(key, value, name) for key, value in declared.items()]


def point_units(group: Group[T], point: EntryPoint) -> Iterator[Found[T]]:
    """Every unit an entry point names; a failure to load is one line and no units."""
    module_name = point.value.partition(":")[0].strip()
    try:
        value = point.load()
    except Exception as exc:  # noqa: BLE001 - a plugin's own failure, named with its type
        report(Phrase("plugins.load_failed", point=entry_name(point), file=module_file(module_name),
                      error=f"{type(exc).__name__}: {exc}"))
        return
    if isinstance(value, ModuleType):
        yield from module_units(group, value, walk=True)
        return
    module = import_module(module_name)
    held = list(value) if isinstance(value, tuple | list) else [value]
    if not held or not all(isinstance(item, group.unit) for item in held):
        report(Phrase("plugins.not_a_unit", point=entry_name(point), file=module_file(module_name),
                      type=type(value).__name__, unit=group.unit.__name__))
        return
    if with_texts(group, module, held):
        yield from (Found(item, module.__name__, module_file(module.__name__)) for item in held)


def module_units(group: Group[T], module: ModuleType, *, walk: bool) -> Iterator[Found[T]]:
    """The units at the top level of `module` and, for a package, of every module inside it
    (or what the group's `read` finds there)."""
    if group.read is not None:
        yield from group.read(module)
        return
    held = [item for item in units_in(group, module)]
    if held and with_texts(group, module, held):
        yield from (Found(item, module.__name__, module_file(module.__name__)) for item in held)
    if not walk or not hasattr(module, "__path__"):
        return
    for info in sorted(pkgutil.iter_modules(module.__path__, f"{module.__name__}."), key=lambda i: i.name):
        try:
            inner = import_module(info.name)
        except Exception as exc:  # noqa: BLE001 - a module's own failure, named with its type
            report(Phrase("plugins.load_failed", point=info.name, file=module_file(info.name),
                          error=f"{type(exc).__name__}: {exc}"))
            continue
        yield from module_units(group, inner, walk=info.ispkg)


def units_in(group: Group[T], module: ModuleType) -> Iterator[T]:
    """The group's units a module holds at its top level, alone or in a tuple."""
    for value in vars(module).values():
        if isinstance(value, group.unit):
            yield value
        elif isinstance(value, tuple) and value and all(isinstance(item, group.unit) for item in value):
            yield from value


def with_texts(group: Group[T], module: ModuleType, held: list[T]) -> bool:
    """Join the texts beside `module` to the catalog; False (said once) when they cannot be."""
    origin = getattr(module, "__file__", None)
    if origin is None:
        return True
    folder, stem = texts_beside(Path(origin))
    try:
        add_texts(folder, stem)
    except TextsLackLanguage as exc:
        file = f"{folder / stem}.{exc.lang}.toml"
        reason = (Phrase("plugins.texts_lack", lang=exc.lang, file=file) if exc.key is None
                  else Phrase("plugins.texts_lack_key", lang=exc.lang, key=exc.key, file=file))
    except KeyError as exc:
        reason = Phrase("plugins.texts_taken", key=str(exc.args[0]), folder=str(folder), stem=stem)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        reason = Phrase("plugins.texts_broken", folder=str(folder), stem=stem, error=f"{type(exc).__name__}: {exc}")
    else:
        return True
    for item in held:
        found = Found(item, module.__name__, module_file(module.__name__))
        report(Phrase("plugins.refused", what=unit_name(group, found), reason=reason))
    return False


def entry_name(point: EntryPoint) -> str:
    return f"{point.group} {point.name} = {point.value}"


def module_file(name: str) -> str:
    """The file of module `name`, found without running it where possible (else the name itself)."""
    try:
        spec = util.find_spec(name)
    except Exception:  # noqa: BLE001 - a parent package that fails too: the name is all there is
        return name
    return spec.origin if spec is not None and spec.origin else name
