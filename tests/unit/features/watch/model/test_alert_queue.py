"""`--on-alert`'s queue: fair between instances, bounded, and every alert that gave way counted."""

from __future__ import annotations

from specview.features.watch.model.alert_queue import AlertQueue


def drain(queue: AlertQueue[str]) -> list[str]:
    taken = []
    while (item := queue.take()) is not None:
        taken.append(item)
    return taken


def test_instances_take_turns_in_the_order_they_began_waiting() -> None:
    queue: AlertQueue[str] = AlertQueue()
    for item in ("a-down", "a-slow", "a-drop"):  # a noisy instance sorts first
        queue.put("a", item.split("-")[1], item)
    queue.put("b", "down", "b-down")
    queue.put("c", "down", "c-down")
    assert len(queue) == 5
    assert drain(queue) == ["a-down", "b-down", "c-down", "a-slow", "a-drop"]
    assert len(queue) == 0 and queue.take() is None


def test_an_alert_due_again_while_it_waits_takes_its_place_and_is_counted() -> None:
    queue: AlertQueue[str] = AlertQueue()
    assert queue.put("a", "down", "first") == 0
    assert queue.put("b", "down", "b") == 0
    assert queue.put("a", "down", "again") == 1  # the newer copy, in the older one's turn
    assert drain(queue) == ["again", "b"]


def test_a_full_line_lets_its_oldest_give_way() -> None:
    queue: AlertQueue[str] = AlertQueue(per_instance=2)
    assert [queue.put("a", kind, kind) for kind in ("down", "slow", "drop")] == [0, 0, 1]
    assert queue.put("b", "down", "b") == 0
    assert len(queue) == 3
    assert drain(queue) == ["slow", "b", "drop"]


def test_the_whole_queue_is_bounded_too() -> None:
    queue: AlertQueue[str] = AlertQueue(per_instance=3, max_waiting=3)
    assert [queue.put(name, "down", name) for name in ("a", "b", "c", "d")] == [0, 0, 0, 1]
    assert len(queue) == 3 and drain(queue) == ["b", "c", "d"]  # the first to wait gave way


def test_clear_says_how_many_never_ran() -> None:
    queue: AlertQueue[str] = AlertQueue()
    queue.put("a", "down", "a")
    queue.put(None, "fleet", "whole fleet")  # an alert on the fleet has no instance
    assert queue.clear() == 2 and len(queue) == 0 and queue.take() is None
