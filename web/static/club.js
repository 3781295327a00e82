// The club page: its tables part is fetched again every few seconds (the server renders it; one renderer).
"use strict";
(function () {
  const live = document.getElementById("club-live");
  const part = document.getElementById("club-tables");
  const every = Number(live.dataset.refreshMs) || 2000;

  async function refresh() {
    try {
      const response = await fetch("/club?part=tables", { headers: { Accept: "text/html" } });
      if (!response.ok) throw new Error(String(response.status));
      part.innerHTML = await response.text();
      live.textContent = "● live";
      live.className = "live";
    } catch (error) {
      live.textContent = "○ reconnecting…";
      live.className = "live off";
    }
    setTimeout(refresh, every);
  }
  setTimeout(refresh, every);
})();
