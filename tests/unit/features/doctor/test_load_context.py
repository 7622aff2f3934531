"""Doctor's load and context findings, and what the verification rule and a too-large /props make of
the findings (load_context.py, verification.py), on windows folded by the watch's own model."""

from __future__ import annotations

from specview.features.doctor.finding import HIGH, LOW, MEDIUM, OK, PROBLEM, WARN, told
from specview.features.doctor.observe import Observation
from specview.features.doctor.rules import diagnose
from specview.features.watch.model import Scrape, WatchModel
from specview.features.watch.model.by_load import LoadTable
from specview.kernel.context_acceptance import ContextFold
from specview.texts.catalog import Phrase

GAUGE = "llamacpp:requests_processing"


def served(*scrapes: Scrape, notes: tuple[str, ...] = ()) -> Observation:
    """An n-gram llama-server's window over `scrapes`, each poll placed by load as `observe` does."""
    model, table = WatchModel(), LoadTable(GAUGE)
    for scrape in scrapes:
        sample = model.feed(scrape)
        if sample is not None:
            table.add(sample)
    return Observation("http://h:1", "llama-server", "n-gram (ngram-simple)", 3, True, 10.0, first=scrapes[0],
                       last=scrapes[-1], totals=model.totals(), samples=len(scrapes) - 1, prefix="llamacpp",
                       tokens_source="tokens", by_load=table, notes=notes)


def loaded() -> Observation:
    """Two polls at 1 running request (10 tok/s), two at 2 (8 tok/s in all: 4 per request)."""
    return served(Scrape(0.0, 0, 0, 0, (0, 0, 0), tokens=0, active=1),
                  Scrape(1.0, 4, 12, 8, (4, 3, 1), tokens=10, active=1),
                  Scrape(2.0, 8, 24, 16, (8, 6, 2), tokens=20, active=1),
                  Scrape(3.0, 12, 36, 20, (11, 7, 2), tokens=28, active=2),
                  Scrape(4.0, 16, 48, 24, (14, 8, 2), tokens=36, active=2))


def test_acceptance_and_tokens_per_second_are_said_per_level_of_running_requests() -> None:
    (found,) = [f for f in diagnose(loaded()) if f.id.startswith("load")]
    assert (found.id, found.severity, found.reason) == ("load", OK, "load_levels")
    said = found.said("en")
    assert "1 → α" in said and "10.0 tok/s (10.0 per request)" in said and "8.0 tok/s (4.0 per request)" in said
    values = {e.name: e.value for e in found.evidence}
    assert values["tokens_per_s_at_2"] == 8.0 and values["per_request_at_2"] == 4.0
    assert "按运行中的请求数" in found.said("zh") and "token/s（每个请求 4.0）" in found.said("zh")


def test_with_a_measured_speedup_the_load_where_it_stops_paying_is_named() -> None:
    obs = loaded()
    obs.speed_on, obs.speed_on_source = 12.0, told("measured")
    obs.baseline_tps, obs.baseline_source = 10.0, told("baseline")
    (found,) = [f for f in diagnose(obs) if f.id.startswith("load")]
    # 1.2× at one request; per request 10 → 4 tok/s at two: 1.2 × 4 ÷ 10 = 0.48×
    assert (found.id, found.severity, found.fields["crossover"], found.fields["estimate"]) == (
        "load_crossover", WARN, 2, "0.48")
    assert "falls from 1 running requests, is 0.48× at 2" in found.said("en") and found.confidence == LOW
    obs.speed_on = 30.0  # 3× at one request: 1.2× at two, still paying
    (found,) = [f for f in diagnose(obs) if f.id.startswith("load")]
    assert (found.id, found.fields["estimate"]) == ("load_pays", "1.20")


def test_a_server_gives_no_acceptance_by_context_and_doctor_says_so() -> None:
    (found,) = [f for f in diagnose(loaded()) if f.id.startswith("context")]
    assert (found.id, found.confidence, found.reason) == ("context_unknown", HIGH, "context_not_exported")
    assert "cannot tell" in found.said("en")


def test_a_local_runs_context_buckets_show_a_fall() -> None:
    fold = ContextFold(width=16)
    for position in range(0, 64, 4):  # α 0.9 over the first 32 output tokens, then 0.2
        good = position < 32
        fold.add(4, 40, 40, 36 if good else 8)
    obs = loaded()
    obs.local, obs.context = True, fold.snapshot()
    (found,) = [f for f in diagnose(obs) if f.id.startswith("context")]
    assert (found.id, found.severity) == ("context_decay", WARN)
    assert "0–16: α 0.90" in found.said("en") and "0.70" in found.said("en")


def test_fly_is_a_finding_with_the_lossless_flag() -> None:
    found = diagnose(loaded())
    assert not [f for f in found if f.id.startswith("lossy")]
    (fly,) = [f for f in diagnose(served(*_two(), notes=("vllm_fly_lossy",))) if f.id.startswith("lossy")]
    assert (fly.id, fly.severity, fly.confidence) == ("lossy_fly", WARN, HIGH)
    assert fly.flag is not None and "rejection_sample_method" in fly.flag and "FLy" in fly.said("en")


def test_a_props_too_large_to_read_is_its_own_line_naming_the_source_and_the_limit() -> None:
    obs = served(*_two())
    obs.set_aside.append(Phrase("doctor.set_aside_text.props_large", url=obs.url, mib=8))
    (found,) = [f for f in diagnose(obs) if f.id == "props_large"]
    assert found.severity == WARN and found.severity != PROBLEM
    said = found.said("en")
    assert "http://h:1/props is over 8 MiB" in said and "dropped unread (not absent)" in said
    assert not [f for f in diagnose(obs) if f.id == "set_aside"]  # the counters stand: not set aside


def _two() -> tuple[Scrape, Scrape]:
    return Scrape(0.0, 0, 0, 0, (0,), tokens=0, active=1), Scrape(1.0, 4, 4, 2, (2,), tokens=6, active=1)


def test_what_a_llama_server_says_of_its_drafts_vocabulary() -> None:
    obs = served(*_two())
    assert not [f for f in diagnose(obs) if f.id.startswith("vocab")]  # n-gram: no draft vocabulary
    obs.method = "draft model (draft-simple)"  # drafting with a model: it passed llama.cpp's check at start
    (found,) = [f for f in diagnose(obs) if f.id.startswith("vocab")]
    assert (found.id, found.severity, found.confidence) == ("vocab_checked", OK, MEDIUM)
    obs.method = "MTP (draft-mtp)"  # the target's own head: its vocabulary
    assert not [f for f in diagnose(obs) if f.id.startswith("vocab")]
    plain = Observation("http://h:1", "llama-server", None, None, False, 1.0, first=Scrape(0.0, tokens=0),
                        last=Scrape(1.0, tokens=5), totals=WatchModel().totals(), prefix="llamacpp")
    (found,) = [f for f in diagnose(plain) if f.id.startswith("vocab")]  # off: a dropped draft looks the same
    assert (found.id, found.confidence) == ("vocab_dropped", LOW)
    assert "the target and draft vocabs are not compatible" in found.said("en")
    assert "--target T.gguf --draft D.gguf" in found.said("en")
