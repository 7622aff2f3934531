"""A unit's texts are found wherever they are rendered, not only once its group was read: a server
kind's note in a replayed recording is rendered by a process that never loads the kinds
(texts/catalog.py: join_unit_texts, reached by `text` on a key no catalog file has)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.limited_run import base_env
from tests.support.planted_dist import plant_distribution

KIND = '''from specview.backends.remote.server_kind import ServerKind


class Planted(ServerKind):
    id = "planted-notes"
    priority = 61


KIND = Planted()
'''
NOTES = {"en": '[note]\nplanted_fragments = "fragments flagged drafted: {n}"\n',
         "zh": '[note]\nplanted_fragments = "标为草稿的片段：{n}"\n'}
RENDER = ("import sys; from specview.texts.catalog import fill; "
          "print(fill('note.planted_fragments', 'zh', n=3)); "
          "print(any(m.endswith('planted_kinds.kind') for m in sys.modules))")


def test_a_kinds_note_is_rendered_by_a_process_that_never_loaded_the_kinds(tmp_path: Path) -> None:
    site = plant_distribution(tmp_path / "site", "specview-planted-notes",
                              {"specview.server_kinds": {"planted": "planted_kinds.kind"}},
                              {"planted_kinds/__init__.py": "", "planted_kinds/kind.py": KIND,
                               **{f"planted_kinds/kind.{lang}.toml": body for lang, body in NOTES.items()}})
    env = {**base_env(tmp_path / "home"), "PYTHONPATH": f"{site}:{Path.cwd()}"}
    done = subprocess.run([sys.executable, "-c", RENDER], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["标为草稿的片段：3", "False"]  # its words, and the kind never imported
