// The live table page: renders snapshots pushed by Server-Sent Events and posts events to the JSON API.
"use strict";

(function () {
  const root = document.getElementById("table");
  const gameId = root.dataset.game;
  const api = "/api/games/" + gameId;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const words = JSON.parse(document.getElementById("card-words").textContent);
  const UNO_COLORS = ["red", "yellow", "green", "blue"];
  const SUITS = ["S", "H", "D", "C"];
  const UNO_VALUES = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "skip", "reverse", "draw2"];
  const UNO_WILDS = ["wild", "wild-draw4", "wild-shuffle", "wild-custom"];
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const VALUE_SHORT = { skip: "Skip", reverse: "Rev", draw2: "+2" };
  const WILD_SHORT = { "wild": "Wild", "wild-draw4": "Wild +4", "wild-shuffle": "Shuffle", "wild-custom": "Custom" };

  let snapshot = JSON.parse(document.getElementById("initial-snapshot").textContent);
  let lastSeq = snapshot.seq;
  let chosenCard = null;
  let pickerColor = "red";
  let revealTray = [];

  const { $, el } = window.tableref;
  const cardWords = (id) => window.tableref.cardWords(words, id);
  const colorWords = (c) => (c ? words.colors[c] || c : "—");
  const isStandard = (id) => /^(10|[2-9AJQK])[SHDC]$/.test(id) || id === "joker" || id === "card-back";

  // ---- talking to the server ------------------------------------------------------------------
  async function post(path, body) {
    let response;
    try {
      response = await fetch(api + path, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify(body || {}),
        credentials: "same-origin",
      });
    } catch (err) {
      toast("The server cannot be reached: " + err.message);
      return null;
    }
    const data = await response.json().catch(() => ({ error: "unreadable answer (" + response.status + ")" }));
    if (!response.ok) {
      toast(data.error || "refused (" + response.status + ")");
      return null;
    }
    return data;
  }

  // Post an event; its outcome (flags, what is awaited, whose turn) is shown next to ``from``, the control used.
  // One change of the game on its way at a time: a double tap sends nothing twice (a play sent twice was
  // flagged out of turn the second time).
  let changing = null;  // the change being sent (its JSON), or null

  function once(what, send) {
    if (changing !== null) {
      if (changing !== what) toast("One moment: the last action is still being sent.");
      return Promise.resolve(null);
    }
    changing = what;
    return send().finally(() => { changing = null; });
  }

  function sendEvent(event, from) {
    return once(JSON.stringify(event), () => post("/events", event)).then((entry) => {
      if (entry) showOutcome(from, entry);
      return entry;
    });
  }

  // ---- the outcome of an action, where the eyes are -------------------------------------------------
  let outcome = null;  // the last action's log entry shown in #outcome

  function showOutcome(from, entry) {
    const box = $("outcome");
    const spot = from && from.closest ? from.closest("[data-outcome-spot]") : null;
    // a fold may close once the action lands (a deal closes "Deal a new round"): the outcome shows below it
    if (spot) (spot.closest("details") || spot).after(box);
    outcome = entry;
    renderOutcome();
    box.scrollIntoView({ block: "nearest" });
  }

  function renderOutcome() {
    const box = $("outcome");
    box.hidden = !outcome;
    const chooser = $("wild-chooser");
    if (!outcome) { $("awaiting").after(chooser); return; }
    const state = snapshot.state || {};
    const rejected = outcome.accepted === false;
    const flagged = (outcome.flags || []).some((f) => f.kind !== "invalid_event");
    box.className = "panel outcome" + (rejected ? " rejected" : outcome.penalty ? " penalty" : flagged ? " flagged" : "");
    $("outcome-text").textContent = (rejected ? "✗ Not taken: " : "✓ ") + outcome.text;
    $("outcome-flags").replaceChildren(...(outcome.flags || []).map((f) => el("p", { className: "flag" + (f.draw ? " flag-draw" : "") },
      (f.kind === "invalid_event" ? "" : (f.draw ? "⚠ " : "⚑ ") + (f.title || f.kind) + (f.player ? " — " + f.player : "")
        + (f.draw ? " draws " + f.draw : "") + ": ") + (f.words || f.reason || ""))));
    const waiting = awaitingText(state.awaiting);
    $("outcome-next").textContent = (state.turn ? "Next: ▶ " + state.turn : "") + (waiting ? (state.turn ? " · " : "") + "Waiting for: " + waiting : "");
    if (state.awaiting && state.awaiting.kind === "color") box.append(chooser);
    else $("awaiting").after(chooser);
  }

  function toast(message, kind) {
    const box = $("toast");
    box.textContent = message;
    box.className = "toast " + (kind || "error");
    box.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { box.hidden = true; }, 6000);
  }

  // ---- flags stay until someone taps OK; sound and vibration if wanted --------------------------------
  const ackKey = "tableref-acked-" + gameId;
  let shownFlags = [];  // {seq, flag}, oldest first

  const ackedSeqs = () => JSON.parse(localStorage.getItem(ackKey) || "[]");

  function addFlags(seq, flags, fresh) {
    const kept = (flags || []).filter((f) => f.kind !== "invalid_event");
    if (!kept.length || ackedSeqs().includes(seq) || shownFlags.some((item) => item.seq === seq)) return;
    for (const flag of kept) shownFlags.push({ seq: seq, flag: flag });
    if (fresh && kept.some((f) => !f.notice)) {  // a notice (a count corrected, a reshuffle) accuses nobody: no alarm
      alertPeople(kept.some((f) => (f.draw || 0) > 0 || f.kind === "missed_uno") ? 2 : 1);
    }
  }

  function acknowledge(seq) {
    shownFlags = shownFlags.filter((item) => item.seq !== seq);
    localStorage.setItem(ackKey, JSON.stringify(ackedSeqs().concat([seq]).slice(-100)));
    renderBanners(snapshot.state || {});
  }

  let audio = null;
  const soundOn = () => localStorage.getItem("tableref-sound") === "on";

  function alertPeople(times) {
    if (!soundOn()) return;
    if (navigator.vibrate) navigator.vibrate(times > 1 ? [200, 100, 200] : [150]);
    if (!audio) return;
    for (let i = 0; i < times; i++) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = 880;
      gain.gain.value = 0.2;
      tone.connect(gain).connect(audio.destination);
      tone.start(audio.currentTime + i * 0.3);
      tone.stop(audio.currentTime + i * 0.3 + 0.18);
    }
  }

  // Players on one card who have not called UNO: a catch may be due (told once per player and card count).
  let unoWarned = "";
  function warnMissedUno(state) {
    const open = (state.one_card || []).filter((p) => !(state.uno_called || []).includes(p)).join(",");
    if (open && open !== unoWarned) alertPeople(1);
    unoWarned = open;
  }

  // ---- rendering ------------------------------------------------------------------------------
  function cardTile(id, extraClass) {
    const tile = el("span", { className: "card-tile " + (extraClass || "") }, cardWords(id));
    if (id) {
      const colour = id.includes("-") && !id.startsWith("wild") && id !== "uno-back" ? id.split("-")[0]
        : isStandard(id) && id.length >= 2 && SUITS.includes(id.slice(-1)) ? "suit-" + id.slice(-1) : "wild";
      tile.classList.add("c-" + colour);
    }
    return tile;
  }

  // The CSS class painting a colour (or suit) tile; the tile's text always names it as well.
  const colorClass = (c) => (UNO_COLORS.includes(c) ? "c-" + c : SUITS.includes(c) ? "c-suit-" + c : "");

  function render() {
    const state = snapshot.state || {};
    const players = snapshot.game.players;
    $("top-card").replaceWith(Object.assign(cardTile(state.top, "top"), { id: "top-card" }));
    $("color").textContent = colorWords(state.color);
    $("color").className = "value color-tile " + colorClass(state.color);
    $("color-label").textContent = isStandard(state.top || "") || snapshot.game.rules === "twist" ? "Suit in force" : "Colour in force";
    renderUnderTop(snapshot.under_top);
    $("turn-note").hidden = !snapshot.turn_note;
    $("turn-note").textContent = snapshot.turn_note || "";
    root.dataset.over = state.game_over ? "yes" : "no";
    $("direction").textContent = state.direction === -1 ? "↺ counter-clockwise" : state.direction === 1 ? "↻ clockwise" : "—";
    $("turn").textContent = state.turn || "—";
    $("pending").textContent = state.pending_draw || 0;
    $("pending").parentElement.classList.toggle("alert", (state.pending_draw || 0) > 0);
    $("round").textContent = state.round != null ? state.round : (state.round_over ? "over" : "—");
    const waiting = awaitingText(state.awaiting);
    $("awaiting").hidden = !waiting;
    $("awaiting").textContent = waiting ? "Waiting for: " + waiting : "";
    $("btn-turn-up").hidden = !(state.awaiting && state.awaiting.kind === "starter");
    $("viewers").textContent = snapshot.viewers ? snapshot.viewers + " watching" : "";
    renderBanners(state);
    renderTeams(state);
    renderPlayers(state, players);
    renderWildChooser(state);
    renderCorrection(players);
    renderSelects(state, players);
    renderOutcome();
    warnMissedUno(state);
  }

  const AWAITING = {
    new_game: () => "a new game",
    start_round: (a) => "the deal" + (a.dealer ? " (" + a.dealer + " deals)" : ""),
    cut: (a) => "the cut for dealer" + (a.players ? " between " + a.players.join(", ") : "") + " (or deal, naming the dealer)",
    starter: (a) => "a new starter card: " + (a.reason || "turn up the next card"),
    color: (a) => a.player + " to choose the colour",
    reveal: (a) => ((a.players || [a.player]).join(", ")) + " to show their hand" + (a.for === "score" ? " for scoring" : " to settle the challenge"),
    final_draw: (a) => a.player + " to draw before the round is scored",
  };

  function awaitingText(awaiting) {
    if (!awaiting) return "";
    if (typeof awaiting !== "object") return String(awaiting);
    const describe = AWAITING[awaiting.kind];
    return describe ? describe(awaiting) : String(awaiting.kind || "").replace(/_/g, " ");
  }

  // web/describe.py winner_words: the referee joins the leaders of a tied game with " = "
  function winnerWords(winner) {
    if (!winner) return "Nobody wins the game.";
    const names = winner.split(" = ");
    if (names.length === 1) return winner + " wins the game!";
    return "A tie: " + names.slice(0, -1).join(", ") + " and " + names[names.length - 1] + " share the win!";
  }

  function renderBanners(state) {
    const box = $("banners");
    box.replaceChildren();
    if (root.dataset.control !== "yes") {
      box.append(el("div", { className: "banner info" }, "Watching only. ",
        el("a", { href: "/unlock?next=" + encodeURIComponent(location.pathname) }, "Enter the table PIN"), " to use the controls."));
    }
    if (state.game_over) {
      box.append(el("div", { className: "banner winner" }, "★ " + winnerWords(state.winner) + " ",
        el("a", { className: "button", href: "/games/" + gameId + "/scores" }, "Scoreboard")));
    } else if (state.round_over) {
      box.append(el("div", { className: "banner info" }, "Round over — show the hands for scoring, then deal the next round."));
    }
    for (const item of shownFlags) {
      const flag = item.flag;
      const penalty = (flag.draw || 0) > 0;
      const who = flag.player && !flag.notice ? flag.player + (penalty ? " draws " + flag.draw : "") + " — " : "";
      const ok = el("button", { className: "ok", onclick: () => acknowledge(item.seq) }, "OK");
      box.append(el("div", { className: "banner " + (penalty ? "penalty" : flag.notice ? "info" : "flag") }, ok,
        (penalty ? "⚠ PENALTY: " : flag.notice ? "ℹ " : "⚑ ") + who + (flag.title || flag.text),
        el("span", { className: "reason" }, flag.words || flag.reason || "")));
    }
    for (const [player, cards] of Object.entries(state.owed || {})) {
      if (cards > 0) box.append(el("div", { className: "banner penalty owed" },
        "⚠ " + player + " owes " + cards + (cards === 1 ? " penalty card" : " penalty cards") + ": draw them now"));
    }
    if ((state.pending_draw || 0) > 0 && state.turn) {
      box.append(el("div", { className: "banner penalty" },
        "⚠ " + state.turn + " must draw " + state.pending_draw + " now"));
    }
  }

  // The card a Joker leaves in force under it, as a tile beside the top card.
  function renderUnderTop(card) {
    const box = $("under-top");
    box.hidden = !card;
    box.replaceChildren();
    if (card) box.append(el("span", { className: "label" }, "In force under it"), cardTile(card, "under"));
  }

  const cardsText = (count) => (count == null ? "? cards" : count + (count === 1 ? " card" : " cards"));

  // Team play: each team's members, their cards and the team's score (the referee names a team by its members).
  function renderTeams(state) {
    const teams = state.teams || [];
    const box = $("teams");
    box.hidden = !teams.length;
    box.replaceChildren();
    const counts = state.hand_counts || {};
    const scores = state.team_scores || {};
    for (const members of teams) {
      const name = members.join(" & ");
      box.append(el("article", { className: "team" + (members.includes(state.turn) ? " turn" : "") },
        el("h3", {}, "Team " + name),
        el("p", { className: "members" }, members.map((m) => m + ": " + cardsText(counts[m])).join(" · ")),
        el("p", { className: "team-score" }, "Team score: " + (scores[name] != null ? scores[name] : 0) + " pts")));
    }
  }

  function renderPlayers(state, players) {
    const box = $("players");
    box.replaceChildren();
    const counts = state.hand_counts || {};
    const scores = state.scores || {};
    const wd4Challenge = state.top === "wild-draw4" && (state.pending_draw || 0) > 0 && !state.round_over;
    for (const name of players) {
      const count = counts[name];
      const tile = el("article", { className: "player" + (state.turn === name ? " turn" : "") + (count === 1 ? " one-card" : "") });
      tile.dataset.player = name;
      tile.append(el("h3", {}, (state.turn === name ? "▶ " : "") + name));
      tile.append(el("p", { className: "count" }, cardsText(count)));
      const badges = el("p", { className: "badges" });
      if ((state.uno_called || []).includes(name)) badges.append(el("span", { className: "badge uno-called" }, "UNO called"));
      if ((state.owed || {})[name]) badges.append(el("span", { className: "badge owes" }, "owes " + state.owed[name]));
      if (state.dealer === name) badges.append(el("span", { className: "badge" }, "dealer"));
      const team = (state.teams || []).find((members) => members.includes(name));
      if (team) badges.append(el("span", { className: "badge team" }, "team " + team.join(" & ")));
      if (badges.childElementCount) tile.append(badges);
      if (scores[name] != null) tile.append(el("p", { className: "muted" }, scores[name] + " pts"));
      const row = el("div", { className: "button-row" });
      row.append(el("button", { className: "uno", onclick: (e) => sendEvent({ type: "uno", player: name }, e.currentTarget) }, "UNO!"));
      row.append(el("button", { className: "catch", onclick: () => askCatcher(name) }, "Catch"));
      if (wd4Challenge && state.turn === name) {
        row.append(el("button", { className: "challenge",
          onclick: (e) => sendEvent({ type: "challenge", player: name }, e.currentTarget) }, "Challenge +4"));
      }
      tile.append(row);
      box.append(tile);
    }
  }

  function askCatcher(target) {
    const dialog = $("catch-dialog");
    $("catch-title").textContent = "Who caught " + target + "?";
    const row = $("catch-players");
    row.replaceChildren();
    for (const name of snapshot.game.players) {
      if (name === target) continue;
      row.append(el("button", { type: "button", className: "big", onclick: () => {
        dialog.close();
        sendEvent({ type: "catch", player: name, target: target }, $("players"));
      } }, name));
    }
    dialog.showModal();
  }

  function palette(state) {
    const top = state.top || "";
    return isStandard(top) ? SUITS : UNO_COLORS;
  }

  function renderWildChooser(state) {
    const awaiting = state.awaiting;
    const needs = !!awaiting && awaiting.kind === "color" && !!awaiting.player;
    $("wild-chooser").hidden = !needs;
    if (!needs) return;
    $("wild-title").textContent = awaiting.player + " chooses the colour:";
    const box = $("wild-colors");
    box.replaceChildren();
    for (const colour of palette(state)) {
      const button = el("button", { className: "big c-" + (UNO_COLORS.includes(colour) ? colour : "suit-" + colour),
        onclick: () => sendEvent({ type: "choose_color", player: awaiting.player, color: colour }, $("outcome").hidden ? null : $("outcome")) }, colorWords(colour));
      button.dataset.color = colour;
      box.append(button);
    }
  }

  function renderCorrection(players) {
    const play = snapshot.last_play;
    $("correction").hidden = !play;
    if (!play) return;
    // the camera names the turn player; an identical card right after the last play may be anyone's jump-in, and a
    // card right after a draw the camera did not see (taken as made) may be the drawer's, played instead of drawing
    const why = { jump_in: ": the same card right after the last one, so maybe someone's jump-in",
      unseen_draw: ": the camera did not see the draw owed before it and took it as made; if the player who owed it " +
        "played this card instead, give it to them" }[play.candidate] || "";
    $("correction-text").textContent = "(" + play.player + " played " + cardWords(play.card) + why + ")";
    $("correction").classList.toggle("attention", !!why);
    const row = $("correction-players");
    row.replaceChildren();
    for (const name of players) {
      if (name === play.player) continue;
      row.append(el("button", { onclick: () => post("/correct", { player: name }).then((entry) => { if (entry) showOutcome(null, entry); }) }, name));
    }
  }

  function fillSelect(select, names, keep) {
    const previous = select.value;
    select.replaceChildren(...(keep || []), ...names.map((n) => el("option", { value: n }, n)));
    if ([...select.options].some((o) => o.value === previous)) select.value = previous;
  }

  // A hand to show (a challenge, or scoring): tapping a card lists it, with counts.
  const revealAwaited = (state) => !!state.awaiting && state.awaiting.kind === "reveal";
  // Seven-O (off in every preset, a table's own choice): only then does a 7 swap hands with a player named
  const sevenSwaps = !!(snapshot.game.options || {}).seven_o;
  let tapModeByHand = false;  // the family switched "tap cards into the list" on (a reveal switches it on by itself)
  const tapping = () => revealAwaited(snapshot.state || {}) || tapModeByHand;

  // After an action accepted for the player chosen by hand, "Who" follows the turn again.
  function backToTurn() {
    delete $("actor").dataset.touched;
    renderSelects(snapshot.state || {}, snapshot.game.players);
  }

  function renderSelects(state, players) {
    const actor = $("actor");
    fillSelect(actor, players);
    const shower = revealAwaited(state) ? state.awaiting.player || (state.awaiting.players || [])[0] : null;
    if (!actor.dataset.touched && (shower || state.turn)) actor.value = shower || state.turn;
    $("btn-tap-mode").setAttribute("aria-pressed", String(tapping()));
    if (revealAwaited(state) || (state.awaiting && state.awaiting.kind === "starter")) $("more-entry").open = true;
    renderTray();
    fillSelect($("dealer"), players);
    fillSelect($("swap-target"), players, [el("option", { value: "" }, "—")]);
    $("round-controls").hidden = !!state.game_over;
    $("round-controls").open = !state.top || !!state.round_over;
    const next = state.awaiting && state.awaiting.kind === "start_round" && state.awaiting.dealer;
    if (next && !$("dealer").dataset.touched) $("dealer").value = next;
  }

  // ---- the card picker --------------------------------------------------------------------------
  function choose(id) {
    chosenCard = id;
    $("chosen-card").textContent = cardWords(id);
    $("target-label").hidden = !(sevenSwaps && /-7$/.test(id || ""));
    for (const b of document.querySelectorAll(".picker .pick")) b.classList.toggle("selected", b.dataset.card === id);
  }

  function renderPicker() {
    const box = $("picker");
    box.replaceChildren();
    const standard = isStandard((snapshot.state || {}).top || "") || snapshot.game.rules === "twist";
    const colours = standard ? SUITS : UNO_COLORS.concat(["wild"]);
    const tabs = el("div", { className: "button-row tabs" });
    for (const colour of colours) {
      const label = colour === "wild" ? "Wild" : colorWords(colour);
      const cls = colour === "wild" ? "c-wild" : UNO_COLORS.includes(colour) ? "c-" + colour : "c-suit-" + colour;
      tabs.append(el("button", { className: "tab " + cls + (pickerColor === colour ? " selected" : ""),
        onclick: () => { pickerColor = colour; renderPicker(); } }, label));
    }
    box.append(tabs);
    if (!colours.includes(pickerColor)) pickerColor = colours[0];
    let ids;
    if (standard) ids = RANKS.map((r) => r + pickerColor).concat(["joker"]);
    else if (pickerColor === "wild") ids = UNO_WILDS;
    else ids = UNO_VALUES.map((v) => pickerColor + "-" + v);
    const grid = el("div", { className: "card-grid" + (pickerColor === "wild" ? " wilds" : "") });
    for (const id of ids) {
      const short = standard ? (id === "joker" ? "Joker" : id.slice(0, -1)) : pickerColor === "wild" ? WILD_SHORT[id]
        : VALUE_SHORT[id.split("-")[1]] || id.split("-")[1];
      const b = el("button", { className: "pick " + (standard ? "c-suit-" + pickerColor : "c-" + pickerColor),
        title: cardWords(id), onclick: () => { choose(id); if (tapping()) { revealTray.push(id); renderTray(); } } }, short);
      b.dataset.card = id;
      b.setAttribute("aria-label", cardWords(id));
      grid.append(b);
    }
    box.append(grid);
    choose(chosenCard);
  }

  function cardFromInputs() {
    const typed = $("card-input").value.trim();
    if (typed) return typed;
    return chosenCard;
  }

  // ---- the log --------------------------------------------------------------------------------
  // Where an event came from, where the page says it: the camera; the table's answer to its question; a camera
  // that was unsure and asked nobody (a camera node without answers: the player had the benefit of the doubt).
  const SOURCE_WORDS = {
    camera: " [camera]",
    table: " [camera · the table's answer]",
    unanswered: " [camera · unsure: the benefit of the doubt]",
  };

  function logItem(entry) {
    const classes = [];
    if (entry.undone) classes.push("undone");
    if (entry.accepted === false) classes.push("rejected");
    if (entry.penalty) classes.push("penalty");
    else if ((entry.flags || []).some((f) => f.kind !== "invalid_event")) classes.push("flagged");
    const item = el("li", { className: classes.join(" ") });
    item.dataset.seq = entry.seq;
    item.append(el("span", { className: "seq" }, "#" + entry.seq + " "), entry.text);
    if (SOURCE_WORDS[entry.source]) item.append(el("span", { className: "source" }, SOURCE_WORDS[entry.source]));
    if (entry.undone) item.append(el("em", {}, " (undone)"));
    for (const flag of entry.flags || []) {
      item.append(el("div", { className: "flag" + (flag.draw ? " flag-draw" : "") }, "⚑ " + flag.text));
    }
    return item;
  }

  async function loadLog() {
    const response = await fetch(api + "/events");
    if (!response.ok) return;
    const data = await response.json();
    $("log").replaceChildren(...data.events.slice().reverse().map(logItem));
    const undone = new Set(data.events.filter((e) => e.undone).map((e) => e.seq));
    if (shownFlags.some((item) => undone.has(item.seq))) {  // an undone event's flags go with it
      shownFlags = shownFlags.filter((item) => !undone.has(item.seq));
      renderBanners(snapshot.state || {});
    }
  }

  // ---- live updates ---------------------------------------------------------------------------
  function connect() {
    const source = new EventSource(api + "/stream");
    source.onmessage = (message) => {
      const data = JSON.parse(message.data);
      if (data.kind === "snapshot") {
        const behind = data.seq !== lastSeq;
        snapshot = data; lastSeq = data.seq;
        addFlags(data.seq, data.last_flags, false);
        render(); renderPicker();
        if (behind) loadLog();
        return;
      }
      if (data.kind === "event" && data.seq <= lastSeq) return;
      snapshot = data.snapshot; lastSeq = data.snapshot.seq;
      if (data.kind === "event") addFlags(data.seq, data.entry.flags, true);
      render();
      if (data.kind === "event") {
        $("log").prepend(logItem(data.entry));
        renderPicker();
      } else {
        toast(data.text, "info");
        loadLog();
      }
    };
    source.onerror = () => { $("live-state").textContent = "○ reconnecting…"; $("live-state").className = "live off"; };
    source.onopen = () => { $("live-state").textContent = "● live"; $("live-state").className = "live"; };
  }

  // ---- buttons --------------------------------------------------------------------------------
  function wire() {
    $("actor").addEventListener("change", () => { $("actor").dataset.touched = "yes"; });
    $("dealer").addEventListener("change", () => { $("dealer").dataset.touched = "yes"; });
    $("btn-play").onclick = () => {
      const card = cardFromInputs();
      if (!card) { toast("Choose a card first."); return; }
      const event = { type: "play", player: $("actor").value, card: card };
      const target = $("swap-target").value;
      if (!$("target-label").hidden && target) event.target = target;
      sendEvent(event, $("btn-play")).then((entry) => { if (entry) { $("card-input").value = ""; backToTurn(); } });
    };
    $("btn-draw").onclick = (e) => {
      if (e.target.id === "draw-count") return;
      const event = { type: "draw", player: $("actor").value, count: parseInt($("draw-count").value, 10) };
      if (revealTray.length) { event.cards = revealTray.slice(); event.count = revealTray.length; }
      sendEvent(event, $("btn-draw")).then((entry) => {
        if (entry && entry.accepted !== false) { revealTray = []; backToTurn(); }
      });
    };
    $("btn-tap-mode").onclick = () => {
      tapModeByHand = $("btn-tap-mode").getAttribute("aria-pressed") !== "true";
      $("btn-tap-mode").setAttribute("aria-pressed", String(tapping()));
    };
    $("actor").addEventListener("change", renderTray);
    $("btn-pass").onclick = () => sendEvent({ type: "pass", player: $("actor").value }, $("btn-pass"));
    $("btn-add-reveal").onclick = () => {
      const card = cardFromInputs();
      if (!card) { toast("Choose a card first."); return; }
      revealTray.push(card); renderTray();
    };
    $("btn-reveal").onclick = () => {
      sendEvent({ type: "reveal", player: $("actor").value, cards: revealTray }, $("btn-reveal")).then((entry) => {
        if (entry && entry.accepted !== false) { revealTray = []; renderTray(); }
      });
    };
    $("btn-deal").onclick = () => {
      const card = cardFromInputs();
      if (!card) { toast("Choose the card turned up first."); return; }
      sendEvent({ type: "start_round", dealer: $("dealer").value, starter: card }, $("btn-deal"));
    };
    $("btn-undo").onclick = () => once("undo", () => post("/undo", {})).then((answer) => {
      if (answer) showOutcome($("btn-undo"), { text: "Undone: " + answer.undone.text, flags: [] });
    });
    if ($("btn-time-up")) $("btn-time-up").onclick = () => sendEvent({ type: "time_up" }, $("btn-time-up"));
    if ($("btn-follow")) {
      $("btn-follow").onclick = () => post("/camera", {}).then((status) => { if (status) $("btn-follow").hidden = true; });
    }
    $("btn-turn-up").onclick = () => {
      const card = cardFromInputs();
      if (!card) { toast("Choose the new starter card first."); return; }
      sendEvent({ type: "turn_up", card: card }, $("btn-turn-up"));
    };
    $("btn-penalty").onclick = () => {
      const event = { type: "penalty", player: $("actor").value, kind: $("penalty-kind").value };
      const extra = parseInt($("penalty-draw").value, 10);
      if (event.kind === "other" || !Number.isNaN(extra)) event.draw = Number.isNaN(extra) ? 0 : extra;
      sendEvent(event, $("btn-penalty"));
    };
    $("outcome-close").onclick = () => { outcome = null; renderOutcome(); };
    $("sound").checked = soundOn();
    $("sound").onchange = () => {
      localStorage.setItem("tableref-sound", $("sound").checked ? "on" : "off");
      if ($("sound").checked && !audio && window.AudioContext) audio = new AudioContext();  // needs this tap
      alertPeople(1);
    };
  }

  function renderTray() {
    const counts = new Map();
    for (const id of revealTray) counts.set(id, (counts.get(id) || 0) + 1);
    $("reveal-tray").replaceChildren(...[...counts].map(([id, n]) => el("button", { className: "chip", title: "take one out",
      onclick: () => { revealTray.splice(revealTray.indexOf(id), 1); renderTray(); } }, cardWords(id) + (n > 1 ? " ×" + n : "") + " ✕")));
    const who = $("actor").value;
    const held = ((snapshot.state || {}).hand_counts || {})[who];
    $("btn-reveal").textContent = "Show " + (who ? who + "'s " : "") + "hand (" + revealTray.length
      + (held != null ? " of " + held : "") + " cards)";
    $("tray-count").textContent = revealTray.length ? " (draw uses these " + revealTray.length + " cards)" : "";
  }

  // A short line a player can read: on/off, frame rate, events seen, the deck's colours once learnt in play, a deck
  // read from the negative, and the last problem (details on hover).
  function cameraSummary(status) {
    const w = status.watcher || {};
    const parts = [status.label];
    if (status.mode === "demo") parts.push(status.message);
    if (typeof w.fps === "number") parts.push(Math.round(w.fps) + " frames/s");
    if (typeof w.events_sent === "number") parts.push(w.events_sent + " events seen");
    if (w.inks) parts.push("colours learnt from this deck");
    if (w.negative_print) parts.push("deck printed light on dark: read from its negative, asked before any flag");
    if (status.colourless) parts.push("the camera sends no colour (a night or infrared mode?): UNO colours and red suits cannot be read");
    if (w.errors) parts.push(w.errors + " errors");
    if (w.last_error) parts.push("last problem: " + w.last_error);
    return parts.join(" · ");
  }

  // "12 s ago", "3 min ago", "2 h ago".
  function agoText(seconds) {
    if (seconds < 90) return seconds + " s ago";
    if (seconds < 5400) return Math.round(seconds / 60) + " min ago";
    return Math.round(seconds / 3600) + " h ago";
  }

  // A camera node (club mode) feeding this table, said where the server's own camera is off.
  function nodeSummary(node) {
    return "camera node " + node.node + " · its last event " + agoText(node.seconds_ago);
  }

  let cameraStarts = null;

  async function pollCamera() {
    try {
      const response = await fetch("/api/camera?game=" + gameId);
      if (!response.ok) return;
      const status = await response.json();
      const view = $("camera-view");
      if (view && view.src && status.starts !== cameraStarts) {  // a new watcher (the demo again): a new stream
        if (cameraStarts !== null) view.src = view.dataset.src + "?start=" + status.starts;
        cameraStarts = status.starts;
      }
      const node = status.node && !status.running ? status.node : null;
      $("camera-state").textContent = node ? nodeSummary(node) : cameraSummary(status);
      $("camera-state").title = Object.entries(status.watcher || {}).filter(([, v]) => typeof v !== "object")
        .map(([k, v]) => k.replace(/_/g, " ") + ": " + v).join("\n");
      if ($("camera-off")) {
        $("camera-off").textContent = node
          ? "A camera node (" + node.node + ") sends this table's events; its last came " + agoText(node.seconds_ago) +
            ". Enter what it cannot see by hand (“Enter by hand”)."
          : status.message + ". Enter plays by hand (“Enter by hand”).";
      }
    } catch (err) {
      $("camera-state").textContent = "unknown (server unreachable)";
    }
  }

  function startCameraView() {
    const view = $("camera-view");
    if (view && view.dataset.src) view.src = view.dataset.src;
  }

  const datalist = $("card-ids");
  for (const id of Object.keys(words.cards)) datalist.append(el("option", { value: id }, words.cards[id]));
  wire();
  addFlags(snapshot.seq, snapshot.last_flags, false);
  render();
  renderPicker();
  renderTray();
  loadLog();
  connect();
  pollCamera();
  setInterval(pollCamera, 5000);
  if (document.readyState === "complete") startCameraView();
  else window.addEventListener("load", startCameraView);
})();
