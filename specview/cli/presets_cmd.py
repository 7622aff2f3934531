"""`specview presets`: the presets, their numbers and where the numbers come from."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from specview.cli.argtypes import Parser, SubParsers

if TYPE_CHECKING:
    from specview.methods.registry import Method


def run_presets(as_json: bool) -> int:

    from specview.boundary.jsonio import dumps
    from specview.boundary.text import sanitize
    from specview.catalog.presets import load_presets
    from specview.methods.registry import methods

    presets = load_presets()  # skipped user preset files: reported with the config's problems (cli/config_report.py)
    if as_json:
        out = [
            {
                "id": p.id,
                "label": p.label,
                "method": p.method,
                "method_unit": _method_json(methods()[p.method]),
                "gamma": p.gamma,
                "temperature": p.temperature,
                "c": p.c,
                "target_ms": p.target_ms,
                "acceptance": [round(a, 4) for a in p.acceptance_at(p.temperature)],
                "tau": round(p.declared_tau(), 4),
                "speedup": round(p.speedup_at(p.temperature), 4),
                "match_rate": None if p.match_rate is None else round(p.match_rate, 4),
                "sources": [{"id": s.id, "title": s.title, "url": s.url, "tag": s.tag} for s in p.sources],
                "provenance": p.provenance_json(),
                "position_note": p.position_note,
                "run": p.run,
                "origin": p.origin,
            }
            for p in presets.values()
        ]
        print(dumps(out, indent=1))
        return 0
    for p in presets.values():  # user presets are text from outside: every field sanitised
        acc = " ".join(f"{a:.2f}" for a in p.acceptance_at(p.temperature))
        kind = {name: p.field_source(name).kind for name in ("gamma", "temperature", "acceptance", "c", "target_ms")}
        print(f"{sanitize(p.id, 60, one_line=True):<16} {sanitize(p.label, 200, one_line=True)}")
        print(f"{'':<16} γ {p.gamma} ({kind['gamma']}) · T {p.temperature:g} ({kind['temperature']}) · "
              f"τ {p.declared_tau():.2f} · c {p.c:g} ({kind['c']}) · {p.target_ms:g} ms/forward ({kind['target_ms']})")
        print(f"{'':<16} acceptance {acc} ({kind['acceptance']})")
        for finding in p.findings:
            print(f"{'':<16} finding: {sanitize(finding.text, 400, one_line=True)}")
        for s in p.sources:
            print(f"{'':<16} [{s.tag}] {sanitize(s.title, 300, one_line=True)}  {sanitize(s.url, 300, one_line=True)}")
        print()
    return 0


def _method_json(method: Method) -> dict[str, str]:
    """What a preset's method unit declares: its Learn school, its acceptance model and the model's source."""
    title, url = method.acceptance_source
    return {"school": method.school, "acceptance_model": method.acceptance, "source": title, "url": url}


def register(sub: SubParsers, selectors: Parser) -> None:
    presets = sub.add_parser("presets", help="cli_help.presets.help")
    presets.add_argument("--json", action="store_true", help="cli_help.presets.json")
    presets.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    return run_presets(args.json)
