/* meldcam: dispute mode. Pieces from a photo or tapped in; verdict after every change. */
"use strict";

(() => {
  const setup = Meldcam.readSetup();
  const errorBox = document.getElementById("verdict-error");
  const tableBox = document.getElementById("table-verdict");
  const openingBox = document.getElementById("opening-verdict");
  const openingInput = document.getElementById("opening");
  let asked = 0;

  async function judge() {
    const ticket = ++asked;
    const melds = board.melds();
    const pieces = board.labels();
    errorBox.hidden = true;
    if (!pieces.length) {
      board.setVerdicts(null);
      tableBox.textContent = "No pieces yet.";
      openingBox.hidden = true;
      document.body.dataset.judged = String(ticket);
      return;
    }
    const base = { game: setup.game, options: setup.options };
    const opening = Boolean(openingInput && openingInput.checked);
    const [check, table] = await Promise.all([
      Meldcam.postJSON("/api/check", { ...base, melds, opening }),
      Meldcam.postJSON("/api/table", { ...base, pieces }),
    ]);
    if (ticket !== asked) return; // a newer change is being judged
    if (!check.ok) {
      errorBox.textContent = check.data.error;
      errorBox.hidden = false;
      board.setVerdicts(null);
    } else {
      board.setVerdicts(check.data.melds);
      if (check.data.opening) {
        const o = check.data.opening;
        openingBox.textContent = o.valid
          ? `✓ a legal opening: ${o.value} points (at least ${o.threshold})`
          : `✗ not an opening: ${o.reason || `${o.value} of ${o.threshold} points`}`;
        openingBox.hidden = false;
      } else {
        openingBox.hidden = true;
      }
    }
    if (!table.ok) {
      tableBox.textContent = "";
      if (check.ok) { errorBox.textContent = table.data.error; errorBox.hidden = false; }
    } else if (table.data.valid) {
      const layout = table.data.melds.map((m) => m.join(" ")).join(" · ");
      tableBox.textContent = `✓ All ${pieces.length} pieces can be laid out as legal melds: ${layout}`;
    } else {
      tableBox.textContent = `✗ These ${pieces.length} pieces cannot all be laid out as legal melds` +
        (table.data.reason ? `: ${table.data.reason}` : ".");
    }
    document.body.dataset.judged = String(ticket);
  }

  const judgeSoon = Meldcam.debounce(judge, 120);
  const board = new Meldcam.Board(document.getElementById("board"), setup, {
    withMelds: true, onChange: (now) => (now ? judge() : judgeSoon()),
  });
  if (openingInput) openingInput.addEventListener("change", judgeSoon);
})();
