"""One finding of `specview doctor`: what it says, on what evidence, how sure, and what to change.

The JSON shape (`to_dict`) is the stable schema of `doctor --json`: `id` (catalog id
`doctor.finding.<id>`), `severity` (ok / warn / problem), `confidence` {`level` high / medium /
low, `reason` id, `text`}, `text` (the finding in the asked language), `evidence` [{`name`,
`value`, `source`}], `flag` (the exact flag to change, or null).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from specview.texts.catalog import Phrase

OK, WARN, PROBLEM = "ok", "warn", "problem"
HIGH, MEDIUM, LOW = "high", "medium", "low"


@dataclass(frozen=True, slots=True)
class Evidence:
    """A number a finding rests on, and where it came from (a metric, an endpoint, a probe)."""

    name: str
    value: float | int | str | None
    source: str

    def to_dict(self) -> dict[str, Any]:
        value = round(self.value, 4) if isinstance(self.value, float) else self.value
        return {"name": self.name, "value": value, "source": self.source}

    def shown(self) -> str:
        value = f"{self.value:.3g}" if isinstance(self.value, float) else str(self.value)
        return f"{self.name} = {value} ({self.source})"


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
