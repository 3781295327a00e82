"""Checks every event, game setup and zone calibration before it may reach the referee or the database.

The shapes of the protocol's events are data (``EVENT_FIELDS``), as are those of a zone calibration
(``ZONE_FIELDS``); a check returns the cleaned value or raises :class:`InvalidInput` with a message a person can act on.
"""
from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from referee.cards import SUITS, UNO_COLORS, is_card_id

if TYPE_CHECKING:
    from vision.reading import Reading
    from vision.zones import Zones

#: The page seats at most this many (its form: 10 seats, 10 more on demand); a preset may allow fewer.
MAX_PLAYERS = 20
#: Seats the new-game form shows before "more players".
SEATS_SHOWN = 10
MIN_PLAYERS = 2
MAX_NAME_LENGTH = 24
MAX_CARDS_IN_EVENT = 120
MAX_DRAW_COUNT = 60
MAX_PENALTY_DRAW = 100
MAX_TARGET_SCORE = 100_000
NAME_PATTERN = re.compile(r"^[\w][\w .'\-]*$", re.UNICODE)
#: An idempotency key: 1 to 120 printable ASCII characters without spaces (a camera node's run and number).
EVENT_KEY_PATTERN = re.compile(r"[!-~]{1,120}")
#: Where a camera node's event came from, as the node says (stored as the event's source).
NODE_SOURCES = ("camera", "table", "unanswered", "script")
COLORS: tuple[str, ...] = UNO_COLORS + SUITS


class InvalidInput(ValueError):
    """Input that is refused, with a message that says why."""


Check = Callable[[Any, str, "Mapping[str, Any]"], Any]


def _player(value: Any, field: str, game: Mapping[str, Any]) -> str:
    if not isinstance(value, str) or value not in game["players"]:
        raise InvalidInput(f"{field}: {value!r} is not a player of this game ({', '.join(game['players'])})")
    return value


def _card(value: Any, field: str, _game: Mapping[str, Any]) -> str:
    if not is_card_id(value):
        raise InvalidInput(f"{field}: {value!r} is not a card id (e.g. red-7, wild-draw4, 10H)")
    return value


def _cards(value: Any, field: str, game: Mapping[str, Any]) -> list[str]:
    if not isinstance(value, list) or len(value) > MAX_CARDS_IN_EVENT:
        raise InvalidInput(f"{field}: expected a list of at most {MAX_CARDS_IN_EVENT} card ids")
    return [_card(card, f"{field}[{i}]", game) for i, card in enumerate(value)]


def _color(value: Any, field: str, _game: Mapping[str, Any]) -> str:
    if value not in COLORS:
        raise InvalidInput(f"{field}: {value!r} is not a colour or suit ({', '.join(COLORS)})")
    return value


def _candidate(value: Any, field: str, _game: Mapping[str, Any]) -> str:
    """A camera's note that its play may be another player's (``vision.events.PLAY_CANDIDATES``)."""
    from vision.events import PLAY_CANDIDATES

    if value not in PLAY_CANDIDATES:
        raise InvalidInput(f"{field}: {value!r} is not one of {', '.join(PLAY_CANDIDATES)}")
    return value


def _unseen(value: Any, field: str, _game: Mapping[str, Any]) -> bool:
    """A camera's note that it took a draw owed as made without seeing it (``vision.events.UNSEEN_KEY``)."""
    if not isinstance(value, bool):
        raise InvalidInput(f"{field}: expected true or false")
    return value


def _count(value: Any, field: str, _game: Mapping[str, Any]) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DRAW_COUNT:
        raise InvalidInput(f"{field}: expected a whole number from 1 to {MAX_DRAW_COUNT}")
    return value


def _hands(value: Any, field: str, game: Mapping[str, Any]) -> dict[str, list[str]]:
    if not isinstance(value, dict):
        raise InvalidInput(f"{field}: expected an object of player -> list of card ids")
    return {_player(p, f"{field} key", game): _cards(cards, f"{field}[{p}]", game) for p, cards in value.items()}


