"""Server-Sent Events: a hub that fans each game's updates out to every page watching it."""
from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from typing import Any

HEARTBEAT_SECONDS = 15.0
QUEUE_LIMIT = 256


class Subscription:
    """One viewer's queue of messages; dropped by the hub if the viewer falls too far behind."""

    def __init__(self) -> None:
        self.messages: queue.Queue[str | None] = queue.Queue(maxsize=QUEUE_LIMIT)


class EventHub:
    """Publish JSON messages per game; each subscriber gets every message published after it joined."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[int, set[Subscription]] = {}
        self._closed = False

    def subscribe(self, game_id: int) -> Subscription:
        """Start receiving a game's messages."""
        subscription = Subscription()
        with self._lock:
            self._subscribers.setdefault(game_id, set()).add(subscription)
        return subscription

    def unsubscribe(self, game_id: int, subscription: Subscription) -> None:
        """Stop receiving a game's messages."""
        with self._lock:
            self._subscribers.get(game_id, set()).discard(subscription)

    def viewers(self, game_id: int) -> int:
        """How many pages watch a game now."""
        with self._lock:
            return len(self._subscribers.get(game_id, ()))

    def publish(self, game_id: int, message: dict[str, Any]) -> None:
        """Send a message to every subscriber of a game; a subscriber whose queue is full is cut off."""
        text = format_message(message)
        with self._lock:
            subscribers = list(self._subscribers.get(game_id, ()))
        for subscription in subscribers:
            try:
                subscription.messages.put_nowait(text)
            except queue.Full:
                self.unsubscribe(game_id, subscription)
                _end(subscription)

    def close(self) -> None:
        """End every stream (server shutdown)."""
        with self._lock:
            self._closed = True
        self.end_all()

    def end_all(self) -> None:
        """End every stream now (their viewers reconnect and start again from a snapshot)."""
        with self._lock:
            subscribers = [s for group in self._subscribers.values() for s in group]
            self._subscribers.clear()
        for subscription in subscribers:
            _end(subscription)

    def stream(self, game_id: int, subscription: Subscription, first: dict[str, Any]) -> Iterator[str]:
        """The text/event-stream body for one viewer: ``first`` (a snapshot taken after ``subscription``
        began, so nothing falls between), then every update."""
        try:
            yield "retry: 2000\n\n"
            yield format_message(first)
            while not self._closed:
                try:
                    text = subscription.messages.get(timeout=HEARTBEAT_SECONDS)
                except queue.Empty:
                    yield ": keep-alive\n\n"
                    continue
                if text is None:
                    return
                yield text
        finally:
            self.unsubscribe(game_id, subscription)


def _end(subscription: Subscription) -> None:
    try:
        subscription.messages.put_nowait(None)
    except queue.Full:
        # The viewer is far behind; empty its queue so it sees the end marker next.
        while True:
            try:
                subscription.messages.get_nowait()
            except queue.Empty:
                break
        subscription.messages.put_nowait(None)


def format_message(message: dict[str, Any]) -> str:
    """One SSE message: ``id`` (the game's event seq when there is one) and a JSON ``data`` line."""
    head = f"id: {message['seq']}\n" if isinstance(message.get("seq"), int) else ""
    return f"{head}data: {json.dumps(message, separators=(',', ':'))}\n\n"
