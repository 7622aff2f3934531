"""The watch's requests pane against a real llama-server while a request runs: /slots per slot.

The tiny MTP model drafts with synthetic acceptance on 2 slots; one long completion runs in a
thread while the watcher reads /slots. What this build tells per slot (tokens decoded and left,
prompt tokens; no draft counts: those go to /metrics, for the whole server) is what the pane
shows, and the pane says that the drafts are not per slot.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx
import pytest

from specview.features.watch.app import WatchApp
from specview.features.watch.model.requests import RequestsNow
from specview.features.watch.source import ServerWatch
from specview.kernel.langs import LANGS
from specview.texts.catalog import text
from tests.support.app_helpers import wait_until
from tests.support.catalog_walk import screen_text
from tests.support.llama_server import RunningServer, llama_server, server_binary
from tests.support.mtp_gguf import write_tiny_mtp

pytestmark = pytest.mark.skipif(server_binary() is None, reason="llama-server not built (make llama-server)")

MTP_ARGS = ("--spec-type", "draft-mtp", "--spec-draft-n-max", "3", "--spec-synth-rates", "0.9,0.7,0.5")
MAX_TOKENS = 1500  # long enough to be caught running on a slow, shared machine


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    model = write_tiny_mtp(tmp_path_factory.mktemp("slots") / "tiny-mtp.gguf")
    with llama_server(MTP_ARGS, model=str(model), parallel=2) as running:
        yield running


class Request:
    """One long completion in a thread, for as long as the `with` block (or until it ends)."""

    def __init__(self, server: RunningServer) -> None:
        self.server = server
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        body = {"prompt": "the cat sat on", "max_tokens": MAX_TOKENS, "temperature": 0.0, "ignore_eos": True}
        httpx.post(f"{self.server.url}/completions", json=body, timeout=120)

    def __enter__(self) -> Request:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.thread.join(120)


def busy(watch: ServerWatch) -> RequestsNow | None:
    """The requests now, once a slot is decoding."""
    now = watch.requests()
    return now if any(s.busy and (s.decoded or 0) > 0 for s in now.slots) else None


def test_slots_show_each_running_request_and_say_drafts_are_not_per_slot(server: RunningServer) -> None:
    watch = ServerWatch(server.url)
    try:
        idle = watch.requests()
        assert idle.total == 2 and [s.busy for s in idle.slots] == [False, False]
        with Request(server):
            now = None
            for _ in range(2000):
                now = busy(watch)
                if now is not None:
                    break
            assert now is not None, "no slot was seen decoding"
        slot = now.slots[0]  # busy first
        assert slot.busy and slot.decoded is not None and slot.remaining is not None
        assert slot.decoded + slot.remaining == MAX_TOKENS  # what it did and has left: the request's budget
        assert slot.prompt is not None and slot.prompt > 0
        assert slot.drafted is None  # this build keeps drafts for /metrics
        assert now.note == "llama_no_drafts" and [s.busy for s in now.slots] == [True, False]
    finally:
        watch.close()


@pytest.mark.parametrize("lang", LANGS)
async def test_the_watch_screen_lists_the_running_slot(server: RunningServer, lang: str) -> None:
    app = WatchApp(ServerWatch(server.url), interval=0.05, lang=lang)
    async with app.run_test(size=(130, 40)) as pilot:
        screen = app.screen
        with Request(server):
            await wait_until(pilot, lambda: any(s.busy for s in (getattr(screen, "requests_now", None)
                                                                 or RequestsNow()).slots), timeout=60)
            slot_word = text("watch.requests.slot", lang).split("{")[0].strip()  # "slot" / "槽位"
            wanted = (text("watch.requests.title", lang), slot_word, text("watch.requests.llama_no_drafts", lang)[:20])
            # the pump draws what the thread found: wait for the drawing, not a fixed time
            await wait_until(pilot, lambda: all(w in screen_text(app) for w in wanted), timeout=60)
