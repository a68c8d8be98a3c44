/* meldcam: the game page, live. The server streams the game's changes
   (GET /api/games/<id>/events, Server-Sent Events); on each one the page reads itself again
   and redraws what is in <main>, keeping what the player is doing: the rack being photographed
   (while the hand is the same), the panels left open. EventSource reconnects by itself after a
   dropped connection or sleep, saying the last version it saw (Last-Event-ID); if the server
   turned the stream away (too many open), the page tries again a little later. */
"use strict";

(() => {
  const setupNode = document.getElementById("live-setup");
  if (!setupNode || !window.EventSource) return;
  const gameId = JSON.parse(setupNode.textContent).game_id;
  let version = JSON.parse(setupNode.textContent).version;
  let source = null;
  let busy = false;
  let again = false;
  document.body.dataset.version = String(version);

  async function redraw() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const response = await fetch(location.pathname, { cache: "no-store", credentials: "same-origin" });
      if (!response.ok) return;
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
      const main = document.querySelector("main");
      const next = fresh.querySelector("main");
      if (!main || !next) return;
      const open = [...main.querySelectorAll("details[open][id]")].map((d) => d.id);
      const oldRack = main.querySelector("#my-rack");
      const newRack = next.querySelector("#my-rack");
      const sameRack = Boolean(oldRack && newRack && oldRack.dataset.hand === newRack.dataset.hand &&
        oldRack.dataset.seat === newRack.dataset.seat);
      if (sameRack) newRack.replaceWith(oldRack);
      main.replaceChildren(...next.childNodes);
      for (const id of open) {
        const details = document.getElementById(id);
        if (details) details.open = true;
      }
      document.title = fresh.title;
      document.body.dataset.version = String(version);
      document.dispatchEvent(new CustomEvent("meldcam:redrawn", { detail: { sameRack } }));
    } catch (error) {
      // offline for a moment: the next event (or reconnect) redraws
    } finally {
      busy = false;
      if (again) { again = false; redraw(); }
    }
  }

  function connect() {
    if (source) source.close();
    source = new EventSource(`/api/games/${encodeURIComponent(gameId)}/events?since=${version}`);
    source.onmessage = (event) => {
      const data = JSON.parse(event.data);
      version = Math.max(version, data.version);
      redraw();
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 5000);
    };
  }

  connect();
  // back from sleep: a stream the browser gave up on is opened again at once
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && source && source.readyState === EventSource.CLOSED) connect();
  });
})();
