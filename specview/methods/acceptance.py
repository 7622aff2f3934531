"""How a method's drafts come to be accepted: the acceptance models the simulator knows.

A method unit declares one (`[acceptance] model = …` in its method.toml, with the source that
describes it); a preset of that method may have only the parts of a preset its model has
(catalog/preset_shapes.py): a block drafter's `block` (and a verify length chosen per round, `[depth]`),
a tree's `[tree]`, a varying draft length's `[depth]`, prompt lookup's `[acceptance.mixture]`. One plain
chain is every model's simplest case, and decay with context (`[acceptance.context]`) is open to every
model. A preset with a part its method's model does not have is refused, naming the file.
"""

from __future__ import annotations

from dataclasses import dataclass

from specview.catalog.preset_shapes import Shape
from specview.kernel.errors import PresetError

FEATURES = ("block", "depth", "tree", "mixture", "context")  # the preset parts beyond one plain chain


@dataclass(frozen=True, slots=True)
class AcceptanceModel:
    """The preset parts beyond a plain chain that this model has (`[acceptance.context]` aside: every model may)."""

    allows: tuple[str, ...] = ()

    def refused(self, features: tuple[str, ...]) -> str | None:
        """The first part a preset has that this model does not, else None."""
        return next((f for f in features if f not in self.allows and f != "context"), None)


MODELS = {
    # one chain, a conditional acceptance per position (Leviathan et al. 2022, Eq. 1)
    "chain": AcceptanceModel(),
    # candidates per depth, the first that matches kept (EAGLE-2/3, Medusa's tree); a chain is its 1-branch case
    "tree": AcceptanceModel(allows=("tree",)),
    # B tokens in one forward, acceptance falling along the block; the verify length may vary per round
    "block": AcceptanceModel(allows=("block", "depth")),
    # a draft whose length varies round by round (a match of varying length), none in some rounds
    "variable-depth": AcceptanceModel(allows=("depth",)),
    # a round finds a match and drafts γ tokens, or drafts nothing (prompt lookup)
    "mixture": AcceptanceModel(allows=("mixture",)),
}


def preset_features(shape: Shape, mixture: bool) -> tuple[str, ...]:
    """The parts beyond a chain that one preset has."""
    present = {"block": shape.block is not None, "depth": shape.depth is not None, "tree": shape.branches > 1,
               "mixture": mixture, "context": shape.half_life is not None}
    return tuple(name for name in FEATURES if present[name])


def check_model(method: str, model: str, shape: Shape, mixture: bool, where: str) -> None:
    """PresetError, naming the file, when the preset has a part its method's model does not have."""
    feature = MODELS[model].refused(preset_features(shape, mixture))
    if feature is not None:
        raise PresetError("methoderr.preset_model", where=where, method=method, model=model, feature=feature)
