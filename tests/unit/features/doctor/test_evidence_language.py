"""doctor's evidence in the reader's language: every finding kind's sources (and values in words)
said in Chinese, no English word left beside the names that stay as written (metrics, endpoints,
flags, units, symbols); --json gives the same English sources whatever --lang."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from specview.backends.factory import make_backend
from specview.features.doctor.finding import DoctorFinding, Evidence
from specview.features.doctor.local import LocalRun, observation, runs_finding
from specview.features.doctor.observe import Observation
from specview.features.doctor.off_baseline import apply
from specview.features.doctor.probe import ProbeResult
from specview.features.doctor.render import as_json, detail_lines
from specview.features.doctor.rules import diagnose, pays
from specview.features.doctor.through_prometheus import VIA
from specview.features.doctor.verification import vocab_local
from specview.features.watch.model import Scrape, WatchModel
from specview.features.watch.model.by_load import LoadTable
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from specview.texts.catalog import Phrase

GAUGE = "llamacpp:requests_processing"
# a Latin word standing alone (not inside /props, --off, 1.2e-04); a name with : _ . in it is a metric,
# an endpoint's or an answer's field, kept as written
WORD = re.compile(r"(?<![\w/:.\-])[A-Za-z][A-Za-z0-9_]*(?:[:.\-][A-Za-z0-9_]+)*")
NAMES = {"vLLM", "GGUF", "Prometheus", "Tukey", "token", "tok", "c", "p"}  # proper names, units, symbols
URL = re.compile(r"\w+://\S+")


def server(*scrapes: Scrape, engine: str = "llama-server", method: str | None = "n-gram (ngram-simple)",
           via: str | None = None, probes: list[ProbeResult] | None = None) -> Observation:
    """A window folded by the watch's own model, each poll placed by load as `observe` does."""
    model, table = WatchModel(), LoadTable(GAUGE)
    for scrape in scrapes:
        sample = model.feed(scrape)
        if sample is not None:
            table.add(sample)
    return Observation("http://h:1", engine, method, 3 if method else None, method is not None, 10.0,
                       first=scrapes[0], last=scrapes[-1], totals=model.totals(), samples=len(scrapes) - 1,
                       prefix="llamacpp", tokens_source="llamacpp:tokens_predicted_total", by_load=table,
                       via=via, probes=probes or [], notes=("vllm_fly_lossy",) if engine == "vllm" else ())


def loaded(engine: str = "llama-server", via: str | None = None,
           probes: list[ProbeResult] | None = None) -> Observation:
    gauges = {"sglang:spec_accept_length": 2.5}
    return server(Scrape(0.0, 0, 0, 0, (0, 0, 0), tokens=0, active=1),
                  Scrape(1.0, 4, 12, 8, (4, 3, 1), tokens=10, active=1),
                  Scrape(2.0, 8, 24, 16, (8, 6, 2), tokens=20, active=1),
                  Scrape(3.0, 12, 36, 20, (11, 7, 2), tokens=28, active=2),
                  Scrape(4.0, 16, 48, 24, (14, 8, 2), tokens=36, active=2, gauges=gauges),
                  engine=engine, via=via, probes=probes)


def probe(rid: str, accepted: int, drafted: int) -> ProbeResult:
    return ProbeResult(48, 1000.0, drafted, accepted, 1.0, request_id=rid, counts_source="timings.draft_n")


def local() -> list[DoctorFinding]:
    """A local pair's findings, from two simulated runs through the loop `bench` runs."""
    spec = RunSpec(preset="qwen3.6-mtp", seed=1, speed=0.0, max_rounds=200)
    runs = []
    for one in (spec, replace(spec, plain=True)):
        session = Session(make_backend(one))
        for _ in session.run_headless():
            pass
        runs.append(LocalRun(session.metrics.snapshot(), 1.0))
    run, plain = runs
    return [runs_finding(run, plain), *diagnose(observation("t.gguf + d.gguf", "d.gguf", spec, run, plain))]


def every_finding() -> list[DoctorFinding]:
    found = diagnose(loaded(probes=[probe(f"cmpl-{i}", 10 + i % 2, 40) for i in range(6)]
                            + [probe("cmpl-loop", 40, 40)]))
    off = loaded()
    off.probes = [ProbeResult(48, 1000.0, 40, 20, 1.0)]
    apply(off, [ProbeResult(48, 2000.0, wall_s=1.0)], "http://plain:8081")
    found += diagnose(off)
    found.append(pays(loaded(probes=[ProbeResult(48, 1000.0, 40, 20, 1.0)]), 10.0))  # --baseline-tps
    found += diagnose(loaded(via=VIA))
    found += diagnose(loaded(engine="vllm"))
    found += diagnose(server(Scrape(0.0, 0, 0, 0, tokens=0), Scrape(10.0, 0, 0, 0, tokens=80)))  # idle
    found += diagnose(server(Scrape(0.0, 0, 0, 0, (0, 0, 0), tokens=0),  # every draft verified to its end
                             Scrape(10.0, 10, 30, 29, (10, 10, 9), tokens=40), method="draft model (draft-simple)"))
    found += diagnose(server(Scrape(0.0, tokens=0, active=0), Scrape(10.0, tokens=0, active=0), method=None))
    found += diagnose(loaded(probes=[ProbeResult(48, 1000.0, None, None, 1.0)]))  # no counts: spread_none
    found.append(vocab_local(Phrase("backenderr.vocab.types", target="spm", draft="bpe"), "t.gguf", "d.gguf"))
    return found + local()


def words(e: Evidence, lang: str) -> Iterator[str]:
    """The evidence's words we wrote (its source, a value in words), in `lang`."""
    for said in (e.source, e.value):
        if isinstance(said, Phrase) or said is e.source:
            yield URL.sub("", str(said.render(lang) if isinstance(said, Phrase) else said))


def test_every_findings_evidence_is_said_in_chinese() -> None:
    found = every_finding()
    kinds = {f.id for f in found if f.evidence}
    assert kinds >= {"on", "idle", "off", "pays_measured", "pays_unknown", "numbers", "numbers_differ", "load",
                     "load_crossover", "load_none", "context_flat", "local_runs", "spread_outliers", "spread_none",
                     "lossy_fly", "vocab_mismatch", "vocab_checked"} and any(k.startswith("gamma_") for k in kinds)
    left = {(f.id, e.name, word) for f in found for e in f.evidence for text in words(e, "zh")
            for word in WORD.findall(text) if word not in NAMES and not set(word) & set(":_.")}
    assert not left
    shown = "\n".join(line for f in found for line in detail_lines(f, "zh"))
    assert "本地运行" in shown and "理论值" in shown and "服务器自己的计时" in shown and "Σ 接受数" in shown


def test_the_json_sources_are_the_same_english_whatever_the_language() -> None:
    found = every_finding()
    reports = [(loaded(), found)]
    sources = [[e["source"] for f in s["findings"] for e in f["evidence"]] for lang in ("en", "zh")
               for s in as_json(reports, lang)["servers"]]
    assert sources[0] == sources[1] and "theory" in sources[0] and "run tok/s ÷ calibrated plain tok/s" in sources[0]
    assert not any(re.search(r"[\u4e00-\u9fff]", s) for s in sources[0])
