// Flag when sure, ask when not: the question panel for an unsure reading, and "why?" on every flag with evidence.
"use strict";

(function () {
  const root = document.getElementById("table");
  if (!root) return;
  const api = "/api/games/" + root.dataset.game;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const words = JSON.parse(document.getElementById("card-words").textContent);
  const { $, el } = window.tableref;
  const cardWords = (id) => window.tableref.cardWords(words, id);
  const percent = (p) => Math.round(100 * p) + " %";
  const UNO_COLORS = ["red", "yellow", "green", "blue"];

  function tileClass(id) {
    const colour = id.includes("-") ? id.split("-")[0] : "";
    if (UNO_COLORS.includes(colour)) return "c-" + colour;
    if (/^(10|[2-9AJQK])[SHDC]$/.test(id)) return "c-suit-" + id.slice(-1);
    return "c-wild";
  }

  const controls = root.dataset.control === "yes"; // this phone may answer (the table's PIN given)
  let shown = null; // the id of the question on screen
  let sending = false; // an answer is on its way
  let evidence = {}; // event seq -> still id

  // ---- the question ---------------------------------------------------------------------------
  function whoDid(event) {
    return event.player ? event.player + "'s" : "this";
  }

  function renderQuestion(question) {
    const panel = $("question");
    if (!question) { panel.hidden = true; shown = null; return; }
    if (shown === question.id || sending) return;
    shown = question.id;
    const read = question.options[0];
    const earlier = !!question.waiting;
    $("question-title").textContent = (earlier ? "Was " + whoDid(question.event) + " card on the pile " :
      question.after ? "Was " + whoDid(question.event) + " card " : "Was that ") + cardWords(read) + "?";
    const flags = (question.would_flag || []).map((f) => f.words || f.reason || f.kind).join("; ");
    $("question-why").textContent = question.after ?
      "The camera node was only " + percent(question.reading.prob) + " sure it was " + cardWords(question.reading.card) +
      " and nobody there answered: it was taken as " + cardWords(read) + ", the benefit of the doubt." :
      "The camera is only " + percent(question.reading.prob) + " sure. " +
      (earlier ? "What happened since would be flagged if it was: " : "If it was, " + whoDid(question.event) + " play is flagged: ") +
      (flags || "a rule is broken") + ".";
    const still = $("question-still");
    still.hidden = !question.still_url;
    if (question.still_url) still.src = question.still_url;
    const box = $("question-options");
    box.replaceChildren();
    $("question-status").textContent = "";
    $("question-other").hidden = true;
    if (controls) {
      box.append(el("button", { type: "button", className: "yes " + tileClass(read), onclick: () => answer(read) },
        "✓ Yes, " + cardWords(read)));
      for (const id of question.options.slice(1)) {
        box.append(el("button", { type: "button", className: tileClass(id), onclick: () => answer(id) }, cardWords(id)));
      }
      box.append(el("button", { type: "button", className: "other", onclick: () => { $("question-other").hidden = false; $("question-card").focus(); } }, "Other…"));
    } else {
      box.append(el("p", { className: "muted" }, "A phone with the table's PIN answers. ",
        el("a", { href: "/unlock?next=" + encodeURIComponent(location.pathname) }, "Enter the table PIN")));
    }
    panel.hidden = false;
    panel.scrollIntoView({ block: "start", behavior: "smooth" }); // a question while scrolled down must be seen
    $("question-title").focus({ preventScroll: true });
    if (navigator.vibrate) navigator.vibrate(200);
  }

  // a card id as typed on a phone: UNO ids and the Joker in lower case, standard faces in upper case (10h -> 10H)
  function typedCard(text) {
    const id = text.trim();
    return /^(10|[2-9ajqk])[shdc]$/i.test(id) ? id.toUpperCase() : id.toLowerCase();
  }

  function setSending(on) {
    sending = on;
    for (const button of document.querySelectorAll("#question button")) button.disabled = on;
    $("question-status").textContent = on ? "Sending…" : "";
  }

  async function answer(card) {
    const asked = shown;
    if (asked == null || !card || sending) return;
    setSending(true);
    const response = await fetch(api + "/questions/" + asked + "/answer", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ card: card }),
    }).catch(() => null);
    setSending(false);
    if (shown !== asked) return; // another question is on screen by now
    if (!response || !response.ok) {
      const data = response ? await response.json().catch(() => ({})) : {};
      $("question-status").textContent = "Not sent: " + (data.error || "the server cannot be reached") + ".";
      return;
    }
    const done = await response.json().catch(() => ({}));
    renderQuestion(null);
    if (done.overtaken) $("banners").prepend(el("div", { className: "banner info" }, "Answer kept: " + done.overtaken + "."));
    pollQuestions();
  }

  async function pollQuestions() {
    const response = await fetch(api + "/questions").catch(() => null);
    if (!response || !response.ok) return;
    const data = await response.json();
    renderQuestion(data.questions[0] || null);
    $("question-held").textContent = data.held ? data.held + (data.held > 1 ? " more plays or draws the camera saw wait"
      : " more play or draw the camera saw waits") + " for this answer." : "";
  }

  // ---- the "why?" -----------------------------------------------------------------------------
  async function showWhy(seq) {
    const response = await fetch(api + "/events/" + seq + "/why").catch(() => null);
    if (!response || !response.ok) return;
    const why = await response.json();
    $("why-event").textContent = "#" + why.seq + " " + why.entry.text;
    const still = $("why-still");
    still.hidden = !why.still_url;
    if (why.still_url) still.src = why.still_url;
    const r = why.reading;
    $("why-reading").textContent = r ? "The camera read " + cardWords(r.card) + ", " + percent(r.prob) + " sure" +
      (r.sure ? " (sure: flagged at once)" : " (not sure)") + (r.frames > 1 ? ", over " + r.frames + " frames." : ".")
      : "No camera reading: this event was entered by hand.";
    const q = why.question;
    $("why-question").textContent = !q ? "" : q.waiting ?
      "The table was asked whether " + whoDid(q.event) + " card before it was " + cardWords(q.options[0]) +
      " and answered " + cardWords(q.answer) + ": this ruling follows that answer." :
      "The table was asked \u201c" + cardWords(q.options[0]) + "?\u201d and answered " + cardWords(q.answer) + ".";
    $("why-dialog").showModal();
  }

  function whyButton(seq) {
    const button = el("button", { type: "button", className: "why", onclick: () => showWhy(seq) }, "why?");
    button.dataset.why = seq;
    return button;
  }

  function decorate() {
    for (const item of document.querySelectorAll("#log li.flagged, #log li.penalty")) {
      const seq = item.dataset.seq;
      if (evidence[seq] && !item.querySelector("button.why")) item.append(whyButton(seq));
    }
    const newest = document.querySelector("#log li");
    const seq = newest && newest.dataset.seq;
    for (const banner of document.querySelectorAll("#banners .banner.flag, #banners .banner.penalty:not(.owed)")) {
      if (seq && evidence[seq] && !banner.querySelector("button.why")) banner.append(whyButton(seq));
    }
  }

  async function refreshEvidence() {
    const response = await fetch(api + "/evidence").catch(() => null);
    if (!response || !response.ok) return;
    evidence = (await response.json()).stills;
    decorate();
  }

  let pending = null;
  const observer = new MutationObserver(() => {
    clearTimeout(pending);
    pending = setTimeout(refreshEvidence, 150);
  });
  observer.observe($("log"), { childList: true });
  observer.observe($("banners"), { childList: true });
  $("question-other").addEventListener("submit", (e) => { e.preventDefault(); answer(typedCard($("question-card").value)); });
  refreshEvidence();
  pollQuestions();
  setInterval(pollQuestions, 1500);
})();
