// The deck this game reads with (header and chooser) and "Teach your deck" (web/templates/_teach.html):
// the cards asked for, frames taken by the server from its camera, learning in the background, what was
// learnt, and the closing check. API: web/api_decks.py.
"use strict";

(function () {
  const root = document.getElementById("table");
  if (!root || !document.getElementById("teach")) return;
  const gameApi = "/api/games/" + root.dataset.game + "/deck";
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const words = JSON.parse(document.getElementById("card-words").textContent);
  const { $, el } = window.tableref;
  const cardWords = (id) => window.tableref.cardWords(words, id);
  const UNO_COLORS = ["red", "yellow", "green", "blue"];
  const STEPS = { showing: "teach-show", learning: "teach-learning", learnt: "teach-result", refused: "teach-refused", failed: "teach-refused" };

  let session = { state: "idle" };
  let skipped = new Set();  // cards passed over in this session (asked for again at the end)
  let polling = null;

  function tileClass(id) {
    if (!id) return "";
    const colour = id.includes("-") ? id.split("-")[0] : "";
    if (UNO_COLORS.includes(colour)) return "c-" + colour;
    if (/^(10|[2-9AJQK])[SHDC]$/.test(id)) return "c-suit-" + id.slice(-1);
    return "c-wild";
  }

  function tile(id, extra) {
    return el("span", { className: "card-tile " + tileClass(id) + (extra ? " " + extra : ""), textContent: id ? cardWords(id) : "no card" });
  }

  async function call(method, path, body) {
    let response;
    try {
      response = await fetch(path, {
        method,
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: method === "GET" ? undefined : JSON.stringify(body || {}),
        credentials: "same-origin",
      });
    } catch (err) {
      return { error: "the server cannot be reached: " + err.message };
    }
    const data = await response.json().catch(() => ({ error: "unreadable answer (" + response.status + ")" }));
    return response.ok ? data : { ...data, error: data.error || "refused (" + response.status + ")" };
  }

  // ---- the game's deck ------------------------------------------------------------------------------
  function deckWords(name) {
    return name ? name : "printed colours";
  }

  function renderDeck(info) {
    $("game-deck").textContent = "deck: " + deckWords(info.deck);
    const choice = $("deck-choice");
    const again = info.teach_again || [];
    choice.replaceChildren(el("option", { value: "", textContent: "printed colours" }),
      ...info.decks.map((name) => el("option", { value: name,
        textContent: again.includes(name) ? name + " (teach it again)" : name })));
    choice.value = info.deck || "";
    $("deck-note").textContent = again.includes(info.deck) ?
      "This deck was taught to an earlier card reader: it reads with its colours alone until you teach it again." :
      info.chosen ? "" : (info.default ? "The server's deck (tableref serve --deck): " + info.default + "." : "");
  }

  async function loadDeck() {
    const info = await call("GET", gameApi);
    if (!info.error) renderDeck(info);
  }

  async function chooseDeck(name) {
    const info = await call("POST", gameApi, { deck: name || null });
    if (info.error) { $("deck-note").textContent = info.error; loadDeck(); return; }
    renderDeck(info);
    if (!(info.teach_again || []).includes(info.deck)) {
      $("deck-note").textContent = "The camera now reads this game with " + deckWords(info.deck) + ".";
    }
  }

  // ---- teaching ---------------------------------------------------------------------------------------
  function nextCard() {
    const left = session.sequence.filter((card) => !(card in session.captured));
    return left.find((card) => !skipped.has(card)) || left[0] || null;
  }

  function showStep(id) {
    for (const step of document.querySelectorAll("#teach-flow .teach-step")) step.hidden = step.id !== id;
  }

  function renderShowing() {
    const card = nextCard();
    const shown = Object.keys(session.captured).length;
    $("teach-count").textContent = shown + " of " + session.sequence.length + " cards shown";
    $("teach-card").replaceWith(Object.assign(tile(card), { id: "teach-card" }));
    $("btn-capture").disabled = !card;
    $("btn-skip").disabled = !card;
    if (!card) $("teach-card").textContent = "every card has been shown";
    $("teach-list").replaceChildren(...session.sequence.map((id) => {
      const got = session.captured[id];
      const item = el("li", { className: got ? "done" : id === card ? "now" : "" }, tile(id));
      if (got) item.append(el("span", { className: "muted", textContent: " ✓ " + got.frames + " frames" }));
      return item;
    }));
    $("teach-back-note").textContent = session.back_note;
    $("btn-learn").disabled = shown < 3;
  }

  function renderResult() {
    $("teach-message").textContent = session.message + heldBackWords(session.held_back) + ".";
    const colours = session.profile.colours;
    $("teach-colours-title").replaceChildren(...(session.profile.family === "uno" ?
      ["Colours ", el("span", { className: "muted", textContent: "(printed · this deck)" })] : ["Print"]));
    $("teach-colours").replaceChildren(...(colours.length ? colours.map((c) => el("div", { className: "swatch-pair" },
      el("span", { className: "swatch", style: "background:" + c.printed, title: "printed " + c.colour }),
      el("span", { className: "swatch", style: "background:" + c.swatch, title: c.colour + " as this deck shows it" }),
      el("span", { className: "swatch-name", textContent: words.colors[c.colour] || c.colour }))) :
      [el("p", { className: "muted", textContent: session.profile.family === "uno" ?
        "Colours as printed: what was learnt did not read the cards held back any better, so the printed colours stay." :
        session.profile.negative ?
          "Printed light on dark: the camera reads this deck from its negative, and asks the table before any flag." :
          "No colours: a standard deck is read by its ranks and suits." })]));
    const light = session.profile.light;
    $("teach-light").replaceChildren(...(light ?
      [el("span", { className: "swatch", style: "background:" + light, title: "the table's light" }),
        el("span", { textContent: " Light: this table's lamp tints the cards; the camera now reads every frame as if lit white." })] :
      [el("span", { className: "muted", textContent: "Light: the frames are read as they come." })]));
    $("teach-reads").replaceChildren(...Object.entries(session.learnt_reads).map(([card, read]) =>
      el("li", { className: read === card ? "done" : "wrong" }, tile(card), el("span", { textContent: read === card ? " ✓ read right" : " read as " }),
        ...(read === card ? [] : [tile(read)]))));
    $("check-total").textContent = session.check_cards;
    $("btn-check").disabled = session.checks.length >= session.check_cards;
    $("check-list").replaceChildren(...session.checks.map((c, i) => el("li", {},
      el("span", { textContent: "Card " + (i + 1) + ": " }), tile(c.read),
      el("span", { className: "muted", textContent: c.without && c.without !== c.read ? " (untaught, the camera would read " + cardWords(c.without) + ")" : "" }))));
  }

  function heldBackWords(held) {
    if (!held) return "";
    return "; cards kept back were read right " + held.right_with + " of " + held.shots + " times with it, " +
      held.right_without + " without";
  }

  function render() {
    const flow = $("teach-flow");
    if (session.state === "idle") { showStep("teach-start"); return; }
    flow.hidden = false;
    $("btn-teach").hidden = true;
    showStep(STEPS[session.state]);
    if (session.state === "showing") renderShowing();
    if (session.state === "learnt") renderResult();
    if (session.state === "refused" || session.state === "failed") {
      $("teach-refusal").textContent = session.message;
    }
    if (session.state === "learning" && !polling) polling = setInterval(refresh, 1000);
    if (session.state !== "learning" && polling) { clearInterval(polling); polling = null; }
  }

  async function refresh() {
    const data = await call("GET", "/api/teach");
    if (data.error) return;
    const wasLearning = session.state === "learning";
    session = data;
    render();
    if (wasLearning && session.state === "learnt") loadDeck();
  }

  async function start(family, restart) {
    skipped = new Set();
    $("teach-seen").textContent = "";
    const data = await call("POST", "/api/teach", { family, full: $("teach-full").checked, restart });
    if (data.ask === "restart" && window.confirm(data.error)) return start(family, true);
    if (data.error) { $("deck-note").textContent = data.error; return; }
    session = data;
    render();
  }

  async function capture() {
    const card = nextCard();
    const button = $("btn-capture");
    button.disabled = true;
    $("teach-seen").textContent = "Taking pictures…";
    const data = await call("POST", "/api/teach/capture", { card });
    button.disabled = false;
    if (data.error) { $("teach-seen").textContent = data.error; return; }
    session = data;
    const got = session.captured[card];
    $("teach-seen").textContent = cardWords(card) + ": " + got.frames + " frames taken" +
      (got.read && got.read !== card ? " (the printed colours read it as " + cardWords(got.read) + ")" : "") + ".";
    render();
  }

  async function learn(replace) {
    const data = await call("POST", "/api/teach/learn", { name: $("teach-name").value.trim(), replace });
    if (data.ask === "replace" && window.confirm(data.error)) return learn(true);
    if (data.error) { $("teach-seen").textContent = data.error; return; }
    session = data;
    render();
  }

  async function check() {
    $("btn-check").disabled = true;
    const data = await call("POST", "/api/teach/check");
    if (data.error) { $("teach-message").textContent = data.error; $("btn-check").disabled = false; return; }
    session = data;
    render();
  }

  async function close() {
    if (session.state !== "learning" && session.state !== "idle") await call("DELETE", "/api/teach");
    session = { state: "idle" };
    $("teach-flow").hidden = true;
    $("btn-teach").hidden = false;
    showStep("teach-start");
  }

  $("deck-choice").addEventListener("change", (e) => chooseDeck(e.target.value));
  $("btn-teach").addEventListener("click", () => { $("teach-flow").hidden = false; $("btn-teach").hidden = true; showStep("teach-start"); });
  for (const button of document.querySelectorAll("#teach-start [data-family]")) {
    button.addEventListener("click", () => start(button.dataset.family, false));
  }
  $("btn-capture").addEventListener("click", capture);
  $("btn-skip").addEventListener("click", () => {
    skipped.add(nextCard());
    if (session.sequence.every((card) => card in session.captured || skipped.has(card))) skipped = new Set();
    render();
  });
  $("btn-learn").addEventListener("click", () => learn(false));
  $("btn-check").addEventListener("click", check);
  $("btn-use-deck").addEventListener("click", () => chooseDeck(session.name));
  $("btn-teach-again").addEventListener("click", () => start(session.family, false));
  $("btn-teach-close").addEventListener("click", close);

  loadDeck();
  refresh();
})();
