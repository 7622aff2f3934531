"""How a method's drafts come to be accepted: the acceptance models the simulator knows.

A method unit declares one (`[acceptance] model = …` in its method.toml, with the source that
describes it); a preset of that method may use only the parts of a preset the model has
(catalog/preset_shapes.py): a block drafter's `block`, a tree's `[tree]`, a varying verify length's
`[depth]`, prompt lookup's `[acceptance.mixture]`. Decay with context (`[acceptance.context]`) is
open to every model. A preset whose shape its method cannot have is refused, naming the file.
"""

from __future__ import annotations

from dataclasses import dataclass

from specview.catalog.preset_shapes import Shape
from specview.kernel.errors import PresetError
from specview.texts.catalog import Phrase

FEATURES = ("block", "depth", "tree", "mixture", "context")  # the preset parts a model may need or allow


@dataclass(frozen=True, slots=True)
class AcceptanceModel:
    """The preset parts this model needs (`requires`) and may have (`allows`) beyond a chain."""

    requires: tuple[str, ...] = ()
    allows: tuple[str, ...] = ()

    def mismatch(self, features: tuple[str, ...]) -> tuple[str, str] | None:
        """("needs" | "refuses", feature) for the first part a preset lacks or must not have, else None."""
        for feature in self.requires:
            if feature not in features:
                return "needs", feature
        for feature in features:
            if feature not in self.requires and feature not in self.allows and feature != "context":
                return "refuses", feature
        return None


MODELS = {
    # one chain, a conditional acceptance per position (Leviathan et al. 2022, Eq. 1)
    "chain": AcceptanceModel(),
    # candidates per depth, the first that matches kept (EAGLE-2/3, Medusa's tree); a chain is its 1-branch case
    "tree": AcceptanceModel(allows=("tree",)),
    # B tokens in one forward, acceptance falling along the block; the verify length may vary per round
    "block": AcceptanceModel(requires=("block",), allows=("depth",)),
    # a draft whose length varies round by round (a match of varying length), none in some rounds
    "variable-depth": AcceptanceModel(requires=("depth",)),
    # a round finds a match and drafts γ tokens, or drafts nothing (prompt lookup)
    "mixture": AcceptanceModel(requires=("mixture",)),
}


def preset_features(shape: Shape, mixture: bool) -> tuple[str, ...]:
    """The parts beyond a chain that one preset has."""
    present = {"block": shape.block is not None, "depth": shape.depth is not None, "tree": shape.branches > 1,
               "mixture": mixture, "context": shape.half_life is not None}
    return tuple(name for name in FEATURES if present[name])


def check_model(method: str, model: str, shape: Shape, mixture: bool, where: str) -> None:
    """PresetError, naming the file, when the preset has a part its method's model cannot have, or lacks
    one it needs."""
    found = MODELS[model].mismatch(preset_features(shape, mixture))
    if found is not None:
        how, feature = found
        raise PresetError("methoderr.preset_model", where=where, method=method, model=model,
                          how=Phrase(f"methoderr.preset_{how}"), feature=feature)
