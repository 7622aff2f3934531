"""One finding of `specview doctor`: what it says, on what evidence, how sure, and what to change.

The JSON shape (`to_dict`) is the stable schema of `doctor --json`: `id` (catalog id
`doctor.finding.<id>`), `severity` (ok / warn / problem), `confidence` {`level` high / medium /
low, `reason` id, `text`}, `text` (the finding in the asked language), `evidence` [{`name`,
`value`, `source`}], `flag` (the exact flag to change, or null). An evidence's `source` (and a
value in words) is said in the user's language in the text and on the screen, and in English in the
JSON whatever `--lang` (a script compares it across languages).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from specview.texts.catalog import FALLBACK, Phrase, fill

OK, WARN, PROBLEM = "ok", "warn", "problem"
HIGH, MEDIUM, LOW = "high", "medium", "low"


JSON_LANG = FALLBACK  # the language of the evidence's words in `--json`, whatever the asked one


def _said(value: object, lang: str) -> object:
    return value.render(lang) if isinstance(value, Phrase) else value


@dataclass(frozen=True, slots=True)
class Evidence:
    """A number a finding rests on, and where it came from (a metric, an endpoint, a probe).

    `source` is a Phrase (catalog `doctor.evidence.*`: words, rendered in the reader's language)
    or a str that is only a verbatim name: a metric, an endpoint, a flag, a field of an answer.
    """

    name: str
    value: float | int | str | Phrase | None
    source: Phrase | str

    def to_dict(self) -> dict[str, Any]:
        value = round(self.value, 4) if isinstance(self.value, float) else _said(self.value, JSON_LANG)
        return {"name": self.name, "value": value, "source": _said(self.source, JSON_LANG)}

    def shown(self, lang: str) -> str:
        if self.value is None:  # not known (a counter the server does not give): a dash, as the gauges say it
            value = "—"
        else:
            value = f"{self.value:.3g}" if isinstance(self.value, float) else str(_said(self.value, lang))
        return fill("doctor.evidence.line", lang, name=self.name, value=value, source=_said(self.source, lang))


@dataclass(frozen=True, slots=True)
class DoctorFinding:
    id: str
    severity: str
    confidence: str
    reason: str  # catalog id under doctor.why.
    fields: dict[str, object] = field(default_factory=dict)  # what the finding's text fills in
    evidence: tuple[Evidence, ...] = ()
    flag: str | None = None
    chart: tuple[Phrase | str, ...] = ()  # lines drawn under the evidence (a histogram; its scale said first)

    def chart_lines(self, lang: str) -> list[str]:
        return [line.render(lang) if isinstance(line, Phrase) else line for line in self.chart]

    def said(self, lang: str) -> str:
        return Phrase(f"doctor.finding.{self.id}", **self.fields).render(lang)

    def why(self, lang: str) -> str:
        return Phrase(f"doctor.why.{self.reason}").render(lang)

    def to_dict(self, lang: str) -> dict[str, Any]:
        return {"id": self.id, "severity": self.severity, "text": self.said(lang),
                "confidence": {"level": self.confidence, "reason": self.reason, "text": self.why(lang)},
                "evidence": [e.to_dict() for e in self.evidence], "flag": self.flag}


def told(key: str, /, **fields: object) -> Phrase:
    """An evidence's source in words: `doctor.evidence.<key>` (texts/doctor_evidence.<lang>.toml)."""
    return Phrase(f"doctor.evidence.{key}", **fields)
