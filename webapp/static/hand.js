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
  const form = document.getElementById("save-form");
  const failedBox = document.getElementById("save-failed");
  const failedText = document.getElementById("save-failed-text");
  const retry = document.getElementById("save-retry");
  const boards = new Map();
  const touched = new Set();  // boards the host changed here (not only filled from a seat's phone)
  const taken = new Map();  // player -> when the rack taken from their phone was sent
  let asked = 0;
  let entered = false;  // something was entered on this page: kept as a draft until saved
  let saved = false;

  /** Who went out: a name, null for "the stock ran out"; "choose…" (unset) is null too. */
  function winnerValue() { return winnerSelect.value === "-" ? null : winnerSelect.value || null; }
  function winnerUnset() { return Boolean(winnerSelect) && winnerSelect.value === ""; }
  function knockerUnset() { return Boolean(knockerSelect) && knockerSelect.value === ""; }

  function hand() {
    if (setup.hand_style === "racks") {
      const winner = winnerValue();
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
    const word = Meldcam.facts.words.outcomes[result.outcome] || result.outcome;  // the server's words
    const head = Meldcam.el("p", { class: "outcome" }, result.winner
      ? t("{outcome}: {name} wins the hand", { outcome: word, name: result.winner }) : word);
    resultBox.replaceChildren(head, table, ...details(result));
  }

  /** A translated text whose {names} are filled with nodes (pieces drawn as their chips). */
  function phrase(text, parts) {
    const out = document.createDocumentFragment();
    let last = 0;
    for (const m of text.matchAll(/\{(\w+)\}/g)) {
      out.append(text.slice(last, m.index));
      const part = parts[m[1]];
      out.append(part === undefined ? m[0] : part);
      last = m.index + m[0].length;
    }
    out.append(text.slice(last));
    return out;
  }

  /** Pieces as the chips show them (3♥, 3|4), each with its spoken name for screen readers. */
  function faces(names) {
    const out = Meldcam.el("span", { class: "faces" });
    names.forEach((name, i) => { if (i) out.append(" "); out.append(Meldcam.faceSpan(name)); });
    return out;
  }

  function meldFaces(melds) {
    const out = Meldcam.el("span", { class: "faces" });
    melds.forEach((meld, i) => { if (i) out.append(" · "); out.append(faces(meld)); });
    return out;
  }

  /** The scorer's melds, deadwood and layoffs (gin games), so players can see why; pieces are
   *  drawn as on the boards, never as codes ("undefined lays off 3H 4H 5H"). */
  function details(result) {
    const lines = [];
    if (result.melds && !Array.isArray(result.melds)) {
      for (const p of setup.players) {
        const melds = result.melds[p] || [];
        const left = result.unmatched ? result.unmatched[p] || [] : [];
        const shown = melds.length ? meldFaces(melds) : t("no melds");
        lines.push(Meldcam.el("p", { class: "details" }));
        lines[lines.length - 1].append(left.length
          ? phrase(t("{name}: {melds} | deadwood: {pieces}"), { name: p, melds: shown, pieces: faces(left) })
          : phrase(t("{name}: {melds}"), { name: p, melds: shown }));
      }
    }
    const knocker = knockerSelect ? knockerSelect.value : null;
    for (const layoff of result.layoffs || []) {
      // Gin names the player and cards; Domino Gin's answer had one piece and no player
      const name = layoff.player || setup.players.find((p) => p !== knocker) || "";
      const pieces = faces(layoff.cards || layoff.pieces || (layoff.piece ? [layoff.piece] : []));
      const line = Meldcam.el("p", { class: "details muted layoff" });
      line.append(layoff.onto
        ? phrase(t("{name} lays off {pieces} onto {meld}"), { name, pieces, meld: faces(layoff.onto) })
        : phrase(t("{name} lays off {pieces}"), { name, pieces }));
      lines.push(line);
    }
    return lines;
  }

  /** Whose pieces are still missing: judged here, the server is asked only once every
   *  player who must show pieces has some (a fresh page said in red that Bob's rack
   *  was empty, and every such state was a failed request). */
  function missing() {
    const winner = winnerSelect ? winnerValue() : undefined;
    return setup.players.filter((p) => p !== winner && !boards.get(p).pieces.length);
  }


  /** "Bob’s and Cy’s": whose pieces (each name as the language says "someone's"). */
  function owners(names) { return I18n.list(names.map((name) => t("{name}’s", { name }))); }

  async function preview() {
    const ticket = ++asked;
    keepLocal();
    const current = hand();
    handInput.value = JSON.stringify(current);
    const shown = {};
    for (const [name, board] of boards) shown[name] = board.state();
    boardsInput.value = JSON.stringify(shown);
    confirm.disabled = true;
    const reading = setup.players.filter((p) => boards.get(p).reading());
    const waiting = missing();
    if (reading.length || waiting.length || winnerUnset() || knockerUnset()) {
      errorBox.hidden = true;
      resultBox.replaceChildren();
      // "who went out?" and "who knocked?" start unset: a forgotten choice never picks one
      waitingBox.textContent = winnerUnset() ? t("Choose who went out (or that the stock ran out).")
        : knockerUnset() ? t("Choose who knocked.")
        : reading.length
        ? tn("Reading {names}’s photo…", "Reading {names}’s photo…", reading.length, { names: I18n.list(reading) })
        : tn("Waiting for {owners} pieces: photograph or tap them in.",
          "Waiting for {owners} pieces: photograph or tap them in.", waiting.length, { owners: owners(waiting) });
      document.body.dataset.judged = String(ticket);
      return;
    }
    let answer;
    try {
      answer = await Meldcam.postJSON("/api/score", { game: setup.game, options: setup.options, hand: current });
    } catch (error) {  // no connection: what was entered stays (and is kept on the phone)
      if (ticket !== asked) return;
      resultBox.replaceChildren();
      waitingBox.textContent = t("No connection: the scores are shown again once it is back.");
      document.body.dataset.judged = String(ticket);
      return;
    }
    if (ticket !== asked) return;
    if (answer.ok) {
      errorBox.hidden = true;
      describe(answer.data);
      // pieces the reader was not sure of are confirmed (one tap) before the hand is saved
      const unsure = setup.players.filter((p) => p !== (winnerSelect && winnerValue()) && boards.get(p).unsureCount());
      // a seat's rack over the host's pieces: answered before the hand is saved
      const disputed = [...document.querySelectorAll(".player-board .conflict")].map((box) => box.closest(".player-board").dataset.player);
      waitingBox.textContent = unsure.length
        ? tn("Check the pieces marked ? on {owners} board before saving.",
          "Check the pieces marked ? on {owners} boards before saving.", unsure.length, { owners: owners(unsure) })
        : disputed.length ? t("Choose whose pieces to keep on {owners} board before saving.", { owners: owners(disputed) }) : "";
      confirm.disabled = unsure.length > 0 || disputed.length > 0;
    } else {
      waitingBox.textContent = "";
      errorBox.replaceChildren(Meldcam.withFaces(answer.data.error, setup.kind));
      errorBox.hidden = false;
      resultBox.replaceChildren();
    }
    document.body.dataset.judged = String(ticket);
  }

  /* what was entered is kept on this phone (localStorage) until it is saved, so a
     reload, a crash or a dropped network loses nothing; a draft is for the game as it was
     (a hand saved meanwhile makes it stale) and for three days at most */
  const DRAFT_KEY = `meldcam-hand:${setup.game_id}:${setup.number || "new"}`;
  const DRAFT_DAYS = 3;

  function snapshot() {
    const shown = {};
    for (const [name, board] of boards) {
      const state = board.state();
      state.photos = state.photos.map((p) => (p ? { ...p, url: `/api/photos/${p.id}` } : null));
      shown[name] = state;
    }
    return { hand: hand(), choice: winnerSelect ? winnerSelect.value : null, boards: shown,
      touched: [...touched], taken: Object.fromEntries(taken) };
  }

  function keepLocal() {
    if (!entered || saved) return;
    try {
      localStorage.setItem(DRAFT_KEY, JSON.stringify({ ...snapshot(), at: Date.now(), base: setup.hand_count }));
    } catch (error) { /* storage full or refused: the page still works */ }
  }

  function dropLocal() { try { localStorage.removeItem(DRAFT_KEY); } catch (error) { /* none */ } }

  function localDraft() {
    let kept = null;
    try { kept = JSON.parse(localStorage.getItem(DRAFT_KEY) || "null"); } catch (error) { kept = null; }
    if (!kept || !kept.hand || kept.base !== setup.hand_count || !(Date.now() - kept.at < DRAFT_DAYS * 864e5)) {
      if (kept) dropLocal();
      return null;
    }
    return kept;
  }

  const previewSoon = Meldcam.debounce(preview, 150);
  for (const section of document.querySelectorAll(".player-board")) {
    const name = section.dataset.player;
    boards.set(name, new Meldcam.Board(section, setup, {
      withMelds: false,
      onChange: (now) => { entered = true; touched.add(name); if (now) preview(); else previewSoon(); },
    }));
  }
  // what was entered before the language was switched, else a draft kept on this phone, else
  // the hand being edited (or sent back with an error)
  const switched = I18n.takeDraft();
  const kept = switched && switched.hand ? null : localDraft();
  const draft = switched && switched.hand ? switched : kept;
  const start = draft || { hand: setup.hand, boards: setup.boards };
  if (draft) {
    entered = true;
    for (const name of draft.touched || []) touched.add(name);
    for (const [name, when] of Object.entries(draft.taken || {})) taken.set(name, when);
  }
  if (kept) {
    const note = document.getElementById("draft-note");
    const when = new Date(kept.at).toLocaleTimeString(I18n.lang, { hour: "2-digit", minute: "2-digit" });
    document.getElementById("draft-note-text").textContent =
      t("Brought back what was entered on this phone at {time}, not saved yet.", { time: when });
    note.hidden = false;
    document.getElementById("draft-discard").addEventListener("click", () => {
      saved = true;  // nothing more is kept from this page
      dropLocal();
      location.reload();
    });
  }
  if (start.hand) {  // editing a saved hand, a hand sent back with an error, or a draft
    const h = start.hand;
    if (winnerSelect) {
      winnerSelect.value = typeof start.choice === "string" ? start.choice : h.winner || "-";
    }
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
    if (input) input.addEventListener("change", () => { entered = true; showWinner(); previewSoon(); });
  }
  showWinner();
  preview();
  I18n.keepDraft(snapshot);

  /* the hand is saved without leaving the page, so a dropped network shows a message
     here (never the browser's "no internet" page) and Retry sends the same form again: the same
     idempotency key, so a save whose answer was lost is stored once */
  let pending = null;
  let saving = false;

  async function reasonOf(response) {
    try {
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const node = page.querySelector("#save-error, .error-page .error");
      return node ? node.textContent.trim() : "";
    } catch (error) { return ""; }
  }

  async function save(body) {
    if (saving) return;
    saving = true;
    confirm.disabled = true;
    retry.disabled = true;
    failedBox.hidden = true;
    waitingBox.textContent = t("Saving…");
    let response = null;
    try {
      response = await fetch(form.action, { method: "POST", body, credentials: "same-origin" });
    } catch (error) { response = null; }
    saving = false;
    retry.disabled = false;
    if (response && response.ok) {
      saved = true;
      dropLocal();
      try {
        sessionStorage.setItem("meldcam-saved", JSON.stringify({ game: setup.game_id,
          number: setup.number || setup.hand_count + 1, edited: Boolean(setup.number) }));
      } catch (error) { /* the game page just shows no line */ }
      location.assign(response.redirected ? response.url : `/g/${encodeURIComponent(setup.game_id)}`);
      return;
    }
    let message;
    if (!response) {
      message = t("Not saved: there is no connection. What you entered is kept on this phone: retry when the connection is back.");
    } else {
      const reason = await reasonOf(response);
      message = reason ? t("Not saved: {reason}", { reason })
        : t("Not saved: the server answered {status}. Retry in a moment.", { status: response.status });
    }
    waitingBox.textContent = "";
    failedText.textContent = message;
    failedBox.hidden = false;
    confirm.disabled = false;
    failedBox.scrollIntoView({ block: "center" });
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (confirm.disabled || saving) return;
    pending = new FormData(form);
    save(pending);
  });
  retry.addEventListener("click", () => save(pending || new FormData(form)));

  /* the racks the players send from their own phones appear on their boards as they
     arrive (the game's event stream says when), marked with who sent them */
  if (setup.live && window.EventSource) {
    const asking = new Map();  // player -> the sent_at of the rack asked about
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
          // pieces the host entered for this player are not replaced without asking
          if (touched.has(seat.player) && (board.pieces.length || board.photos.length)) {
            if (asking.get(seat.player) !== seat.rack.sent_at) ask(section, seat);
            continue;
          }
          take(section, seat);
          changed = true;
        } else if (!seat.rack && mark) {
          mark.textContent = seat.joined ? t("{name}’s phone has joined: its rack is not sent yet.", { name: seat.player }) : "";
        }
      }
      if (changed) preview();
    };
    const take = (section, seat) => {
      const board = boards.get(seat.player);
      taken.set(seat.player, seat.rack.sent_at);
      touched.delete(seat.player);
      board.clear();
      if (seat.rack.board) board.restore(seat.rack.board, seat.rack.pieces);
      else board.setPieces(seat.rack.pieces);
      section.dataset.sent = seat.rack.sent_at;
      section.querySelector(".sent-by").textContent =
        t("Sent from {name}’s phone at {time}.", { name: seat.player, time: clock(seat.rack.sent_at) });
    };
    const ask = (section, seat) => {
      asking.set(seat.player, seat.rack.sent_at);
      let box = section.querySelector(".conflict");
      if (!box) {
        box = Meldcam.el("div", { class: "conflict", role: "group" });
        section.querySelector(".sent-by").after(box);
      }
      const count = seat.rack.pieces.length;
      const question = Meldcam.el("p", { role: "alert" }, tn(
        "{name}’s phone sent {count} piece at {time}, but other pieces were entered here for {name}. Which are right?",
        "{name}’s phone sent {count} pieces at {time}, but other pieces were entered here for {name}. Which are right?",
        count, { name: seat.player, time: clock(seat.rack.sent_at) }));
      const keep = Meldcam.el("button", { type: "button", class: "keep-mine" }, t("Keep mine"));
      const use = Meldcam.el("button", { type: "button", class: "primary use-theirs" },
        t("Use {name}’s", { name: seat.player }));
      keep.addEventListener("click", () => {
        taken.set(seat.player, seat.rack.sent_at);  // not asked again about this rack
        asking.delete(seat.player);
        box.remove();
        section.querySelector(".sent-by").textContent = t("Kept the pieces entered here; {name}’s phone sent others at {time}.",
          { name: seat.player, time: clock(seat.rack.sent_at) });
        keepLocal();
        preview();
      });
      use.addEventListener("click", () => {
        asking.delete(seat.player);
        box.remove();
        take(section, seat);
        preview();
      });
      box.replaceChildren(question, keep, " ", use);
      preview();
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