def _cut_cards(value: Any, field: str, game: Mapping[str, Any]) -> dict[str, str]:
    if not isinstance(value, dict) or not value:
        raise InvalidInput(f"{field}: expected an object of player -> the card they cut")
    return {_player(p, f"{field} key", game): _card(card, f"{field}[{p}]", game) for p, card in value.items()}


def _penalty_kind(value: Any, field: str, _game: Mapping[str, Any]) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"[a-z_]{1,30}", value):
        raise InvalidInput(f"{field}: expected a penalty kind such as missed_uno, out_of_turn or other")
    return value


def _penalty_draw(value: Any, field: str, _game: Mapping[str, Any]) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PENALTY_DRAW:
        raise InvalidInput(f"{field}: expected a whole number from 0 to {MAX_PENALTY_DRAW}")
    return value


#: event type -> (required fields, optional fields), each field with its check
#: (core protocol plus docs/protocol-extensions.md: cut, turn_up, penalty, time_up, play's ``hands``).
EVENT_FIELDS: dict[str, tuple[dict[str, Check], dict[str, Check]]] = {
    "cut": ({"cards": _cut_cards}, {}),
    "start_round": ({"starter": _card}, {"dealer": _player, "hands": _hands}),
    "turn_up": ({"card": _card}, {}),
    "play": ({"player": _player, "card": _card}, {"color": _color, "target": _player, "hands": _hands,
                                                  "candidate": _candidate}),
    "draw": ({"player": _player, "count": _count}, {"cards": _cards, "unseen": _unseen}),
    "pass": ({"player": _player}, {}),
    "uno": ({"player": _player}, {}),
    "catch": ({"player": _player, "target": _player}, {}),
    "challenge": ({"player": _player}, {}),
    "reveal": ({"player": _player, "cards": _cards}, {}),
    "choose_color": ({"player": _player, "color": _color}, {}),
    "penalty": ({"player": _player, "kind": _penalty_kind}, {"draw": _penalty_draw}),
    "time_up": ({}, {}),
}


def check_event(event: Any, game: Mapping[str, Any]) -> dict[str, Any]:
    """Return a clean copy of an in-game event, or raise :class:`InvalidInput`.

    ``game`` is the game's ``new_game`` event (its ``players`` name who may appear).
    """
    if not isinstance(event, dict):
        raise InvalidInput("an event must be a JSON object with a \"type\"")
    kind = event.get("type")
    if kind == "new_game":
        raise InvalidInput("new_game starts a new game: create one instead (POST /api/games)")
    if not isinstance(kind, str) or kind not in EVENT_FIELDS:
        raise InvalidInput(f"type: {kind!r} is not an event type ({', '.join(EVENT_FIELDS)})")
    required, optional = EVENT_FIELDS[kind]
    unknown = sorted(set(event) - {"type"} - set(required) - set(optional))
    if unknown:
        raise InvalidInput(f"{kind}: unknown field(s) {', '.join(unknown)}")
    missing = [name for name in required if name not in event]
    if missing:
        raise InvalidInput(f"{kind}: missing field(s) {', '.join(missing)}")
    clean: dict[str, Any] = {"type": kind}
    for name, check in {**required, **optional}.items():
        if name in event and not (name in optional and event[name] is None):
            clean[name] = check(event[name], name, game)
    return clean


def check_event_key(value: Any) -> str:
    """An event's idempotency key (``Idempotency-Key``), or :class:`InvalidInput`."""
    if not isinstance(value, str) or not EVENT_KEY_PATTERN.fullmatch(value):
        raise InvalidInput("Idempotency-Key: expected 1 to 120 printable ASCII characters without spaces")
    return value


def check_node_source(value: Any) -> str:
    """Where a camera node's event came from (default ``camera``), or :class:`InvalidInput`."""
    if value is None:
        return "camera"
    if value not in NODE_SOURCES:
        raise InvalidInput(f"source: expected one of {', '.join(NODE_SOURCES)}")
    return value


