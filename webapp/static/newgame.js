/* meldcam: new-game form. Shows the chosen game's options; a preset fills them in. */
"use strict";

(() => {
  const form = document.getElementById("new-game");
  if (!form) return;
  function showOptions() {
    const chosen = form.querySelector("input[name=game]:checked");
    for (const fieldset of form.querySelectorAll("fieldset.options")) {
      fieldset.hidden = !chosen || fieldset.dataset.game !== chosen.value;
    }
  }
  for (const radio of form.querySelectorAll("input[name=game]")) radio.addEventListener("change", showOptions);
  for (const select of form.querySelectorAll("select.preset")) {
    select.addEventListener("change", () => {
      const fieldset = select.closest("fieldset");
      const presets = JSON.parse(fieldset.querySelector("script.presets").textContent);
      const values = presets[select.value] || {};
      for (const [name, value] of Object.entries(values)) {
        const input = fieldset.querySelector(`[data-option="${name}"]`);
        if (!input) continue;
        if (input.type === "checkbox") input.checked = Boolean(value);
        else input.value = value === null ? "" : String(value);
      }
    });
  }
  showOptions();
})();
