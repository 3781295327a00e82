// The phone camera page: this phone's rear camera streamed to the referee as JPEG frames (web/api_phone.py).
// About 10 frames a second at 640x480 or the camera's nearest size, one frame on the way at a time: a slow link
// sends fewer, smaller frames, and nothing piles up. The screen is kept awake; after sleep, a lost network or a
// reload the page picks up again (the claim lives in the session cookie, the referee's watcher never stopped).
"use strict";
(() => {
  const { $ } = window.tableref;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const words = JSON.parse($("card-words").textContent);
  const ZONES = ["discard", "draw", "reveal"];
  const SVG = "http://www.w3.org/2000/svg";
  const FRAME_MS = 100;          // about 10 frames a second at most
  const WIDTH = 640;             // frames are at most this wide (the camera's own size when smaller)
  const SLOW_MS = 400;           // a round trip slower than this makes frames smaller
  const RETRY_MAX_MS = 8000;     // network lost: tries again, waiting longer each time, up to this
  const AUTO_RESUME = "tableref-phone-camera";  // set while this phone is the camera: a reload resumes

  let stream = null, wakeLock = null, running = false, retryMs = 500;
  let scale = 1, quality = 0.8, sent = 0, bytes = 0, started = 0, lastRoundTrip = 0;
  let newFrames = 0, sentFrame = -1;  // frames the video has shown (where the browser counts them)
  let sending = Promise.resolve();    // the frame on its way (stopping waits for it)
  const canvas = document.createElement("canvas");

  function say(text) {
    const box = $("phone-message");
    box.textContent = text || "";
    box.hidden = !text;
  }

  async function api(path, options) {
    const response = await fetch("/api/phone" + path, {
      credentials: "same-origin", ...options,
      headers: { "X-CSRF-Token": csrf, ...(options && options.headers) },
    });
    const data = await response.json().catch(() => ({ error: "unreadable answer (" + response.status + ")" }));
    return { status: response.status, data };
  }

  // ---- becoming the camera ------------------------------------------------------------------------------
  async function claim(takeover) {
    const { status, data } = await api("/claim", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ takeover }),
    });
    if (status === 409) {
      $("takeover-text").textContent = data.error;
      $("takeover").hidden = false;
      return false;
    }
    if (status !== 200) {
      say(status === 403 ? "Only someone with the table's PIN may be the camera: enter it first." : data.error);
      return false;
    }
    $("takeover").hidden = true;
    return true;
  }

  async function start(takeover) {
    if (!window.isSecureContext || !navigator.mediaDevices) {
      $("phone-insecure").hidden = false;
      return;
    }
    say("");
    if (!(await claim(takeover))) return;
    try {
      await openCamera();
    } catch (err) {
      say("The camera did not open: " + err.message + ". Allow this page to use the camera, then try again.");
      await api("/release", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
      return;
    }
    localStorage.setItem(AUTO_RESUME, "1");
    running = true;
    started = performance.now();
    sent = bytes = 0;
    $("btn-camera").hidden = $("phone-how").hidden = true;
    $("phone-live").hidden = false;
    keepAwake();
    loop();
  }

  async function openCamera() {
    if (stream && stream.getVideoTracks().some((track) => track.readyState === "live")) return;
    stream = await navigator.mediaDevices.getUserMedia({
      audio: false,
      video: { facingMode: { ideal: "environment" }, width: { ideal: 640 }, height: { ideal: 480 }, frameRate: { ideal: 15 } },
    });
    const video = $("phone-video");
    video.srcObject = stream;
    await video.play();
    if (video.requestVideoFrameCallback) {
      const counted = () => { newFrames += 1; video.requestVideoFrameCallback(counted); };
      video.requestVideoFrameCallback(counted);
    }
  }

  async function keepAwake() {
    if (!("wakeLock" in navigator) || document.visibilityState !== "visible") return;
    try {
      wakeLock = await navigator.wakeLock.request("screen");
    } catch (err) {
      wakeLock = null;  // refused (battery saver): the phone may sleep, and the page picks up again after
    }
  }

  async function stop() {
    running = false;
    await sending.catch(() => {});  // the frame on its way arrives before the camera is let go
    localStorage.removeItem(AUTO_RESUME);
    if (stream) stream.getTracks().forEach((track) => track.stop());
    stream = null;
    if (wakeLock) wakeLock.release().catch(() => {});
    wakeLock = null;
    $("phone-live").hidden = true;
    $("btn-camera").hidden = $("phone-how").hidden = false;
    await api("/release", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  }

  // ---- sending frames -----------------------------------------------------------------------------------
  function grab() {
    const video = $("phone-video");
    if (!video.videoWidth) return null;
    const width = Math.round(Math.min(WIDTH, video.videoWidth) * scale);
    canvas.width = width;
    canvas.height = Math.round(video.videoHeight * width / video.videoWidth);
    canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
    return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", quality));
  }

  // Smaller, lighter frames while the link is slow; back up to full size once it is quick again.
  function adapt(roundTrip) {
    lastRoundTrip = roundTrip;
    if (roundTrip > SLOW_MS) {
      scale = Math.max(0.5, scale * 0.85);
      quality = Math.max(0.5, quality - 0.05);
    } else if (roundTrip < SLOW_MS / 3) {
      scale = Math.min(1, scale * 1.05);
      quality = Math.min(0.8, quality + 0.02);
    }
  }

  async function sendOne() {
    const frameNumber = newFrames;
    const captured = performance.now();
    const blob = await grab();
    if (!blob) return;
    const { status, data } = await api("/frames", {
      method: "POST", body: blob,
      headers: { "Content-Type": "image/jpeg", "X-Frame-Time": (captured / 1000).toFixed(4) },
    });
    if (status === 409) {  // another phone took over, or the claim was lost
      running = false;
      localStorage.removeItem(AUTO_RESUME);
      $("takeover-text").textContent = data.error;
      $("takeover").hidden = false;
      return;
    }
    if (status === 403) {  // the PIN or the session is no longer good: sending again would be refused again
      running = false;
      say("The table refused this phone (" + data.error + "). Reload the page, and enter the PIN if it asks.");
      return;
    }
    if (status !== 200) {
      say("A frame was refused (" + status + "): " + data.error);
      return;
    }
    say("");
    sentFrame = frameNumber;
    sent += 1;
    bytes += blob.size;
    adapt(performance.now() - captured);
    const view = $("phone-view");
    view.width = canvas.width;
    view.height = canvas.height;
    view.getContext("2d").drawImage(canvas, 0, 0);
    show(data, blob.size);
  }

  async function loop() {
    while (running) {
      const tick = performance.now();
      const fresh = !$("phone-video").requestVideoFrameCallback || newFrames !== sentFrame;
      try {
        if (document.visibilityState === "visible" && fresh) {
          sending = sendOne();
          await sending;
        }
        retryMs = 500;
      } catch (err) {  // the network is gone for now: keep the camera, try again a little later
        say("Lost the connection to the table; trying again…");
        await new Promise((resolve) => setTimeout(resolve, retryMs));
        retryMs = Math.min(RETRY_MAX_MS, retryMs * 2);
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, FRAME_MS - (performance.now() - tick))));
    }
  }

  // ---- what the referee sees ----------------------------------------------------------------------------
  function show(status, size) {
    $("seen-top").textContent = status.top ? words[status.top] || status.top : "—";
    $("seen-turn").textContent = status.turn || "—";
    const last = status.last_event;
    if (!status.game_id) {
      $("seen-last").textContent = "No game is being played: start a new game on the table page, and the camera's plays go to it.";
    } else if (last) {
      const e = last.event;
      const what = [e.player, e.type, e.card || (e.count ? e.count + " card" + (e.count > 1 ? "s" : "") : "")]
        .filter(Boolean).join(" ");
      const flags = last.flags.length ? " ⚑ " + last.flags.join(", ").replaceAll("_", " ") : "";
      $("seen-last").textContent = "Last from the camera: " + what + (last.accepted === false ? " ✗ not taken" : " ✓") + flags;
    }
    const seconds = (performance.now() - started) / 1000;
    $("phone-stats").textContent = sent + " frames sent · " + (sent / seconds).toFixed(1) + "/s · " +
      Math.round(size / 1024) + " KB · " + canvas.width + "×" + canvas.height + " · " + Math.round(lastRoundTrip) + " ms";
    drawZones(status.zones);
  }

  function drawZones(zones) {
    const svg = $("phone-zones");
    svg.replaceChildren();
    if (!zones) return;
    for (const name of ZONES) {
      if (!zones[name]) continue;
      const shape = document.createElementNS(SVG, "polygon");
      shape.setAttribute("points", zones[name].map((p) => p.join(",")).join(" "));
      shape.setAttribute("class", "z-" + name);
      shape.setAttribute("vector-effect", "non-scaling-stroke");  // a stroke in pixels, not in picture widths
      svg.append(shape);
    }
  }

  // ---- sleep, wake, reload -------------------------------------------------------------------------------
  document.addEventListener("visibilitychange", async () => {
    if (document.visibilityState !== "visible" || !localStorage.getItem(AUTO_RESUME)) return;
    try {
      await openCamera();  // a phone that slept may have stopped the camera
    } catch (err) {
      say("The camera did not open again: " + err.message);
      return;
    }
    keepAwake();
    if (!running) { running = true; loop(); }
  });

  const note = $("certificate-note");
  if (note) {
    const seen = "tableref-certificate-note";
    note.hidden = Boolean(localStorage.getItem(seen));
    $("btn-certificate-ok").addEventListener("click", () => { localStorage.setItem(seen, "1"); note.hidden = true; });
  }
  if (!window.isSecureContext) $("phone-insecure").hidden = false;
  $("btn-camera").addEventListener("click", () => start(false));
  $("btn-takeover").addEventListener("click", () => start(true));
  $("btn-stop").addEventListener("click", stop);
  if ($("phone").dataset.yours === "yes" && localStorage.getItem(AUTO_RESUME)) start(false);
})();
