// New-game form: show the chosen preset's description and fill in its option values.
"use strict";
(function () {
  const presets = JSON.parse(document.getElementById("presets-data").textContent);
  const options = JSON.parse(document.getElementById("options-data").textContent);
  const select = document.getElementById("preset");
  const byName = Object.fromEntries(presets.map((p) => [p.name, p]));
  const defaults = Object.fromEntries(options.map((o) => [o.name, o.default]));

  function showDescription() {
    for (const p of document.querySelectorAll(".preset-text")) p.hidden = p.dataset.preset !== select.value;
  }

  function applyPreset() {
    const values = Object.assign({}, defaults, (byName[select.value] || {}).options || {});
    for (const input of document.querySelectorAll("[data-option]")) {
      const value = values[input.dataset.option];
      if (input.type === "checkbox") input.checked = !!value;
      else if (value !== undefined && value !== null) input.value = value;
    }
  }

  select.addEventListener("change", () => { showDescription(); applyPreset(); });
  showDescription();
  if (!document.querySelector("[data-testid=form-error]")) applyPreset();
})();
