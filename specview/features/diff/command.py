"""`specview diff`: is greedy speculation lossless on my model? The same prompt at T = 0 with and
without speculation, token by token.

    specview diff --target T.gguf --draft ngram --gamma 4 --prompt …   # plain vs speculative, local
    specview diff --target T.gguf --draft D.gguf --tree 2x3 --prompt …  # plain vs a draft tree
    specview diff url:http://host:8081/v1 url:http://host:8080/v1      # two server configurations

Identical runs say so (exit 0). Otherwise the first divergence is shown with both tokens, the
round it happened in and, locally, the target's logit margin there and its cause: the target
re-run on the speculative run's own batches (a chain's or a tree's) tells kernel numerics (the
loop is exact: exit 0) from a defect of the speculative path (exit 1, like diff(1)).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TYPE_CHECKING

from specview.cli.argtypes import Parser, SubParsers

if TYPE_CHECKING:
    from specview.features.diff.model import Cause, DiffResult


def register(sub: SubParsers, selectors: Parser) -> None:
    diff = sub.add_parser("diff", parents=[selectors], help="cli_help.diff.help",
                          description="cli_help.diff.description")
    diff.add_argument("selectors", nargs="*", metavar="SELECTOR", help="cli_help.diff.selectors")
    diff.add_argument("--json", action="store_true", help="cli_help.diff.json")
    diff.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from specview.cli.errors import CliError
    from specview.cli.runspec_args import spec_from_args, specs_from_args, specs_key_notice, warn_notice
    from specview.features.diff.runner import compare_specs
    from specview.kernel.langs import DEFAULT_LANG

    base = replace(spec_from_args(args, speed=0.0), temperature=0.0)
    chosen = getattr(args, "selectors", None) or []
    if chosen:
        if len(chosen) != 2:
            raise CliError("differr.two_runs")
        ref_spec, cand_spec = (replace(spec, temperature=0.0).plain_reference()
                               for spec in specs_from_args(args, speed=0.0, max_rounds=None))
    elif base.kind == "llama":
        ref_spec, cand_spec = replace(base, plain=True).plain_reference(), replace(base, plain=False)
    else:
        raise CliError("differr.needs_local")
    if "sim" in (ref_spec.kind, cand_spec.kind):
        raise CliError("differr.not_sim")
    lang = getattr(args, "lang", None) or DEFAULT_LANG
    warn_notice(specs_key_notice([ref_spec, cand_spec], lang))
    if "llama" in (ref_spec.kind, cand_spec.kind):  # both runs, the margin and the replay in llama.cpp's process
        from specview.backends.local.engine_process import engine_call

        result, model = engine_call("specview.features.diff.runner:compare_specs", ref_spec, cand_spec)
    else:
        result, model = compare_specs(ref_spec, cand_spec)
    from specview.boundary.jsonio import dumps

    if ref_spec.kind == "llama":  # Learn 6 explains the greedy case with this verdict (last.py)
        from specview.features.diff.last import save

        save(result, model)
    print(dumps(result.to_dict()) if args.json else describe(result, lang))
    return 0 if result.lossless else 1


def describe(result: DiffResult, lang: str) -> str:
    """The verdict for people (labels and tokens come from outside: made safe)."""
    from specview.boundary.bounds import MAX_TOKEN_SHOWN
    from specview.boundary.text import sanitize
    from specview.texts.catalog import fill, text

    head = [f"{text('diff.reference', lang)}: {sanitize(result.reference_label, 200, one_line=True)}",
            f"{text('diff.candidate', lang)}: {sanitize(result.candidate_label, 200, one_line=True)}"]
    d = result.divergence
    if d is None:
        return "\n".join([*head, fill("diff.identical", lang, n=result.compared)])
    lines = [*head, fill("diff.first", lang, n=d.index + 1)]
    lines.append(f"  {text('diff.after', lang)}: …{sanitize(d.prefix[-60:], one_line=True)!r}")
    for name, tok in ((text("diff.reference", lang), d.reference), (text("diff.candidate", lang), d.candidate)):
        if tok is None:
            lines.append(f"  {name}: {text('diff.ended', lang)}")
            continue
        ident = f", {fill('diff.token_id', lang, id=tok.token_id)}" if tok.token_id is not None else ""
        shown_text = sanitize(tok.text, MAX_TOKEN_SHOWN, one_line=True)
        lines.append(f"  {name}: {shown_text!r}{ident} · {text('diff.round', lang)} {tok.round} · "
                     f"{text(f'token.{tok.status}', lang)}")
    m, cause = result.margin, result.cause
    if m is not None:
        gap = fill("diff.gap", lang, gap=f"{m.top1_minus_top2:.4f}")
        line = f"  {text('diff.margin', lang)} {m.margin:+.4f} · {gap}"
        if cause is None:  # no replay of the speculative batches: the margin is all there is to go on
            line += " · " + (text("diff.near_tie", lang) if m.near_tie else text("diff.not_lossless", lang))
        else:
            line += f" ({text('diffcause.one_token', lang)})"
        lines.append(line)
    lines += _cause_lines(cause, lang)
    return "\n".join(lines)


def _cause_lines(cause: Cause | None, lang: str) -> list[str]:
    from specview.features.diff.model import DEFECT, NUMERICS
    from specview.texts.catalog import fill

    if cause is None:
        return []
    if cause.kind == DEFECT and cause.defect_at is not None:
        return [f"  {fill('diffcause.defect', lang, n=cause.defect_at + 1)}"]
    if cause.kind != NUMERICS or cause.position is None:
        return []
    out = []
    if cause.batched is not None:
        out.append(f"  {fill('diffcause.batched', lang, margin=f'{cause.batched.margin:+.4f}')}")
    shift = "?" if cause.logit_shift is None else f"{cause.logit_shift:.4f}"
    numerics = fill("diffcause.numerics", lang, width=cause.batch_width, position=cause.position + 1, shift=shift)
    out.append(f"  {numerics}")
    return out
