"""Readings fused over frames, and flag when sure, ask when not (vision.reading, vision.rulings)."""
from __future__ import annotations

import pytest

from referee.cards import STANDARD_FACE_IDS
from vision.reading import READING_KEY, Reading, fuse, split_reading
from vision.rulings import Question, Ruler, accuses, confusables, rule_on

BOX = (10.0, 20.0, 90.0, 140.0)
SETUP = {"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]}
DEAL = {"type": "start_round", "dealer": "cat", "starter": "red-4"}  # ann plays first


def reading(card: str, prob: float = 0.9, sure: bool = False, t: float | None = None) -> Reading:
    return Reading(card, prob, sure, BOX, t)


def dealt_ruler(ask: str = "unsure") -> Ruler:
    ruler = Ruler(ask)
    assert ruler.judge(SETUP)["accepted"] and ruler.judge(DEAL)["accepted"]
    return ruler


# -- fusion -----------------------------------------------------------------------------------------------
def test_frames_that_agree_keep_one_frames_probability_and_sure_mark() -> None:
    fused = fuse([reading("yellow-8", 0.95, True, t) for t in (1.0, 1.1, 1.2)])
    assert fused.card == "yellow-8" and fused.sure and fused.frames == 3 and fused.t == 1.2
    assert fused.prob == pytest.approx(0.95, abs=1e-3)


def test_a_steady_unsure_reading_never_becomes_sure_by_repetition() -> None:
    fused = fuse([reading("yellow-8", 0.8)] * 20)
    assert not fused.sure and fused.prob == pytest.approx(0.8, abs=1e-3)


def test_frames_that_disagree_lower_the_winner_and_name_the_rival() -> None:
    fused = fuse([reading("yellow-8", 0.9, True), reading("yellow-8", 0.9, True), reading("red-8", 0.7)])
    assert fused.card == "yellow-8" and fused.prob < 0.9
    assert [card for card, _ in fused.alternatives] == ["red-8"]
    assert fused.sure  # two of three frames read it sure and no frame read the rival sure


def test_a_rival_read_sure_takes_the_sure_mark_away() -> None:
    fused = fuse([reading("yellow-8", 0.95, True), reading("yellow-8", 0.95, True), reading("red-8", 0.99, True)])
    assert fused.card == "yellow-8" and not fused.sure


def test_fuse_needs_a_reading() -> None:
    with pytest.raises(ValueError):
        fuse([])


def test_an_event_carries_its_reading_apart_from_the_protocol_fields() -> None:
    read = reading("red-7")
    event, got = split_reading({"type": "play", "card": "red-7", READING_KEY: read})
    assert event == {"type": "play", "card": "red-7"} and got is read
    assert split_reading({"type": "draw", "count": 1}) == ({"type": "draw", "count": 1}, None)
    assert read.to_dict()["card"] == "red-7" and "still" not in read.to_dict()


# -- flag when sure, ask when not ---------------------------------------------------------------------------
def test_a_reading_comes_back_from_its_json_form_without_its_still() -> None:
    reading = Reading("red-7", 0.8123, False, (1.5, 2.0, 30.0, 40.5), 12.25, 4, (("yellow-5", 0.1), ("red-1", 0.05)))
    back = Reading.from_dict(reading.with_still(b"jpeg").to_dict())
    assert back == reading and back.still is None


def test_a_sure_reading_is_judged_at_once_even_when_it_flags() -> None:
    ruler = dealt_ruler()
    event = {"type": "play", "player": "ann", "card": "blue-8"}
    assert ruler.consider(event, reading("blue-8", 0.995, True)) is None
    verdict = ruler.judge(event, reading("blue-8", 0.995, True))
    assert [f["kind"] for f in verdict["flags"]] == ["illegal_card"]


def test_an_unsure_reading_that_would_flag_is_asked_about_and_the_referee_is_left_unchanged() -> None:
    ruler = dealt_ruler()
    event = {"type": "play", "player": "ann", "card": "blue-4"}  # legal on red-4: no question
    assert ruler.consider(event, reading("blue-4")) is None
    event = {"type": "play", "player": "ann", "card": "yellow-8"}
    before = ruler.referee.state()
    question = ruler.consider(event, reading("yellow-8", 0.7))
    assert ruler.referee.state() == before
    assert isinstance(question, Question) and question.waiting is None
    assert question.options[0] == "yellow-8" and len(question.options) == 4
    assert question.options[1] == "red-8"  # the one the referee accepts comes first: the rules order, never decide
    assert [f["kind"] for f in question.would_flag] == ["illegal_card"]
    assert question.to_dict()["type"] == "question"


def test_the_answer_is_the_event_the_referee_judges() -> None:
    ruler = dealt_ruler()
    _, verdict, asked = ruler.settle({"type": "play", "player": "ann", "card": "yellow-8"}, reading("yellow-8", 0.7),
                                  lambda q: "red-8")
    assert verdict["accepted"] and not verdict["flags"] and verdict["state"]["top"] == "red-8" and len(asked) == 1
    _, verdict, _ = ruler.settle({"type": "play", "player": "ben", "card": "blue-2"}, reading("blue-2", 0.6),
                              lambda q: "blue-2")
    assert [f["kind"] for f in verdict["flags"]] == ["illegal_card"]


def test_a_ruling_that_no_card_would_change_is_judged_without_asking() -> None:
    ruler = dealt_ruler()
    # cat plays out of turn (ann is to play): whichever card it was, the play is out of turn
    event = {"type": "play", "player": "cat", "card": "yellow-8"}
    verdict = ruler.referee.copy().handle(event)
    assert "out_of_turn" in {f["kind"] for f in verdict["flags"]}
    assert ruler.consider(event, reading("yellow-8", 0.6)) is None
    # ann's unsure yellow-8 is illegal on red-4 only as read (a red card or an 8 would not be): asked
    assert ruler.consider({"type": "play", "player": "ann", "card": "yellow-8"}, reading("yellow-8", 0.6)) is not None


def test_a_ruling_no_card_would_change_still_asks_about_the_unsure_card_it_rests_on() -> None:
    ruler = dealt_ruler()
    # ann's red-3 is misread, unsure, as red-draw2: every card ben plays now would be a "must draw" offence
    assert not ruler.judge({"type": "play", "player": "ann", "card": "red-draw2"}, reading("red-draw2", 0.8))["flags"]
    waiting = {"type": "play", "player": "ben", "card": "red-9"}
    assert ruler.referee.copy().handle(waiting)["flags"]
    question = ruler.consider(waiting, reading("red-9", 0.7))
    assert question is not None and question.waiting == waiting and question.event["card"] == "red-draw2"
    assert question.options[0] == "red-draw2" and "red-draw2" not in question.options[1:]


def test_never_asks_with_ask_never() -> None:
    ruler = dealt_ruler("never")
    assert ruler.consider({"type": "play", "player": "ann", "card": "yellow-8"}, reading("yellow-8", 0.5)) is None


def test_a_flag_resting_on_an_unsure_top_card_asks_about_that_card() -> None:
    ruler = dealt_ruler()
    # ann's red-3 is misread as yellow-4 (legal on red-4 by value, so it goes through) ...
    assert not ruler.judge({"type": "play", "player": "ann", "card": "yellow-4"}, reading("yellow-4", 0.8))["flags"]
    # ... and ben's red-9, read sure, would be flagged on it: the table is asked about the yellow-4
    waiting = {"type": "play", "player": "ben", "card": "red-9"}
    question = ruler.consider(waiting, reading("red-9", 0.999, True))
    assert question is not None and question.waiting == waiting
    assert question.event["card"] == "yellow-4" and question.options[0] == "yellow-4"
    assert "red-4" in question.options
    ruler.correct(question, "red-3")  # the top card is corrected; the waiting play is judged next
    assert ruler.consider(waiting, reading("red-9", 0.999, True)) is None
    verdict = ruler.judge(waiting, reading("red-9", 0.999, True))
    assert verdict["accepted"] and not verdict["flags"]
    assert verdict["state"]["top"] == "red-9" and ruler.events[-2]["card"] == "red-3"


def test_a_misreading_that_is_no_likely_confusion_is_still_asked_about() -> None:
    ruler = Ruler()
    ruler.judge({"type": "new_game", "rules": "official", "players": ["ann", "ben", "cat"]})
    ruler.judge({"type": "start_round", "dealer": "cat", "starter": "blue-2"})  # ann plays first
    # ann's yellow 2 is misread as a blue 7: neither its colour nor its value, and legal on the blue 2 too
    assert not ruler.judge({"type": "play", "player": "ann", "card": "blue-7"}, reading("blue-7", 0.93))["flags"]
    # ben's yellow reverse, read sure, would be flagged on the blue 7; none of the blue 7's likely confusions
    # (another colour's 7, another blue card) clears it, the yellow 2 does: the table is asked
    waiting = {"type": "play", "player": "ben", "card": "yellow-reverse"}
    question = ruler.consider(waiting, reading("yellow-reverse", 0.999, True))
    assert question is not None and question.waiting == waiting
    assert question.event["card"] == "blue-7" and question.options[:2] == ("blue-7", "yellow-2")
    ruler.correct(question, "yellow-2")
    verdict = ruler.judge(waiting, reading("yellow-reverse", 0.999, True))
    assert verdict["accepted"] and not verdict["flags"] and verdict["state"]["top"] == "yellow-reverse"


def test_a_confirmed_top_card_lets_the_flag_stand() -> None:
    ruler = dealt_ruler()
    ruler.judge({"type": "play", "player": "ann", "card": "yellow-4"}, reading("yellow-4", 0.8))
    waiting = {"type": "play", "player": "ben", "card": "red-9"}
    asked: list[Question] = []
    _, verdict, answered = ruler.settle(waiting, reading("red-9", 0.999, True), lambda q: asked.append(q) or "yellow-4")
    assert [q.event["card"] for q in asked] == ["yellow-4"] and answered == [(asked[0], "yellow-4")]
    assert [f["kind"] for f in verdict["flags"]] == ["illegal_card"]
    # the yellow 4 is the table's word now; the red 9, flagged for its own card, is doubted (it may lie there)
    assert [(c.event["card"], c.doubted) for c in ruler.unsure_cards()] == [("red-9", True)]


def test_a_flag_resting_on_an_unsure_card_under_a_sure_one_asks_about_that_card() -> None:
    ruler = Ruler()
    ruler.judge({"type": "new_game", "rules": "twist", "players": ["ann", "ben", "cat"]})
    ruler.judge({"type": "start_round", "dealer": "cat", "starter": "7H"})  # ben plays first
    # ben's 2H (a Draw Two) is read unsure as 4H; cat stacks a 2H of another deck, read sure
    assert not ruler.judge({"type": "play", "player": "ben", "card": "4H"}, reading("4H", 0.8))["flags"]
    assert not ruler.judge({"type": "play", "player": "cat", "card": "2H"}, reading("2H", 0.999, True))["flags"]
    # ann draws the four cards the stack made her owe: as read she owed two, a flag resting on the 4H
    waiting = {"type": "draw", "player": "ann", "count": 4}
    question = ruler.consider(waiting, None)
    assert question is not None and question.waiting == waiting
    assert question.event["card"] == "4H" and question.options[:2] == ("4H", "2H")
    assert [f["kind"] for f in question.would_flag] == ["wrong_draw_count"]
    ruler.correct(question, "2H")  # ben's card corrected, cat's replayed on it; ann's draw is judged next
    verdict = ruler.judge(waiting)
    assert verdict["accepted"] and not verdict["flags"]
    assert [e.get("card") for e in ruler.events[-3:-1]] == ["2H", "2H"] and ruler.unsure_cards() == ()


def test_a_card_read_as_a_joker_is_looked_back_on() -> None:
    ruler = Ruler()
    ruler.judge({"type": "new_game", "rules": "twist", "players": ["ann", "ben", "cat"]})
    ruler.judge({"type": "start_round", "dealer": "cat", "starter": "7H"})  # ben plays first
    # ben's ace of hearts (a reverse) is read unsure as a Joker: as read, cat is next and owes the Joker's draw
    assert ruler.judge({"type": "play", "player": "ben", "card": "joker"}, reading("joker", 0.62))["accepted"]
    waiting = {"type": "play", "player": "ann", "card": "5H"}  # ann is next after the reverse
    question = ruler.consider(waiting, reading("5H", 0.999, True))
    assert question is not None and question.waiting == waiting and question.event["card"] == "joker"
    assert "AH" in question.options
    ruler.correct(question, "AH")
    verdict = ruler.judge(waiting, reading("5H", 0.999, True))
    assert verdict["accepted"] and not verdict["flags"]


def test_only_the_last_cards_put_down_are_looked_back_on() -> None:
    ruler = dealt_ruler()
    ruler.judge({"type": "play", "player": "ann", "card": "red-2"}, reading("red-2", 0.8))
    for player, card in (("ben", "red-5"), ("cat", "red-6"), ("ann", "red-7"), ("ben", "red-8")):
        assert ruler.judge({"type": "play", "player": player, "card": card}, reading(card, 0.999, True))["accepted"]
    assert ruler.unsure_cards() == ()  # CARDS_LOOKED_BACK sure cards have been put down since



def test_a_card_buried_under_two_jokers_read_sure_is_still_looked_back_on() -> None:
    """Play resumes on the card a Joker buries: ann's 5C read unsure as 5S under two Jokers read sure is still
    what a flag on the next card rests on (found by `tableref bench table --rules twist` on the tune parts'
    readings: three sure plays flagged on a misread card three cards down)."""
    ruler = Ruler()
    ruler.judge({"type": "new_game", "rules": "twist", "players": ["ann", "ben", "cat"]})
    ruler.judge({"type": "start_round", "dealer": "cat", "starter": "5H"})  # ann plays first
    assert not ruler.judge({"type": "play", "player": "ann", "card": "5S"}, reading("5S", 0.8))["flags"]
    for player in ("ben", "cat"):  # the second Joker stacks on the first
        assert not ruler.judge({"type": "play", "player": player, "card": "joker"},
                               reading("joker", 0.999, True))["flags"]
    assert not ruler.judge({"type": "draw", "player": "ann", "count": 10})["flags"]
    assert [card.event["card"] for card in ruler.unsure_cards()] == ["5S"]
    _, verdict, asked = ruler.settle({"type": "play", "player": "ben", "card": "4C"}, reading("4C", 0.999, True),
                                  lambda question: "5C")
    assert [(question.event["card"], card) for question, card in asked] == [("5S", "5C")]
    assert verdict["accepted"] and not verdict["flags"]


def test_an_earlier_card_is_asked_about_where_it_clears_the_event_only_as_another_card_it_may_have_been() -> None:
    """Two reverses in a row, both misread (tune readings): ben's ace of spades read unsure as the king, then ann's
    ace of spades, played on her turn after it, read unsure as the king of diamonds. As read it is out of turn,
    whichever card it was, and the king under it cleared nothing as read (a king of diamonds does not follow an
    ace of spades): the king is asked about, then ann's card."""
    ruler = Ruler()
    ruler.judge({"type": "new_game", "rules": "twist", "players": ["ann", "ben", "cat"]})
    ruler.judge({"type": "start_round", "dealer": "cat", "starter": "3S"})  # ann plays first
    assert not ruler.judge({"type": "play", "player": "ann", "card": "8S"}, reading("8S", 0.999, True))["flags"]
    assert not ruler.judge({"type": "play", "player": "ben", "card": "KS"}, reading("KS", 0.98))["flags"]
    truth = {"KS": "AS", "KD": "AS"}
    _, verdict, asked = ruler.settle({"type": "play", "player": "ann", "card": "KD"}, reading("KD", 0.7),
                                  lambda question: truth[question.event["card"]])
    assert [(question.event["card"], card) for question, card in asked] == [("KS", "AS"), ("KD", "AS")]
    assert verdict["accepted"] and not verdict["flags"]

def test_nobody_answering_leaves_the_event_unjudged() -> None:
    ruler = dealt_ruler()
    _, verdict, asked = ruler.settle({"type": "play", "player": "ann", "card": "yellow-8"}, reading("yellow-8", 0.7),
                                  lambda q: None)
    assert verdict is None and asked == [] and ruler.referee.state()["top"] == "red-4"


def test_rule_on_without_a_reading_asks_nothing() -> None:
    ruler = dealt_ruler()
    assert rule_on(ruler.referee, {"type": "play", "player": "ann", "card": "blue-9"}, None) is None


def test_accuses_and_confusables() -> None:
    assert accuses({"accepted": False, "flags": []})
    assert not accuses({"accepted": True, "flags": [{"kind": "reshuffle"}]})
    assert accuses({"accepted": True, "flags": [{"kind": "illegal_card"}]})
    assert confusables("red-7")[:4] == ["yellow-7", "green-7", "blue-7", "red-0"] and len(confusables("red-7")) == 15
    assert confusables("wild") == ["wild-draw4"]
    assert confusables("10H")[:3] == ["10S", "10D", "10C"] and "AH" in confusables("10H")
    assert confusables("KC")[-1] == "joker"  # Jokers of many designs are read as court cards
    assert confusables("joker") == [face for face in STANDARD_FACE_IDS if face != "joker"] and len(confusables("joker")) == 52


def test_an_answer_about_one_card_leaves_the_other_unsure_card_looked_back_on() -> None:
    """The table confirms the Joker on top as read; the flag rested on the unsure card under it, which the
    Joker buries (takes the colour and value of): that card is asked about next, not taken as confirmed."""
    ruler = Ruler()
    ruler.judge({"type": "new_game", "rules": "twist", "players": ["ann", "ben", "cat"]})
    ruler.judge({"type": "start_round", "dealer": "cat", "starter": "7H"})  # ben plays first
    # ben's 7C is read unsure as 7S (legal on the 7H either way); ann's Joker, read unsure, buries it
    assert not ruler.judge({"type": "play", "player": "ben", "card": "7S"}, reading("7S", 0.8))["flags"]
    assert not ruler.judge({"type": "play", "player": "ann", "card": "joker"}, reading("joker", 0.9))["flags"]
    assert not ruler.judge({"type": "draw", "player": "ben", "count": 5})["flags"]  # the Joker's draw
    # cat's 4C, read sure, would be flagged on a Joker of spades: the Joker is asked about first (a club or a 4
    # would clear it), then, confirmed, the 7S under it
    truth = {"joker": "joker", "7S": "7C"}
    _, verdict, asked = ruler.settle({"type": "play", "player": "cat", "card": "4C"}, reading("4C", 0.999, True),
                                  lambda question: truth[question.event["card"]])
    assert [(question.event["card"], card) for question, card in asked] == [("joker", "joker"), ("7S", "7C")]
    assert verdict["accepted"] and not verdict["flags"]
    assert [e.get("card") for e in ruler.events[-4:]] == ["7C", "joker", None, "4C"]


def test_a_card_corrected_is_what_the_unsure_card_before_it_is_looked_back_on_with() -> None:
    ruler = dealt_ruler()
    assert not ruler.judge({"type": "play", "player": "ann", "card": "red-5"}, reading("red-5", 0.8))["flags"]
    # ben's red-3 is misread, unsure, as yellow-5 (legal on the red-5 by value)
    assert not ruler.judge({"type": "play", "player": "ben", "card": "yellow-5"}, reading("yellow-5", 0.8))["flags"]
    waiting = {"type": "play", "player": "cat", "card": "red-9"}
    question = ruler.consider(waiting, reading("red-9", 0.999, True))
    assert question is not None and question.event["card"] == "yellow-5"
    ruler.correct(question, "red-3")
    # ann's red-5 is still unsure, and looked back on with ben's card as the table named it
    (red_5,) = ruler.unsure_cards()
    assert red_5.event["card"] == "red-5" and [e["card"] for e in red_5.since] == ["red-3"]
    assert red_5.replayed("red-5").state()["top"] == "red-3"
    verdict = ruler.judge(waiting, reading("red-9", 0.999, True))
    assert verdict["accepted"] and not verdict["flags"]


def test_the_unsure_card_after_one_corrected_is_looked_back_on_from_the_corrected_table() -> None:
    ruler = dealt_ruler()
    # ann's red-3 is misread, unsure, as red-5; ben's red-8 after it is read unsure too
    assert not ruler.judge({"type": "play", "player": "ann", "card": "red-5"}, reading("red-5", 0.8))["flags"]
    assert not ruler.judge({"type": "play", "player": "ben", "card": "red-8"}, reading("red-8", 0.8))["flags"]
    older = ruler.unsure_cards()[0]
    ruler.correct(Question(older.event, older.reading, ("red-5", "red-3"), (), {"type": "draw", "player": "cat",
                                                                              "count": 1}), "red-3")
    (red_8,) = ruler.unsure_cards()
    assert red_8.event["card"] == "red-8" and red_8.before.state()["top"] == "red-3"
    assert red_8.replayed("red-8").state()["top"] == "red-8" and ruler.referee.state()["top"] == "red-8"
    assert [e.get("card") for e in ruler.events[-2:]] == ["red-3", "red-8"]



def test_two_misread_cards_that_make_one_flag_together_are_both_asked_about() -> None:
    """ann's KC is read unsure as KS, ben's AC (a reverse: ann is next again) as AS. ann's QC, read sure, seems
    not to match the AS; an AC would clear it but cannot lie on the KS, a KC alone leaves the AS: only both
    misreadings together clear the flag, so the table is asked about the KS first, then about the AS on it."""
    ruler = Ruler()
    ruler.judge({"type": "new_game", "rules": "twist", "players": ["ann", "ben", "cat", "dan"]})
    ruler.judge({"type": "start_round", "dealer": "dan", "starter": "KH"})  # ann plays first
    assert not ruler.judge({"type": "play", "player": "ann", "card": "KS"}, reading("KS", 0.73))["flags"]
    assert not ruler.judge({"type": "play", "player": "ben", "card": "AS"}, reading("AS", 0.71))["flags"]
    event = {"type": "play", "player": "ann", "card": "QC"}
    older, later = ruler.unsure_cards()
    assert older.clearing(event) == [] and later.clearing(event) == []
    assert older.clearing_with(later, event)[0] == "KC"
    truth = {"KS": "KC", "AS": "AC"}
    _, verdict, asked = ruler.settle(event, reading("QC", 0.999, True), lambda question: truth[question.event["card"]])
    assert [(question.event["card"], card) for question, card in asked] == [("KS", "KC"), ("AS", "AC")]
    assert asked[0][0].options[:2] == ("KS", "KC")
    assert verdict["accepted"] and not verdict["flags"] and [e.get("card") for e in ruler.events[-3:]] == [
        "KC", "AC", "QC"]


# -- a sure misreading flags once ---------------------------------------------------------------------------
def phantom_draw_two(answer: str) -> tuple[Ruler, list[Question], dict]:
    """ann's red 5 is read *sure* as a Red Draw Two; ben plays a red 7 on it (flagged: he owes two), then cat's
    blue 7 comes, which the camera gives to ben (the turn stayed with him). The table answers ``answer``."""
    ruler = dealt_ruler()
    read = Reading("red-draw2", 0.99, True, BOX, alternatives=(("red-5", 0.005),))  # the frames' runner-up
    assert not ruler.judge({"type": "play", "player": "ann", "card": "red-draw2"}, read)["flags"]
    asked: list[Question] = []
    first = ruler.settle({"type": "play", "player": "ben", "card": "red-7"}, reading("red-7", 0.99, True),
                         lambda q: asked.append(q) or answer)
    assert asked == [] and [f["kind"] for f in first.verdict["flags"]] == ["must_draw"]  # a sure reading flags at once
    assert [c.event["card"] for c in ruler.unsure_cards()] == ["red-draw2"]  # ... and the flag casts doubt on it
    second = ruler.settle({"type": "play", "player": "ben", "card": "blue-7"}, reading("blue-7", 0.99, True),
                          lambda q: asked.append(q) or answer)
    return ruler, asked, second


def test_a_sure_misreading_flags_once_and_the_table_playing_on_is_asked_about_it() -> None:
    ruler, asked, second = phantom_draw_two("red-5")
    assert [q.event["card"] for q in asked] == ["red-draw2"] and asked[0].by_turn
    assert asked[0].waiting == {"type": "play", "player": "ben", "card": "blue-7"}
    assert asked[0].to_dict()["by_turn"] is True and asked[0].options[:2] == ("red-draw2", "red-5")
    # the answer corrects the Red Draw Two: ben's red 7 is no offence, and the blue 7 is cat's
    assert second.event == {"type": "play", "player": "cat", "card": "blue-7"}
    assert second.verdict["accepted"] and not second.verdict["flags"] and second.verdict["state"]["turn"] == "ann"
    assert [e.get("card") for e in ruler.events[-3:]] == ["red-5", "red-7", "blue-7"]
    assert ruler.unsure_cards() == ()


def test_a_mistake_made_since_a_sure_misreading_does_not_keep_it_from_being_asked_about() -> None:
    """As in the phantom Draw Two above, but ann's catch of cat fails between the two plays (a real mistake, flagged
    whatever the card was): the table still played on as if the red 5 were what it was, and is asked about it."""
    ruler = dealt_ruler()
    read = Reading("red-draw2", 0.99, True, BOX, alternatives=(("red-5", 0.005),))
    ruler.judge({"type": "play", "player": "ann", "card": "red-draw2"}, read)
    ruler.judge({"type": "play", "player": "ben", "card": "red-7"}, reading("red-7", 0.99, True))
    assert [f["kind"] for f in ruler.judge({"type": "catch", "player": "ann", "target": "cat"})["flags"]] == [
        "false_catch"]
    asked: list[Question] = []
    second = ruler.settle({"type": "play", "player": "ben", "card": "blue-7"}, reading("blue-7", 0.99, True),
                          lambda q: asked.append(q) or "red-5")
    assert [q.event["card"] for q in asked] == ["red-draw2"]
    assert second.event["player"] == "cat" and not second.verdict["flags"]
    assert [e.get("type") for e in ruler.events[-3:]] == ["play", "catch", "play"]


def test_a_sure_card_the_table_confirms_keeps_its_flag() -> None:
    ruler, asked, second = phantom_draw_two("red-draw2")
    assert [q.event["card"] for q in asked] == ["red-draw2"]
    assert [f["kind"] for f in second.verdict["flags"]] == ["must_draw"]  # the table's word: ben does owe two
    assert second.event["player"] == "ben" and ruler.unsure_cards() == ()


def test_a_sure_card_no_flag_rested_on_is_not_looked_back_on() -> None:
    ruler = dealt_ruler()
    ruler.judge({"type": "play", "player": "ann", "card": "red-draw2"}, reading("red-draw2", 0.99, True))
    ruler.judge({"type": "draw", "player": "ben", "count": 2})
    assert ruler.unsure_cards() == ()
    assert ruler.consider({"type": "play", "player": "ann", "card": "blue-9"}, reading("blue-9", 0.99, True)) is None


def test_a_sure_misreading_flagged_for_its_own_card_is_asked_about_when_the_table_plays_on() -> None:
    """ann's red 3 is read *sure* as a blue 3 on the red 4: flagged and taken back by the rules, but it lies on the
    table; ben's green 3 comes, given to ann (the turn stayed with her): asked about the blue 3."""
    ruler = dealt_ruler()
    read = Reading("blue-3", 0.99, True, BOX, alternatives=(("red-3", 0.004),))
    flagged = ruler.judge({"type": "play", "player": "ann", "card": "blue-3"}, read)
    assert [f["kind"] for f in flagged["flags"]] == ["illegal_card"] and flagged["state"]["top"] == "red-4"
    settled = ruler.settle({"type": "play", "player": "ann", "card": "green-3"}, reading("green-3", 0.99, True),
                           lambda q: "red-3")
    assert [q.event["card"] for q, _ in settled.asked] == ["blue-3"] and settled.asked[0][0].options[1] == "red-3"
    assert settled.event["player"] == "ben" and not settled.verdict["flags"]
    assert [e.get("card") for e in ruler.events[-2:]] == ["red-3", "green-3"]


def test_a_real_offence_the_table_took_back_is_not_asked_about_again() -> None:
    """ann really plays a blue 3 on the red 4 (read right, sure): flagged; she takes it back and draws; ben's red 9
    is clean, and a later offence resting on the red 4 is flagged as read, nobody asked."""
    ruler = dealt_ruler()
    ruler.judge({"type": "play", "player": "ann", "card": "blue-3"}, reading("blue-3", 0.99, True))
    state = ruler.referee.state()
    ruler.judge({"type": "draw", "player": "ann", "count": state.get("pending_draw") or 1})
    asked: list[Question] = []
    turn = ruler.referee.state()["turn"]
    settled = ruler.settle({"type": "play", "player": turn, "card": "green-7"}, reading("green-7", 0.99, True),
                           lambda q: asked.append(q) or q.options[0])
    assert asked == [] and [f["kind"] for f in settled.verdict["flags"]] == ["illegal_card"]