def check_evidence(value: Any) -> tuple[Reading, bytes]:
    """A camera node's evidence of an event, ``{"reading": {...}, "still": "<base64 JPEG>"}``
    (``vision.reading.Reading.evidence``): the reading and the JPEG; :class:`InvalidInput` saying what is wrong."""
    from vision.reading import EVIDENCE_STILL_MAX_BYTES, Reading

    if not (isinstance(value, dict) and isinstance(value.get("reading"), dict) and isinstance(value.get("still"), str)):
        raise InvalidInput('evidence: expected {"reading": {...}, "still": "<base64 JPEG>"}')
    try:
        jpeg = base64.b64decode(value["still"], validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInput("evidence: the still is not base64") from None
    if len(jpeg) > EVIDENCE_STILL_MAX_BYTES or not jpeg.startswith(b"\xff\xd8"):
        raise InvalidInput(f"evidence: the still must be a JPEG of at most {EVIDENCE_STILL_MAX_BYTES // 1024} KiB")
    try:
        reading = Reading.from_dict(value["reading"])
    except (KeyError, TypeError, ValueError, AttributeError):
        raise InvalidInput("evidence: the reading needs card, prob, sure and box") from None
    if not is_card_id(reading.card) or len(reading.box) != 4:
        raise InvalidInput(f"evidence: {reading.card!r} is not a card id, or its box is not 4 numbers")
    return reading, jpeg


def check_name(value: Any, field: str) -> str:
    """A player, team or game name: trimmed, 1 to 24 letters, digits, spaces or . ' -."""
    if not isinstance(value, str):
        raise InvalidInput(f"{field}: expected text")
    name = " ".join(value.split())
    if not name or len(name) > MAX_NAME_LENGTH or not NAME_PATTERN.match(name):
        raise InvalidInput(f"{field}: {value!r} must be 1 to {MAX_NAME_LENGTH} letters, digits, spaces or . ' -")
    return name


def _option_type(option: Any) -> type:
    """The Python type an option's values have (from its ``type`` or its default)."""
    declared = getattr(option, "type", None)
    if isinstance(declared, type):
        return declared
    by_name = {"bool": bool, "int": int, "str": str, "choice": str, "float": float}
    if isinstance(declared, str) and declared in by_name:
        return by_name[declared]
    return type(getattr(option, "default", ""))


def check_option(name: str, value: Any, options: Mapping[str, Any]) -> Any:
    """Check one rule option's value against its registry entry; returns the value."""
    if name not in options:
        raise InvalidInput(f"options: {name!r} is not a rule option (see `tableref rules`)")
    own_check = getattr(options[name], "check", None)
    if callable(own_check):
        reason = own_check(value)
        if reason:
            raise InvalidInput(f"options.{name}: {reason}")
        return value
    expected = _option_type(options[name])
    if expected is bool:
        ok = isinstance(value, bool)
    elif expected is int:
        ok = isinstance(value, int) and not isinstance(value, bool) and abs(value) <= MAX_TARGET_SCORE
    elif expected is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    else:
        ok = isinstance(value, str) and len(value) <= 40
    if not ok:
        raise InvalidInput(f"options.{name}: expected {expected.__name__}, got {value!r}")
    choices = getattr(options[name], "choices", None)
    if choices and value not in choices:
        raise InvalidInput(f"options.{name}: {value!r} is not one of {', '.join(map(str, choices))}")
    return value


def check_new_game(event: Any, presets: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """Return a clean ``new_game`` event, or raise :class:`InvalidInput`."""
    if not isinstance(event, dict):
        raise InvalidInput("a game setup must be a JSON object")
    allowed = {"type", "rules", "players", "teams", "options"}
    unknown = sorted(set(event) - allowed)
    if unknown:
        raise InvalidInput(f"new_game: unknown field(s) {', '.join(unknown)}")
    rules = event.get("rules")
    if not isinstance(rules, str) or rules not in presets:
        raise InvalidInput(f"rules: {rules!r} is not a preset ({', '.join(presets)})")
    players = event.get("players")
    if not isinstance(players, list) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise InvalidInput(f"players: name {MIN_PLAYERS} to {MAX_PLAYERS} players in seating order")
    names = [check_name(p, f"players[{i}]") for i, p in enumerate(players)]
    if len({n.casefold() for n in names}) != len(names):
        raise InvalidInput("players: every player needs a different name")
    clean: dict[str, Any] = {"type": "new_game", "rules": rules, "players": names}
    teams = event.get("teams")
    if teams not in (None, []):
        if not isinstance(teams, list) or not all(isinstance(t, list) and t for t in teams):
            raise InvalidInput("teams: expected a list of teams, each a list of player names")
        seen: set[str] = set()
        for i, team in enumerate(teams):
            for member in team:
                if member not in names:
                    raise InvalidInput(f"teams[{i}]: {member!r} is not one of the players")
                if member in seen:
                    raise InvalidInput(f"teams: {member!r} is in two teams")
                seen.add(member)
        clean["teams"] = [list(team) for team in teams]
    raw_options = event.get("options") or {}
    if not isinstance(raw_options, dict):
        raise InvalidInput("options: expected an object of option name -> value")
    if raw_options:
        clean["options"] = {name: check_option(name, value, options) for name, value in raw_options.items()}
    return clean


#: Fields of a calibration (``PUT /api/camera/zones``): the three zones, optionally a top-down
#: homography, and ``source`` (ignored: what a person calibrates is always "calibrated").
ZONE_FIELDS = ("discard", "draw", "reveal")
ZONES_EXTRA_FIELDS = ("homography", "source")
MAX_ZONE_POINTS = 32
#: Smallest zone kept, as a share of the picture: a click without a drag is not a zone.
MIN_ZONE_AREA = 0.001


def _zone_polygon(value: Any, field: str) -> list[tuple[float, float]]:
    """A zone outline: 3 to 32 [x, y] points, each a fraction of the picture's width and height."""
    if not isinstance(value, list) or not 3 <= len(value) <= MAX_ZONE_POINTS:
        raise InvalidInput(f"{field}: expected a list of 3 to {MAX_ZONE_POINTS} [x, y] points")
    points = []
    for i, point in enumerate(value):
        if not (isinstance(point, list) and len(point) == 2
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1 for v in point)):
            raise InvalidInput(f"{field}[{i}]: expected [x, y] as fractions of the picture, from 0 to 1; got {point!r}")
        points.append((float(point[0]), float(point[1])))
    area = abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1]))) / 2
    if area < MIN_ZONE_AREA:
        raise InvalidInput(f"{field}: the zone is too small (drag a rectangle over the whole area)")
    return points


def check_zones(body: Any) -> Zones:
    """A hand calibration of the table zones, checked; returns a ``vision.zones.Zones`` marked "calibrated"."""
    from vision.zones import Zones, ZonesError

    if not isinstance(body, dict):
        raise InvalidInput("zones: expected a JSON object with 'discard', 'draw' and 'reveal' outlines")
    unknown = sorted(set(body) - set(ZONE_FIELDS) - set(ZONES_EXTRA_FIELDS))
    if unknown:
        raise InvalidInput(f"zones: unknown field(s) {', '.join(unknown)}")
    missing = [name for name in ZONE_FIELDS if name not in body]
    if missing:
        raise InvalidInput(f"zones: missing field(s) {', '.join(missing)}")
    clean = {name: [list(p) for p in _zone_polygon(body[name], name)] for name in ZONE_FIELDS}
    try:
        return Zones.from_dict({**clean, "homography": body.get("homography"), "source": "calibrated"})
    except ZonesError as exc:
        raise InvalidInput(f"zones: {exc}") from None
