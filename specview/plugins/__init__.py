"""The plugin surface: every extension of specview is a unit registered through an entry-point group.

A *unit* is one object of a group's unit type, defined at the top level of a module. Packages
register units under these groups (`[project.entry-points."<group>"]` in their pyproject.toml),
and specview's own built-ins go through the very same path, declared in specview's pyproject.toml:

    group                  unit type (module)                                  its id
    specview.server_kinds  ServerKind instance (backends/remote/server_kind)   .id (and a .priority of its own)
    specview.backends      BackendUnit (backends/unit.py)                      .id; its .options record runs on it
    specview.lessons       Lesson (features/learn/registry.py)                 .slug (and a .number of its own)
    specview.gauges        GaugeSpec (kernel/gauges.py)                        .key; .after places it
    specview.methods       Method, a data folder (methods/registry.py)         .id; read by the group's `read`

An entry point names either

- a unit, or a tuple of units: `tinyengine = "specview_tinyengine:KIND"`; or
- a module: `mine = "specview_mine.lessons"`: every unit at the top level of the module and, for a
  package, of every module inside it (so a new built-in unit is one new module in a package that
  is already named: no list to edit).

A unit's texts travel with it: beside the module that defines it, `<module>.<lang>.toml` for every
language specview speaks (`lessons.en.toml` and `lessons.zh.toml` beside `lessons.py`; for a
package, inside its folder: `<package>/<name>.en.toml`), in the catalog's format (texts/catalog.py); they
join the catalog when the unit loads, and wherever one of their ids is first rendered before that
(texts/catalog.py: join_unit_texts), so `Phrase`/`fill`/`text` find them like any other text. A
module lists its units in `__all__` (a reader, and vulture, then see what the surface reads).

Bad input never stops specview: a module that fails to import, an entry point that names something
not of the group's type, a unit whose id (or number, or priority) another unit took first, a unit
whose texts lack a language or repeat an id: each is one line (`plugins.*` in the catalog, zh and
en) naming the unit and its file, said once (on stderr; in the app, as a notification: problems.py),
and that unit is left out while everything else loads. specview's own units load first, so a
plugin never displaces a built-in.

A new kind of extension is one `Group` beside the code that reads it, and one table in pyproject.toml:

    DRAFTERS: Group[Drafter] = Group("specview.drafters", Drafter, lambda drafter: drafter.id)
    units(DRAFTERS)  # every Drafter, specview's first: each module of the package pyproject names
    # pyproject.toml:  [project.entry-points."specview.drafters"]  specview = "specview.drafters"

with `refuse` for anything besides the id that two units may not share, and `read` where a unit is
data rather than an object (a method's folder: methods/registry.py) (surface.Group).

An editable install made before a group existed has no entry points for it: then the built-ins
are read from the `[project.entry-points]` of the pyproject.toml beside the package (surface.py).
"""
