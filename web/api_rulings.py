"""The JSON API of questions and evidence (``web.rulings``): open questions and their answers, the stills
of camera events, the "why?" of an event, and the export with its evidence."""
from __future__ import annotations

import base64
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, url_for

from web.describe import reason_text
from web.http import json_body
from web.security import controls

api_rulings = Blueprint("api_rulings", __name__, url_prefix="/api/games/<int:game_id>")


def _rulings() -> Any:
    return current_app.extensions["tableref.rulings"]


def _with_still_url(game_id: int, body: dict[str, Any]) -> dict[str, Any]:
    still_id = body.get("still_id")
    url = url_for("api_rulings.still", game_id=game_id, still_id=still_id) if still_id else None
    return {**body, "still_url": url}


def _in_words(question: dict[str, Any]) -> dict[str, Any]:
    """``question`` with each flag it would raise given ``words``: its reason with card ids in words."""
    would_flag = [{**flag, "words": reason_text(str(flag.get("reason") or ""))}
                  for flag in question.get("would_flag", [])]
    return {**question, "would_flag": would_flag}


@api_rulings.get("/questions")
def questions(game_id: int) -> Response:
    """The questions the table has not answered yet, oldest first, each with its still's URL and the
    reasons of the flags it would raise in words; ``held``: the camera's events waiting for the answer."""
    rulings = _rulings()
    return jsonify(questions=[_with_still_url(game_id, _in_words(q.to_dict())) for q in rulings.open_questions(game_id)],
                   held=rulings.held(game_id))


@api_rulings.post("/questions/<int:question_id>/answer")
@controls
def answer(game_id: int, question_id: int) -> Response:
    """``{"card": id}``: the card really played; it is judged as a table correction. Answers its log entry."""
    return jsonify(_rulings().answer(game_id, question_id, json_body().get("card")))


@api_rulings.get("/evidence")
def evidence(game_id: int) -> Response:
    """``{"stills": {seq: still id}}``: the judged events that have a still."""
    return jsonify(stills={str(seq): still_id for seq, still_id in _rulings().evidence_index(game_id).items()})


@api_rulings.get("/events/<int:seq>/why")
def why(game_id: int, seq: int) -> Response:
    """The evidence of one event: its log entry, reading, still URL and the question asked about it."""
    return jsonify(_with_still_url(game_id, _rulings().why(game_id, seq)))


@api_rulings.get("/stills/<int:still_id>.jpg")
def still(game_id: int, still_id: int) -> Response:
    """A still as JPEG (404 when the game has none by that id, or it was dropped to keep the game's bound)."""
    found = _rulings().evidence.still(game_id, still_id)
    if found is None or found.jpeg is None:
        abort(404, description=f"game {game_id} has no still {still_id}")
    return Response(found.jpeg, mimetype="image/jpeg", headers={"Cache-Control": "private, max-age=3600"})


def export_with_evidence(game_id: int) -> list[dict[str, Any]]:
    """The export's events in force, each camera event with ``"evidence"``: its reading, its still (base64
    JPEG) and the question asked about it (the referee ignores the field: the file still replays)."""
    evidence_ = _evidence_of(game_id)
    return [{**e.event, "evidence": evidence_[e.seq]} if e.seq in evidence_ else e.event
            for e in _rulings().tables.store.events(game_id, include_undone=False)]


def _evidence_of(game_id: int) -> dict[int, dict[str, Any]]:
    rulings = _rulings()
    rulings.tables.live(game_id)
    asked = {q.seq: q.to_dict() for q in rulings.evidence.questions(game_id) if q.seq is not None}
    found: dict[int, dict[str, Any]] = {}
    for still_ in rulings.evidence.stills(game_id, with_jpeg=True):
        if still_.seq is not None and still_.jpeg:
            found[still_.seq] = {"reading": still_.reading, "still": base64.b64encode(still_.jpeg).decode("ascii")}
    for seq, question in asked.items():
        found.setdefault(seq, {})["question"] = question
    return found
