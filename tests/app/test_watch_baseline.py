"""The monitor with `--baseline URL`: a plain server scraped beside the watched one (both real HTTP
servers, llama-server look-alikes); its load table compares each level with the plain server's
own and says the crossover's basis and source, in both languages."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from specview.features.watch.app import WatchApp
from specview.features.watch.screen import WatchScreen
from specview.features.watch.source import ServerWatch
from specview.features.watch.source.plain_feed import PlainFeed
from specview.kernel.langs import LANGS
from specview.texts.catalog import fill, text
from tests.support.app_helpers import wait_until
from tests.support.exporter import exporters


@pytest.mark.parametrize("lang", LANGS)
async def test_the_monitors_load_table_compares_with_the_plain_server_it_scrapes(lang: str) -> None:
    with exporters(2) as (spec, plain):
        app = WatchApp(ServerWatch(spec.root), 0.05, lang=lang, plain=PlainFeed(ServerWatch(plain.root)))
        async with app.run_test(size=(140, 50)) as pilot:
            watch = app.screen
            assert isinstance(watch, WatchScreen)

            def moved() -> bool:  # both servers busy with one request, as the pump polls
                spec.advance(4, (4, 3, 2), running=1)
                plain.advance(0, (), tokens=8, running=1)
                return watch.by_load.crossover().compared != ()

            await wait_until(pilot, moved)
            await wait_until(pilot, lambda: text("watch.load.basis_measured", lang)
                             in str(watch.query_one("#watch-load", Static).render()))
            shown = str(watch.query_one("#watch-load", Static).render())
            assert fill("watch.load.crossover_basis", lang, basis=text("watch.load.basis_measured", lang),
                        source=plain.root) in shown
            assert text("watch.load.crossover", lang) not in shown  # no "no baseline"
