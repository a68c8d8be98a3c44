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
  /* only as many player fields as the game takes (Domino Gin: 2), so a game is never
     refused for its players after it was filled in */
  function showPlayers() {
    const chosen = form.querySelector("input[name=game]:checked");
    if (!chosen || !chosen.dataset.players) return;
    const [least, most] = chosen.dataset.players.split(" ").map(Number);
    for (const field of form.querySelectorAll(".player-field")) {
      const away = Number(field.dataset.seat) >= most;
      field.hidden = away;
      field.querySelector("input").disabled = away;  // not sent
    }
    const said = document.getElementById("player-count");
    if (said) {
      said.textContent = least === most ? I18n.t("{game} is played by {count} players.", { game: chosen.parentElement.textContent.trim(), count: most })
        : I18n.t("{game}: {least} to {most} players.", { game: chosen.parentElement.textContent.trim(), least, most });
    }
  }
  for (const radio of form.querySelectorAll("input[name=game]")) {
    radio.addEventListener("change", () => { showOptions(); showPlayers(); });
  }
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
  showPlayers();
})();
