// Calibrating the table zones by hand on the live camera view: pick a zone, drag a rectangle over it
// (mouse or touch), save it for this camera (PUT /api/camera/zones) or go back to automatic (DELETE).
// Points are fractions of the picture (0..1 across and down), so they fit any display size.
"use strict";

(function () {
  const URL = "/api/camera/zones";
  const NAMES = ["discard", "draw", "reveal"];
  const SOURCES = {
    calibrated: "calibrated by hand",
    located: "found automatically",
    default: "the usual layout until the first card settles (then found automatically)",
  };
  //: Smallest zone accepted, as a share of the picture (the server's MIN_ZONE_AREA).
  const MIN_AREA = 0.001;
  const SVG = "http://www.w3.org/2000/svg";
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const { $ } = window.tableref;
  const frame = $("camera-frame");
  const image = $("camera-view");
  const picks = [...document.querySelectorAll(".zone-pick")];
  const label = (name) => picks.find((b) => b.dataset.zone === name).textContent;

  let drafts = {};   // zone name -> polygon [[x, y], ...] being edited
  let chosen = "discard";
  let drag = null;   // {start: [x, y], pointer: id, before: the zone as it was} while a rectangle is dragged

  async function call(method, body) {
    const options = { method: method, credentials: "same-origin", headers: { "X-CSRF-Token": csrf } };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(URL, options);
    } catch (err) {
      return { error: "the server cannot be reached: " + err.message };
    }
    const data = await response.json().catch(() => ({ error: "unreadable answer (" + response.status + ")" }));
    return response.ok ? data : { error: data.error || "refused (" + response.status + ")" };
  }

  function showState(answer) {
    $("zones-state").textContent = answer.error ? "Zones: " + answer.error : "Zones: " + (SOURCES[answer.source] || answer.source);
  }

  function say(text) {
    $("calibration-help").textContent = text;
  }

  // ---- drawing the drafts over the picture ----------------------------------------------------
  function render() {
    const shapes = $("zone-shapes");
    const labels = $("zone-labels");
    shapes.replaceChildren();
    labels.replaceChildren();
    for (const name of NAMES) {
      const polygon = drafts[name];
      if (!polygon) continue;
      const shape = document.createElementNS(SVG, "polygon");
      shape.setAttribute("points", polygon.map((p) => p.join(",")).join(" "));
      shape.setAttribute("vector-effect", "non-scaling-stroke");
      shape.setAttribute("class", "z-" + name + (name === chosen ? " chosen" : ""));
      shapes.append(shape);
      const tag = document.createElement("span");
      tag.className = "zone-label z-" + name;
      tag.textContent = label(name);
      tag.style.left = Math.min(...polygon.map((p) => p[0])) * 100 + "%";
      tag.style.top = Math.min(...polygon.map((p) => p[1])) * 100 + "%";
      labels.append(tag);
    }
    for (const button of picks) button.setAttribute("aria-pressed", String(button.dataset.zone === chosen));
  }

  function at(event) {
    const box = image.getBoundingClientRect();
    const clamp = (v) => Math.round(Math.min(1, Math.max(0, v)) * 10000) / 10000;
    return [clamp((event.clientX - box.left) / box.width), clamp((event.clientY - box.top) / box.height)];
  }

  function rectangle(a, b) {
    const [x1, x2] = [Math.min(a[0], b[0]), Math.max(a[0], b[0])];
    const [y1, y2] = [Math.min(a[1], b[1]), Math.max(a[1], b[1])];
    return [[x1, y1], [x2, y1], [x2, y2], [x1, y2]];
  }

  function onDown(event) {
    if (!frame.classList.contains("calibrating") || drag) return;
    event.preventDefault();
    frame.setPointerCapture(event.pointerId);
    drag = { start: at(event), pointer: event.pointerId, before: drafts[chosen] };
    drafts[chosen] = rectangle(drag.start, drag.start);
    render();
  }

  function onMove(event) {
    if (!drag || event.pointerId !== drag.pointer) return;
    drafts[chosen] = rectangle(drag.start, at(event));
    render();
  }

  function onUp(event) {
    if (!drag || event.pointerId !== drag.pointer) return;
    const box = rectangle(drag.start, at(event));
    const area = (box[1][0] - box[0][0]) * (box[2][1] - box[1][1]);
    if (area < MIN_AREA || event.type === "pointercancel") {
      drafts[chosen] = drag.before;
      say("Too small: drag a rectangle over the whole " + label(chosen).toLowerCase() + ".");
    } else {
      drafts[chosen] = box;
      say(label(chosen) + " drawn. Pick another zone to draw, or save.");
    }
    drag = null;
    render();
  }

  // ---- calibration mode -----------------------------------------------------------------------
  function showDrafts(shown) {
    // the attribute, not the property: an <svg> element has no `hidden` property
    for (const id of ["zone-shapes", "zone-labels"]) $(id).toggleAttribute("hidden", !shown);
  }

  async function startCalibration() {
    const answer = await call("GET");
    showState(answer);
    if (answer.error) return;
    const inFrame = !answer.zones.homography;  // zones on a top-down view cannot be drawn over the picture
    drafts = {};
    for (const name of NAMES) if (inFrame) drafts[name] = answer.zones[name];
    chosen = "discard";
    frame.classList.add("calibrating");
    showDrafts(true);
    $("calibration").hidden = false;
    $("btn-calibrate").hidden = true;
    say("Pick a zone, then drag a rectangle over it on the picture.");
    render();
    frame.closest(".camera").scrollIntoView({ block: "start" });
  }

  function endCalibration() {
    drag = null;
    frame.classList.remove("calibrating");
    showDrafts(false);
    $("calibration").hidden = true;
    $("btn-calibrate").hidden = false;
  }

  async function save() {
    const missing = NAMES.filter((name) => !drafts[name]);
    if (missing.length) {
      say("Draw the " + missing.map((name) => label(name).toLowerCase()).join(" and the ") + " first.");
      return;
    }
    const answer = await call("PUT", { discard: drafts.discard, draw: drafts.draw, reveal: drafts.reveal });
    if (answer.error) {
      say("Not saved: " + answer.error);
      return;
    }
    showState(answer);
    endCalibration();
  }

  async function automatic() {
    const answer = await call("DELETE");
    if (answer.error) {
      say("Not changed: " + answer.error);
      return;
    }
    showState(answer);
    endCalibration();
  }

  for (const button of picks) {
    button.onclick = () => {
      chosen = button.dataset.zone;
      say("Drag a rectangle over the " + label(chosen).toLowerCase() + ".");
      render();
    };
  }
  frame.addEventListener("pointerdown", onDown);
  frame.addEventListener("pointermove", onMove);
  frame.addEventListener("pointerup", onUp);
  frame.addEventListener("pointercancel", onUp);
  $("btn-calibrate").onclick = startCalibration;
  $("btn-zones-save").onclick = save;
  $("btn-zones-cancel").onclick = endCalibration;
  $("btn-zones-auto").onclick = automatic;
  call("GET").then(showState);
})();
