"""One-server watch's baseline: a plain server scraped beside the watched one (a real HTTP server,
a llama-server look-alike), its own load table the measured baseline; a failed scrape skipped and
counted; else the number given; else none."""

from __future__ import annotations

from specview.features.watch.model.crossover import given_baseline
from specview.features.watch.source import ServerWatch
from specview.features.watch.source.plain_feed import PlainFeed
from tests.support.exporter import exporters


def test_the_plain_servers_own_levels_are_the_measured_baseline_and_a_failed_scrape_keeps_them() -> None:
    with exporters(1) as (plain,):
        feed = PlainFeed(ServerWatch(plain.root), given_baseline([(99.0, None)]))  # the server wins
        try:
            feed.poll()  # the first scrape: counters, no window yet
            for tokens in (40, 44, 42):
                plain.advance(0, (), tokens=tokens, running=2)
                feed.poll()
            baseline = feed.baseline()
            assert baseline is not None and (baseline.basis, baseline.source) == ("measured", plain.root)
            (level,) = baseline.levels
            assert level.running == 2 and level.spread is not None and level.per_request > 0
            assert feed.table.rows()[0].tokens == 40 + 44 + 42  # its own windows, as the watched server's
            plain.mode = "error"
            feed.poll()
            after = feed.baseline()
            assert feed.failed == 1 and after is not None and after.levels == baseline.levels
            assert (baseline.unusable, after.unusable) == (0, 1)  # the failed read, said
        finally:
            feed.close()


def test_without_a_server_the_fixed_baseline_or_nothing() -> None:
    given = PlainFeed(fixed=given_baseline([(40.0, None)])).baseline()
    assert given is not None and given.basis == "given" and given.every_level == 40.0
    assert PlainFeed().baseline() is None
    PlainFeed().poll()  # nothing to scrape: nothing happens
