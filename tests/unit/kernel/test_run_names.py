"""Run names in tables keep what tells the runs apart (report/run_names.py)."""

from __future__ import annotations

from specview.report.run_names import distinct_names


def test_the_shared_beginning_of_model_paths_goes() -> None:
    names = ["/root/.cache/specview/models/gemma-3-270m-it-q4_k_m.gguf", "/root/.cache/specview/models/qwen3-0.6b.gguf"]
    shown = distinct_names(names, 24)
    assert shown[1] == "…qwen3-0.6b.gguf"
    assert len(shown[0]) == 24 and shown[0].startswith("…gemma-3") and shown[0].endswith("q4_k_m.gguf")


def test_servers_on_one_host_are_told_apart_by_their_port() -> None:
    names = ["127.0.0.1:8080 gemma-3-270m-it", "127.0.0.1:8081 gemma-3-270m-it"]
    assert distinct_names(names, 24) == ["…8080 gemma-3-270m-it", "…8081 gemma-3-270m-it"]


def test_names_that_fit_stay_whole() -> None:
    assert distinct_names(["qwen3.6-mtp", "glm-5.2-mtp", "ngram"], 24) == ["qwen3.6-mtp", "glm-5.2-mtp", "ngram"]
    assert distinct_names(["model-a", "model-b"], 24) == ["model-a", "model-b"]


def test_no_word_is_cut_and_no_name_is_emptied() -> None:
    assert distinct_names(["a-long-model-name-x", "a-long-model-nameless"], 12) == [
        "…name-x", "…nameless"], "the shared part ends at a separator, not inside `name`"
    assert distinct_names(["long/run/a", "long/run/a/b"], 8) == ["…a", "…a/b"], "one name begins the other"
    assert distinct_names(["same-long-name", "same-long-name"], 8) == ["same…ame", "same…ame"]


def test_one_long_name_loses_its_middle() -> None:
    assert distinct_names(["/root/.cache/specview/a/very-long-model-name-q4_k_m.gguf"], 20) == ["/root/.cac…_k_m.gguf"]
