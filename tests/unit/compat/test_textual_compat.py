"""Each of Textual's private names specview relies on (specview/compat/textual_compat.py) is still where
the installed Textual keeps it: a release that moves one fails here, naming it."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.binding import Binding
from textual.widget import Widget

from specview.compat import Private, textual_compat
from specview.compat.textual_compat import PRIVATE, app_keymap, functional_key_names, node_bindings
from tests.support.private_names import missing


@pytest.mark.parametrize("private", PRIVATE, ids=lambda private: private.dotted)
def test_textual_still_has(private: Private) -> None:
    problem = missing(private)
    assert problem is None, problem


def test_a_moved_name_fails_naming_it() -> None:
    problem = missing(Private("textual.screen:Screen", "_no_such_name", "nothing"))
    assert problem is not None and problem.startswith("textual.screen.Screen._no_such_name is gone from textual ")
    problem = missing(Private("textual._no_such_module", "NAME", "nothing"))
    assert problem is not None and problem.startswith("textual._no_such_module.NAME: its owner")


class Keyed(Widget):
    BINDINGS = [Binding("k", "nothing", "Nothing", id="test.nothing")]


def test_a_node_s_bindings_and_the_app_s_keymap_are_read_as_textual_applies_them() -> None:
    keyed = Keyed()
    assert [b.id for b in node_bindings(keyed).key_to_bindings["k"]] == ["test.nothing"]
    assert node_bindings(keyed) is not node_bindings(Keyed())  # each node its own map
    app: App[None] = App()
    app.set_keymap({"test.nothing": "?"})
    assert app_keymap(app) == {"test.nothing": "question_mark"}  # normalised, as Textual applies it


def test_the_function_keys_a_terminal_sends_are_known() -> None:
    assert {"f13", "f24", "f35", "caps_lock"} <= functional_key_names()


def test_callers_get_only_what_the_adapter_names() -> None:
    assert set(textual_compat.__all__) <= set(vars(textual_compat))
