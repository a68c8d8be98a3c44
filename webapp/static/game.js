/* meldcam: game page. "Keep it" closes the undo question (the summary toggles it too). */
"use strict";

(() => {
  const box = document.getElementById("undo-box");
  const cancel = document.getElementById("undo-cancel");
  if (!box || !cancel) return;
  cancel.addEventListener("click", () => {
    box.open = false;
    document.getElementById("undo").focus();
  });
})();
