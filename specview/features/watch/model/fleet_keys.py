"""The name each fleet instance is shown by, derived from its key (its identifying labels).

An instance is its whole label set: Prometheus scrapes `a` in jobs `x` and `y`, and an instance
whose own label is `x/a` in job `z`; those are three instances, and three rows, whatever their
labels hold. Each is shown by its `instance` label where that alone tells it apart; where it does
not, its other labels are added, in steps, until every name is unique:

1. the `instance` label: `a`
2. the other labels' values before it: `x/a`, `y/a` (Prometheus: the job)
3. the other labels written out, values quoted and escaped: `a{job="x"}`
4. that, and the instance's place among the keys: `a{job="x"} #2`

Instances that share an `instance` label take the same step, so they read alike. A name that two
keys would share sends both a step on, and the instances that share their `instance` label with
them; names at step 4 differ from each other, so it ends with every name unique, however the
labels were chosen (a label can hold `/`, braces or quotes), after at most three steps per key.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from specview.features.watch.model.fleet import InstanceKey

INSTANCE = "instance"
LAST_STEP = 3


def instance_label(key: InstanceKey) -> str:
    """The `instance` label (the first label's value for a key without one)."""
    found = dict(key)
    return found.get(INSTANCE, key[0][1] if key else "")


def _others(key: InstanceKey) -> InstanceKey:
    return tuple((name, value) for name, value in key if name != INSTANCE)


def _name(key: InstanceKey, step: int, place: int) -> str:
    base, others = instance_label(key), _others(key)
    if step == 0 or (not others and step < LAST_STEP):
        return base
    if step == 1:
        return "/".join([*(value for _, value in others), base])
    written = base + "{" + ",".join(f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in others) + "}"
    return written if step == 2 else f"{written} #{place}"


def display_names(keys: Iterable[InstanceKey]) -> dict[InstanceKey, str]:
    """A unique name for each key (see the module docstring); linear in the keys."""
    ordered = sorted(set(keys))
    place = {key: k for k, key in enumerate(ordered, 1)}
    step = dict.fromkeys(ordered, 0)
    sharing: dict[str, list[InstanceKey]] = {}
    for key in ordered:
        sharing.setdefault(instance_label(key), []).append(key)
    names = {key: _name(key, 0, place[key]) for key in ordered}
    holders: dict[str, set[InstanceKey]] = {}
    for key, name in names.items():
        holders.setdefault(name, set()).add(key)
    clashes = [name for name, keys_of in holders.items() if len(keys_of) > 1]

    def move(key: InstanceKey, to: int) -> None:
        if step[key] >= to:
            return
        holders[names[key]].discard(key)
        step[key], names[key] = to, _name(key, to, place[key])
        holders.setdefault(names[key], set()).add(key)
        if len(holders[names[key]]) > 1:
            clashes.append(names[key])

    while clashes:
        sharers = holders[clashes.pop()]
        if len(sharers) < 2:
            continue  # resolved by an earlier move
        targets = {key: step[key] + 1 for key in sorted(sharers) if step[key] < LAST_STEP}
        for key, to in targets.items():  # (names at the last step never clash with each other)
            for mate in sharing[instance_label(key)]:
                move(mate, to)
    return names


def find_instance(names: dict[InstanceKey, str], named: str) -> InstanceKey | None:
    """The instance `named` means (`watch --baseline`): its shown name, or its `instance` label,
    either with or without a URL's scheme and trailing slash; None when none is."""
    wanted = _bare(named)
    for key, name in names.items():
        if named in (name, instance_label(key)) or wanted in (_bare(name), _bare(instance_label(key))):
            return key
    return None


def _bare(said: str) -> str:
    """A URL without its scheme and trailing slashes (`http://h:8080/` → `h:8080`)."""
    return said.split("://", 1)[-1].rstrip("/")
