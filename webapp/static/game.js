/* meldcam: game page. "Keep it" closes the undo question (the summary toggles it too). The
   listener sits on the document: the live page (live.js) redraws the tally and its buttons. */
"use strict";

(() => {
  document.addEventListener("click", (event) => {
    if (!event.target.closest("#undo-cancel")) return;
    const box = document.getElementById("undo-box");
    if (!box) return;
    box.open = false;
    document.getElementById("undo").focus();
  });
})();
