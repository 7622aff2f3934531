"""The built-in simulator: exact rejection sampling over synthetic p and q.

At each absolute position the target p puts most of its mass on the next token of a
bundled passage (so the stream reads like text) and the rest on a few alternatives.
The draft is q = β·p + (1 − β)·r with r supported off p's support, so the per-position
acceptance Σ min(p, q) is exactly β, the preset's value at that draft position. Rounds
are timed on a virtual clock from the preset's forward time and draft cost c.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Iterator
from functools import cache
from importlib import resources

from specview.catalog.presets import Preset
from specview.kernel.backend import BackendInfo, BackendKind, Exact, Note, Pace
from specview.kernel.errors import BackendError
from specview.kernel.event_build import round_event
from specview.kernel.events import Basis, Calibration, Round
from specview.kernel.langs import LANGS, detect_lang
from specview.kernel.theory import MAX_GAMMA

_EN_TOKEN = re.compile(r"\s?[A-Za-z']+|\s?\d+|\s?[^\sA-Za-z\d]|\s+")
_WORD = re.compile(r"[^ \n]+|\n")  # a word of a segmented passage, or a line break


@cache
def _vocabulary(lang: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """One language's passage tokens (its vocabulary) and the passage as token ids."""
    source = resources.files("specview") / "texts" / f"passage.{lang}.txt"
    text = source.read_text(encoding="utf-8").strip() + "\n\n"
    # English splits into words; Chinese has no spaces of its own, so its passage is written word by
    # word with a space between words (hand-segmented) and each word is one token
    pieces = _EN_TOKEN.findall(text) if lang == "en" else _WORD.findall(text)
    vocab = sorted(set(pieces))
    index = {p: i for i, p in enumerate(vocab)}
    return tuple(vocab), tuple(index[p] for p in pieces)


class SimBackend:
    """Seeded simulator for one preset; the same seed gives the same run."""

    def __init__(
        self,
        preset: Preset,
        *,
        gamma: int | None = None,
        temperature: float | None = None,
        seed: int = 0,
        lang: str | None = None,
        prompt: str | None = None,
        speed: float = 1.0,
        max_rounds: int | None = None,
    ) -> None:
        self.preset = preset
        self.gamma = preset.gamma if gamma is None else gamma
        if not 1 <= self.gamma <= MAX_GAMMA:
            raise BackendError("backenderr.sim.gamma", most=MAX_GAMMA, gamma=self.gamma)
        self.temperature = preset.temperature if temperature is None else temperature
        if not 0.0 <= self.temperature <= 5.0:
            raise BackendError("backenderr.sim.temperature", temperature=self.temperature)
        self.seed = seed
        self.lang = lang or detect_lang(prompt)
        if self.lang not in LANGS:
            raise BackendError("backenderr.sim.lang", langs=", ".join(LANGS), lang=repr(self.lang))
        self.pace = Pace(speed)
        self.max_rounds = max_rounds
        self.acceptance = preset.acceptance_at(self.temperature, self.gamma)
        # the prompt is context the output follows (it counts for acceptance by context position)
        self.prompt_tokens = len(_EN_TOKEN.findall(prompt) if self.lang == "en" else prompt) if prompt else 0
        self._info = BackendInfo(
            backend=BackendKind.SIM,
            label=preset.id,
            gamma=self.gamma,
            temperature=self.temperature,
            preset=preset.id,
            seed=seed,
            virtual_clock=True,
            exact={Exact.ACCEPTANCE: True, Exact.TAU: True, Exact.PER_POSITION: True},
            notes=(Note("sim"),),
            pace=self.pace,
            cpu_bound=speed <= 0,  # flat out it never waits: the UI runs it in a child process
            provenance=preset.provenance_json(),
            prompt_tokens=self.prompt_tokens,
        )

    @property
    def info(self) -> BackendInfo:
        return self._info

    def close(self) -> None:
        """Nothing to release."""

    def rounds(self, stop: threading.Event) -> Iterator[Round | Calibration]:
        """The preset's assumed costs first (a target forward of any width costs `target_ms`), then rounds.

        A mixture preset (prompt lookup) drafts γ tokens in the share of rounds that find a
        match and nothing in the others (a plain round). A preset with depth weights draws each
        round's γ from them (a verify length chosen per round, a match of varying length), and
        one whose acceptance decays with context scales it at each round's absolute position.
        """
        # numpy is imported here, on the producer thread, so the first frame does not wait for it.
        from specview.backends.sim.model import SimModel

        vocab, passage = _vocabulary(self.lang)
        model = SimModel(vocab, passage, self.acceptance, self.temperature, self.seed)
        t_target = self.preset.target_ms / 1000.0
        yield Calibration(Basis.ASSUMED, t_target, (t_target,) * (self.gamma + 1))
        match_rate = self.preset.match_rate
        matches = random.Random(self.seed)  # its own stream: presets without a mixture draw exactly as before
        shape = self.preset.shape
        depth = shape.depth_at(self.gamma)
        depths = range(self.gamma + 1)
        clock, position, index = 0.0, 0, 0
        size = len(passage)
        due = time.monotonic()
        while not stop.is_set() and (self.max_rounds is None or index < self.max_rounds):
            if depth is not None:
                gamma = matches.choices(depths, depth)[0]
            else:
                gamma = self.gamma if match_rate is None or matches.random() < match_rate else 0
            t_draft = gamma * self.preset.c * t_target
            start = position % size
            intended = (passage[start:start + gamma + 1] if start + gamma < size  # the passage repeats
                        else [passage[(position + k) % size] for k in range(gamma + 1)])
            tokens, discarded, emitted = model.verify(intended, gamma,
                                                      shape.context_factor(self.prompt_tokens + position))
            clock += t_draft + t_target
            yield round_event(index, gamma, tokens, t_draft, t_target, clock, discarded)
            position += emitted
            index += 1
            speed = self.pace.speed
            if speed > 0:
                # Pace incrementally so a speed change takes effect at once; never build up debt.
                now = time.monotonic()
                due = max(due + (t_draft + t_target) / speed, now - 0.25)
                if due > now and stop.wait(due - now):
                    return

