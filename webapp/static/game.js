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
  // Undo's question opens in view, not below the fold
  document.addEventListener("toggle", (event) => {
    if (event.target.id === "undo-box" && event.target.open) {
      const ask = event.target.querySelector(".undo-ask");
      if (ask) ask.scrollIntoView({ block: "nearest" });
    }
  }, true);
  // the read link through the phone's own share sheet (Web Share), else copied
  const share = document.getElementById("share-read");
  const readLink = document.getElementById("read-link");
  if (share && readLink && (navigator.share || (navigator.clipboard && window.isSecureContext))) {
    const copied = document.getElementById("share-said");
    if (!navigator.share) share.textContent = I18n.t("Copy the read link");
    share.hidden = false;
    share.addEventListener("click", async () => {
      const url = readLink.href;
      try {
        if (navigator.share) {
          await navigator.share({ title: document.title, url });
        } else {
          await navigator.clipboard.writeText(url);
          copied.textContent = I18n.t("Copied.");
        }
      } catch (error) { /* the share sheet was closed: nothing to say */ }
    });
  }
  // and a line once it is undone (the page that answers the undo shows it)
  document.addEventListener("submit", (event) => {
    const undo = event.target.closest("form[data-undo]");
    if (!undo) return;
    const node = document.getElementById("live-setup");
    try {
      sessionStorage.setItem("meldcam-saved", JSON.stringify({
        game: node ? JSON.parse(node.textContent).game_id : null, number: Number(undo.dataset.undo), undone: true }));
    } catch (error) { /* no line then */ }
  });
  // a line that the hand was saved (the end-of-hand page left it in sessionStorage)
  let said = null;
  try {
    said = JSON.parse(sessionStorage.getItem("meldcam-saved") || "null");
    sessionStorage.removeItem("meldcam-saved");
  } catch (error) { said = null; }
  const setupNode = document.getElementById("live-setup");
  const gameId = setupNode ? JSON.parse(setupNode.textContent).game_id : null;
  if (said && said.game === gameId) {
    const line = document.createElement("p");
    line.className = "banner saved";
    line.id = "saved-note";
    line.setAttribute("role", "status");
    line.textContent = said.undone ? I18n.t("Hand {number} undone.", { number: said.number })
      : said.edited ? I18n.t("Hand {number} changed and saved.", { number: said.number })
        : I18n.t("Hand {number} saved.", { number: said.number });
    const title = document.querySelector("main h1");
    if (title) title.after(line);
  }
})();
