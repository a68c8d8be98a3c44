/* meldcam: a seated player's phone. "Photograph your rack": the photo is read on the
   server, the player corrects it here, then sends it to the host (PUT /api/games/<id>/racks/
   <seat> with the seat's token). Sending again replaces what was sent. When the hand is saved
   the live page draws the next hand's card, and this mounts a board on it again. */
"use strict";

(() => {
  const { t } = I18n;  // the page's language (static/i18n.js)

  function mount() {
    const card = document.getElementById("my-rack");
    const setupNode = document.getElementById("rack-setup");
    if (!card || !setupNode || card.dataset.mounted) return;
    card.dataset.mounted = "1";
    const setup = JSON.parse(setupNode.textContent);
    const send = document.getElementById("send-rack");
    const said = document.getElementById("rack-sent");
    const board = new Meldcam.Board(card, setup, {
      withMelds: false,
      onChange: () => {
        send.disabled = board.reading();
        if (card.dataset.sent) { said.textContent = t("Changed since it was sent: send it again."); delete card.dataset.sent; }
      },
    });
    if (setup.sent) {
      if (setup.sent.board) board.restore(setup.sent.board, setup.sent.pieces);
      else board.setPieces(setup.sent.pieces);
      card.dataset.sent = "1";
    }
    send.addEventListener("click", async () => {
      const unsure = board.unsureCount();
      if (unsure) {
        said.textContent = t("Check the pieces marked ? first ({count}).", { count: unsure });
        return;
      }
      send.disabled = true;
      said.textContent = t("Sending…");
      const body = { hand: setup.hand, pieces: board.labels(), board: board.state() };
      const url = `/api/games/${encodeURIComponent(setup.game_id)}/racks/${setup.seat}`;
      try {
        const response = await fetch(url, { method: "PUT", body: JSON.stringify(body),
          headers: { "Content-Type": "application/json", "X-Seat-Token": setup.token } });
        let data = {};
        try { data = await response.json(); } catch (e) { data = { error: t("the server answered {status}", { status: response.status }) }; }
        if (response.ok) {
          const n = body.pieces.length;
          said.textContent = n ? t("Sent: the host has your pieces ({count}).", { count: n }) : t("Sent: you hold nothing.");
          card.dataset.sent = "1";
        } else {
          said.textContent = data.error_text || data.error || t("Not sent: try again.");
        }
      } catch (error) {
        said.textContent = t("Not sent: check the connection, then send again.");
      } finally {
        send.disabled = false;
      }
    });
  }

  mount();
  document.addEventListener("meldcam:redrawn", mount);
})();
