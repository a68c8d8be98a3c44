/* meldcam: end of hand. Each player's pieces from a photo or tapped in; scores previewed by
   the scorer on every change; "Confirm" posts the hand (with the CSRF token) to be saved. */
"use strict";

(() => {
  const { t, tn } = I18n;
  const setup = Meldcam.readSetup();
  const winnerSelect = document.getElementById("winner");
  const knockerSelect = document.getElementById("knocker");
  const fromHand = document.getElementById("from-hand");
  const errorBox = document.getElementById("preview-error");
  const waitingBox = document.getElementById("preview-waiting");
  const boardsInput = document.getElementById("boards-json");
  const resultBox = document.getElementById("preview-result");
  const confirm = document.getElementById("confirm");
  const handInput = document.getElementById("hand-json");
  const boards = new Map();
  let asked = 0;

  function hand() {
    if (setup.hand_style === "racks") {
      const winner = winnerSelect.value || null;
      const racks = {};
      for (const [name, board] of boards) racks[name] = name === winner ? [] : board.labels();
      const result = { players: setup.players, winner, racks };
      if (fromHand) result.from_hand = fromHand.checked;
      return result;
    }
    const hands = {};
    for (const [name, board] of boards) hands[name] = board.labels();
    return { players: setup.players, knocker: knockerSelect.value, hands };
  }

  function showWinner() {
    if (!winnerSelect) return;
    for (const section of document.querySelectorAll(".player-board")) {
      const out = section.dataset.player === winnerSelect.value;
      section.querySelector(".went-out").hidden = !out;
      section.querySelector(".board-body").hidden = out;
    }
  }

  function describe(result) {
    const rows = setup.players.map((p) => {
      const tr = Meldcam.el("tr");
      tr.append(Meldcam.el("th", {}, p));
      const delta = result.deltas[p] || 0;
      tr.append(Meldcam.el("td", { class: "delta" }, delta > 0 ? "+" + delta : String(delta)));
      // what each rack holds, as on a paper score sheet: not only the +/-
      const rack = result.rack_values ? result.rack_values[p] : undefined;
      const deadwood = result.deadwood ? result.deadwood[p] : undefined;
      const held = rack !== undefined ? t("rack {points}", { points: rack })
        : deadwood !== undefined ? t("deadwood {points}", { points: deadwood }) : "";
      tr.append(Meldcam.el("td", { class: "muted rack-total" }, held));
      return tr;
    });
    const table = Meldcam.el("table", { class: "preview" });
    table.append(...rows);
    const words = { out: t("went out"), "remik-from-hand": t("remik z ręki (doubled)"),
      "stock-exhausted": t("stock ran out"), gin: t("gin"), "big-gin": t("big gin"), knock: t("knock"),
      undercut: t("undercut"), tie: t("tie") };
    const word = words[result.outcome] || result.outcome;
    const head = Meldcam.el("p", { class: "outcome" }, result.winner
      ? t("{outcome}: {name} wins the hand", { outcome: word, name: result.winner }) : word);
    resultBox.replaceChildren(head, table, ...details(result));
  }

  /** The scorer's melds and layoffs (gin games), so players can see why. */
  function details(result) {
    const lines = [];
    if (result.melds && !Array.isArray(result.melds)) {
      for (const p of setup.players) {
        const melds = result.melds[p] || [];
        const left = result.unmatched ? result.unmatched[p] || [] : [];
        const text = melds.map((m) => m.join(" ")).join(" · ") || t("no melds");
        lines.push(Meldcam.el("p", { class: "details" }, left.length
          ? t("{name}: {melds} | deadwood: {pieces}", { name: p, melds: text, pieces: left.join(" ") })
          : t("{name}: {melds}", { name: p, melds: text })));
      }
    }
    for (const layoff of result.layoffs || []) {
      const pieces = (layoff.cards || layoff.pieces || []).join(" ");
      lines.push(Meldcam.el("p", { class: "details muted" }, layoff.onto
        ? t("{name} lays off {pieces} onto {meld}", { name: layoff.player, pieces, meld: layoff.onto.join(" ") })
        : t("{name} lays off {pieces}", { name: layoff.player, pieces })));
    }
    return lines;
  }

  /** Whose pieces are still missing: judged here, the server is asked only once every
   *  player who must show pieces has some (issue 22: a fresh page said in red that Bob's rack
   *  was empty, and every such state was a failed request). */
  function missing() {
    const winner = winnerSelect ? winnerSelect.value || null : undefined;
    return setup.players.filter((p) => p !== winner && !boards.get(p).pieces.length);
  }


  /** "Bob’s and Cy’s": whose pieces (each name as the language says "someone's"). */
  function owners(names) { return I18n.list(names.map((name) => t("{name}’s", { name }))); }

  async function preview() {
    const ticket = ++asked;
    const current = hand();
    handInput.value = JSON.stringify(current);
    const shown = {};
    for (const [name, board] of boards) shown[name] = board.state();
    boardsInput.value = JSON.stringify(shown);
    confirm.disabled = true;
    const reading = setup.players.filter((p) => boards.get(p).reading());
    const waiting = missing();
    if (reading.length || waiting.length) {
      errorBox.hidden = true;
      resultBox.replaceChildren();
      waitingBox.textContent = reading.length
        ? tn("Reading {names}’s photo…", "Reading {names}’s photo…", reading.length, { names: I18n.list(reading) })
        : tn("Waiting for {owners} pieces: photograph or tap them in.",
          "Waiting for {owners} pieces: photograph or tap them in.", waiting.length, { owners: owners(waiting) });
      document.body.dataset.judged = String(ticket);
      return;
    }
    const answer = await Meldcam.postJSON("/api/score", { game: setup.game, options: setup.options, hand: current });
    if (ticket !== asked) return;
    if (answer.ok) {
      errorBox.hidden = true;
      describe(answer.data);
      // pieces the reader was not sure of are confirmed (one tap) before the hand is saved
      const unsure = setup.players.filter((p) => p !== (winnerSelect && winnerSelect.value) && boards.get(p).unsureCount());
      waitingBox.textContent = unsure.length
        ? tn("Check the pieces marked ? on {owners} board before saving.",
          "Check the pieces marked ? on {owners} boards before saving.", unsure.length, { owners: owners(unsure) })
        : "";
      confirm.disabled = unsure.length > 0;
    } else {
      waitingBox.textContent = "";
      errorBox.replaceChildren(Meldcam.withFaces(answer.data.error, setup.kind));
      errorBox.hidden = false;
      resultBox.replaceChildren();
    }
    document.body.dataset.judged = String(ticket);
  }

  const previewSoon = Meldcam.debounce(preview, 150);
  for (const section of document.querySelectorAll(".player-board")) {
    boards.set(section.dataset.player, new Meldcam.Board(section, setup, {
      withMelds: false, onChange: (now) => (now ? preview() : previewSoon()),
    }));
  }
  // what was entered before the language was switched, else the hand being edited
  const draft = I18n.takeDraft();
  const start = draft && draft.hand ? draft : { hand: setup.hand, boards: setup.boards };
  if (start.hand) {  // editing a saved hand, a hand sent back with an error, or a draft
    const h = start.hand;
    if (winnerSelect) winnerSelect.value = h.winner || "";
    if (knockerSelect && h.knocker) knockerSelect.value = h.knocker;
    if (fromHand) fromHand.checked = Boolean(h.from_hand);
    const given = h.racks || h.hands || {};
    const saved = start.boards || {};  // the photos the hand was entered from
    for (const [name, board] of boards) {
      if (!Array.isArray(given[name])) continue;
      if (saved[name]) board.restore(saved[name], given[name]);
      else board.setPieces(given[name]);
    }
  }
  for (const input of [winnerSelect, knockerSelect, fromHand]) {
    if (input) input.addEventListener("change", () => { showWinner(); previewSoon(); });
  }
  showWinner();
  preview();
  I18n.keepDraft(() => {
    const shown = {};
    for (const [name, board] of boards) {
      const state = board.state();
      state.photos = state.photos.map((p) => (p ? { ...p, url: `/api/photos/${p.id}` } : null));
      shown[name] = state;
    }
    return { hand: hand(), boards: shown };
  });

  /* issue 27: the racks the players send from their own phones appear on their boards as they
     arrive (the game's event stream says when), marked with who sent them */
  if (setup.live && window.EventSource) {
    const taken = new Map();
    const clock = (iso) => new Date(iso.endsWith("Z") || iso.includes("+") ? iso : iso + "Z")
      .toLocaleTimeString(I18n.lang, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
    const takeRacks = async () => {
      let data;
      try {
        const response = await fetch(`/api/games/${encodeURIComponent(setup.game_id)}/racks`, { cache: "no-store" });
        if (!response.ok) return;
        data = await response.json();
      } catch (error) { return; }
      if (data.hand !== setup.live.hand) return;  // this hand was saved meanwhile
      let changed = false;
      for (const seat of data.seats) {
        const section = [...document.querySelectorAll(".player-board")].find((s) => s.dataset.player === seat.player);
        const board = boards.get(seat.player);
        if (!section || !board) continue;
        const mark = section.querySelector(".sent-by");
        if (seat.rack && taken.get(seat.player) !== seat.rack.sent_at) {
          taken.set(seat.player, seat.rack.sent_at);
          board.clear();
          if (seat.rack.board) board.restore(seat.rack.board, seat.rack.pieces);
          else board.setPieces(seat.rack.pieces);
          section.dataset.sent = seat.rack.sent_at;
          mark.textContent = t("Sent from {name}’s phone at {time}.", { name: seat.player, time: clock(seat.rack.sent_at) });
          changed = true;
        } else if (!seat.rack && mark) {
          mark.textContent = seat.joined ? t("{name}’s phone has joined: its rack is not sent yet.", { name: seat.player }) : "";
        }
      }
      if (changed) preview();
    };
    // EventSource reconnects by itself (Last-Event-ID); a stream the server turned away (503)
    // or the browser gave up on after a sleep is opened again, and the racks read again
    let version = setup.live.version;
    let source = null;
    const listen = () => {
      if (source) source.close();
      source = new EventSource(
        `/api/games/${encodeURIComponent(setup.game_id)}/events?since=${version}`);
      source.onmessage = (event) => {
        const change = JSON.parse(event.data);
        version = Math.max(version, change.version);
        if (change.kind === "rack" || change.kind.startsWith("seat")) takeRacks();
      };
      source.onerror = () => {
        if (source.readyState === EventSource.CLOSED) setTimeout(() => { listen(); takeRacks(); }, 5000);
      };
    };
    takeRacks();
    listen();
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && source.readyState === EventSource.CLOSED) { listen(); takeRacks(); }
    });
  }
})();
