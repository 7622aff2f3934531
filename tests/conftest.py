"""Shared test set-up: a quiet UI, and one marker per kind of test.

Every test is marked by the folder it lives in (`unit`, `app`, `integration`, `hostile`), and
`slow` when its module starts a real llama-server or vLLM (it imports their helpers), so
`make test-fast` can run the quick ones (`pytest -m "unit and not slow"`; any other marker expression
with `PYTEST_MARK=…`) without compiling anything: it leaves out the tests marked `llama` by hand, those
that need llama-cpp-python. `make test` runs everything.

`make test` spreads the tests one by one over pytest-xdist workers (`--dist loadgroup`); the tests that
share something wider than a test (a module-scoped fixture: a llama-server, a vLLM, Prometheus, sshd, a
served app) form one `xdist_group`, so one worker starts it once and runs them all.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.pytest_compat import fixture_definitions

# Deterministic, quiet UI in tests: no animations, no cursor blink surprises.
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
# pytest-xdist's workers carry COLUMNS=80 and LINES=24 (the runner's terminal); Textual obeys them over
# the size of the pty or tmux pane a test made, so every such test would draw at 80×24.
for _size in ("COLUMNS", "LINES"):
    os.environ.pop(_size, None)
# Tests of the speculative loop read a local backend's insides (its verify batches, its engine), so
# llama.cpp runs in the test's process as it does in the engine's own (backends/local/engine_host.py);
# the engine-process tests (tests/integration/test_engine_process.py) take this away. A native crash
# then ends one pytest-xdist worker: that test fails, naming the signal, and the run goes on.
os.environ.setdefault("SPECVIEW_ENGINE_CHILD", "1")

KINDS = ("unit", "app", "integration", "hostile")
# helper modules whose use means a real llama-server or vLLM process (built by `make test`)
SERVER_HELPERS = ("llama_server", "vllm_server")


@pytest.fixture(autouse=True)
def _no_last_diff(monkeypatch: pytest.MonkeyPatch) -> None:
    """`specview diff` keeps its verdict for Learn 6 (features/diff/last.py): never in the user's
    folder from a test, and each test starts without one."""
    path = Path(tempfile.gettempdir()) / f"specview-test-last-diff-{uuid.uuid4().hex}.json"
    monkeypatch.setenv("SPECVIEW_DIFF_LAST", str(path))
    # the state folder as a whole too: each `sweep` keeps its last result there (features/sweep/saved.py)
    monkeypatch.setenv("XDG_STATE_HOME", str(Path(tempfile.gettempdir()) / f"specview-test-state-{uuid.uuid4().hex}"))


def _starts_servers(module: object) -> bool:
    """Whether a test module uses the llama-server or vLLM helpers (anything it imported from them)."""
    for value in vars(module).values():
        origin = getattr(value, "__module__", None) or getattr(value, "__name__", None)
        if isinstance(origin, str) and origin.rsplit(".", 1)[-1] in SERVER_HELPERS:
            return True
    return False


def _shared_scope(item: pytest.Item) -> str | None:
    """The group of the tests sharing this one's widest fixture: its module's path for a module-scoped
    (or class-scoped) fixture, the fixture's own name for a session- or package-scoped one; None for a
    test whose fixtures are all its own."""
    resolved = fixture_definitions(item)
    if resolved is None:
        return None
    widest = None
    for name, definitions in resolved.items():
        definition = definitions[-1]  # the one this test gets (the nearest overrides the others)
        if not definition.baseid:  # a plugin's (pytest-asyncio's loop policy, syrupy's, tmp_path_factory)
            continue
        scope = definition.scope
        if scope in ("session", "package"):
            return f"fixture-{name}"
        if scope in ("module", "class"):
            widest = item.nodeid.split("::", 1)[0]
    return widest


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups off the markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(__file__).resolve().parent
    slow_modules: dict[str, bool] = {}
    for item in items:
        parts = Path(str(item.path)).resolve().relative_to(root).parts
        if parts and parts[0] in KINDS:
            item.add_marker(getattr(pytest.mark, parts[0]))
        group = _shared_scope(item)
        if group is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))
        module = getattr(item, "module", None)
        if module is None:
            continue
        name = module.__name__
        if name not in slow_modules:
            slow_modules[name] = _starts_servers(module)
        if slow_modules[name]:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _secrets_kept_to_their_test() -> Iterator[None]:
    """The registered secrets are process-wide (boundary/secrets.py): a CLI test given `--api-key`
    must not leave its key for a later test, whose stream the masker would then hold back where its
    text may begin that key."""
    from specview.boundary.secrets import forget_secrets

    yield
    forget_secrets()


@pytest.fixture(autouse=True)
def _plugin_problems_kept_to_their_test(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the plugin surface left out is said once per process, and an app shows what was said
    before it started (specview/plugins/problems.py): a test that plants a broken unit must not
    put its line into a later test's app (a Learn snapshot with a notification in it)."""
    from specview.plugins import problems

    monkeypatch.setattr(problems, "_said", [])
    monkeypatch.setattr(problems, "_seen", set())
