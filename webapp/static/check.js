/* meldcam: dispute mode. Pieces from a photo or tapped in; verdict after every change. On the
   free page the game and its house rules apply at once: the photo is read again when the game
   reads another kind of piece. */
"use strict";

(() => {
  const { t, tn } = I18n;
  const setup = Meldcam.readSetup();
  const errorBox = document.getElementById("verdict-error");
  const tableBox = document.getElementById("table-verdict");
  const openingBox = document.getElementById("opening-verdict");
  const laidBox = document.getElementById("laid-verdict");
  const openingInput = document.getElementById("opening");
  const openingChoice = document.getElementById("opening-choice");
  const catalogueNode = document.getElementById("catalogue");
  const catalogue = catalogueNode ? JSON.parse(catalogueNode.textContent) : [];
  let asked = 0;

  function say(node, ...parts) { node.replaceChildren(...parts); }

  /** The sample photo (``?sample=1``): fetched and given to the board's photo input, so it is
   *  read exactly as a photo the player chose. */
  function readSample() {
    const board = document.getElementById("board");
    const input = board && board.querySelector(".photo-file");
    if (!input || !board.dataset.sample) return;
    fetch(board.dataset.sample).then((answer) => answer.blob()).then((blob) => {
      const files = new DataTransfer();
      files.items.add(new File([blob], "sample.jpg", { type: blob.type || "image/jpeg" }));
      input.files = files.files;
      input.dispatchEvent(new Event("change"));
    }).catch(() => {});  // no sample: the page is the plain check page
  }

  /** Pieces this game's set does not have (a double-twelve domino in a double-nine game):
   *  judged here, the scorer need not be asked. */
  function foreignPieces(pieces) {
    const same = (name) => {  // a domino is the same piece either way round: 10-8 = 8-10
      const m = /^(\d+)-(\d+)$/.exec(name);
      return m ? `${Math.min(+m[1], +m[2])}-${Math.max(+m[1], +m[2])}` : name;
    };
    const known = new Set(setup.pieces.map(same));
    return [...new Set(pieces.filter((p) => !known.has(same(p))))];
  }

  function layoutFaces(melds) {
    const out = document.createDocumentFragment();
    melds.forEach((meld, m) => {
      if (m) out.append(" · ");
      meld.forEach((name, i) => { if (i) out.append(" "); out.append(Meldcam.faceSpan(name)); });
    });
    return out;
  }

  async function judge() {
    const ticket = ++asked;
    const melds = board.melds();
    const pieces = board.labels();
    errorBox.hidden = true;
    if (!pieces.length) {
      board.setVerdicts(null);
      say(tableBox, board.reading() ? t("Reading the photo…") : t("No pieces yet."));
      tableBox.className = "muted";
      openingBox.hidden = true;
      laidBox.hidden = true;
      document.body.dataset.judged = String(ticket);
      return;
    }
    laidBox.hidden = true;
    const foreign = foreignPieces(pieces);
    if (foreign.length) {
      board.setVerdicts(null);
      openingBox.hidden = true;
      const faces = document.createDocumentFragment();
      foreign.forEach((name, i) => { if (i) faces.append(", "); faces.append(Meldcam.faceSpan(name)); });
      const text = catalogue.length
        ? tn("{pieces} is not in this game's set: tap it to correct it or choose the game and its house rules above.",
          "{pieces} are not in this game's set: tap them to correct them or choose the game and its house rules above.", foreign.length)
        : tn("{pieces} is not in this game's set: tap it to correct it.",
          "{pieces} are not in this game's set: tap them to correct them.", foreign.length);
      const [before, after] = text.split("{pieces}");
      say(tableBox, "✗ ", before, faces, after === undefined ? "" : after);
      tableBox.className = "";
      document.body.dataset.judged = String(ticket);
      return;
    }
    const base = { game: setup.game, options: setup.options };
    const opening = Boolean(openingInput && openingInput.checked && !openingChoice.hidden);
    let check, table;
    try {
      [check, table] = await Promise.all([
        Meldcam.postJSON("/api/check", { ...base, melds, opening }),
        Meldcam.postJSON("/api/table", { ...base, pieces }),
      ]);
    } catch (error) {  // no connection: the pieces stay, judged again on the next change
      if (ticket !== asked) return;
      say(tableBox, t("No connection: the verdict is given once it is back."));
      document.body.dataset.judged = String(ticket);
      return;
    }
    if (ticket !== asked) return; // a newer change is being judged
    if (!check.ok) {
      say(errorBox, Meldcam.withFaces(check.data.error, setup.kind));
      errorBox.hidden = false;
      board.setVerdicts(null);
    } else {
      board.setVerdicts(check.data.melds);
      // the melds as they lie on the table, apart from the best way to lay them out
      const all = check.data.melds.length;
      const bad = check.data.melds.filter((v) => !v.valid).length;
      say(laidBox, bad
        ? tn("✗ As laid out: {bad} of the {count} meld is not legal (marked ✗ above).",
          "✗ As laid out: {bad} of the {count} melds are not legal (marked ✗ above).", all, { bad })
        : tn("✓ As laid out: the meld is legal.", "✓ As laid out: all {count} melds are legal.", all));
      laidBox.hidden = false;
      if (check.data.opening) {
        const o = check.data.opening;
        const short = tn("{count} of {threshold} point", "{count} of {threshold} points", o.threshold,
          { count: o.value, threshold: o.threshold });
        const why = t("✗ not an opening: {reason}", { reason: o.reason_text || o.reason || short });
        say(openingBox, o.valid
          ? tn("✓ a legal opening: {count} point (at least {threshold})", "✓ a legal opening: {count} points (at least {threshold})",
            o.value, { threshold: o.threshold })
          : Meldcam.withFaces(why, setup.kind));
        openingBox.hidden = false;
      } else {
        openingBox.hidden = true;
      }
    }
    tableBox.className = "";
    if (!table.ok) {
      say(tableBox);
      if (check.ok) { say(errorBox, Meldcam.withFaces(table.data.error, setup.kind)); errorBox.hidden = false; }
    } else if (table.data.valid) {
      say(tableBox, Meldcam.el("strong", {}, t("As they could be laid out:")), " ",
        tn("✓ The {count} piece can be laid out as a legal meld:", "✓ All {count} pieces can be laid out as legal melds:", pieces.length),
        " ", layoutFaces(table.data.melds));
      if (check.ok && check.data.melds.some((v) => !v.valid)) {
        const regroup = Meldcam.el("button", { type: "button", id: "lay-out" }, t("Group them this way"));
        const best = table.data.melds;
        regroup.addEventListener("click", () => board.regroup(best));
        tableBox.append(" ", regroup);
      }
    } else {
      const reason = table.data.reason_text || table.data.reason;
      say(tableBox, tn("✗ This {count} piece cannot be laid out as a legal meld", "✗ These {count} pieces cannot all be laid out as legal melds", pieces.length),
        ...(reason ? [": ", Meldcam.withFaces(reason, setup.kind)] : ["."]));
    }
    document.body.dataset.judged = String(ticket);
  }

  const judgeSoon = Meldcam.debounce(judge, 120);
  const board = new Meldcam.Board(document.getElementById("board"), setup, {
    withMelds: true, onChange: (now) => (now ? judge() : judgeSoon()),
  });
  if (openingInput) openingInput.addEventListener("change", judgeSoon);
  // the melds entered come along when the language is switched (the game is in the address)
  const draft = I18n.takeDraft();
  if (draft && Array.isArray(draft.melds) && draft.melds.length) {
    if (openingInput) openingInput.checked = Boolean(draft.opening);
    board.setMelds(draft.melds.map((meld) => meld.filter((name) => setup.pieces.includes(name))));
  }
  I18n.keepDraft(() => ({ melds: board.melds(), opening: Boolean(openingInput && openingInput.checked) }));
  if (!board.melds().some((meld) => meld.length)) readSample();

  // --- the free page: the game and its house rules, applied at once ------------------------
  const select = document.getElementById("game-select");
  if (!select || !catalogue.length) return;
  const fields = document.getElementById("house-fields");
  const optionsError = document.getElementById("options-error");
  const described = (game) => catalogue.find((g) => g.game === game) || { options: [] };

  function renderOptions(game, values) {
    fields.replaceChildren();
    for (const spec of described(game).options || []) {
      const value = spec.name in values ? values[spec.name] : spec.default;
      const label = Meldcam.el("label", { class: spec.type === "bool" ? "choice" : "" });
      let input;
      if (spec.type === "bool") {
        input = Meldcam.el("input", { type: "checkbox" });
        input.checked = value === true || value === "true" || value === "on";
        label.append(input, " " + (spec.help || spec.name));
      } else if (spec.choices) {
        input = Meldcam.el("select");
        for (const choice of spec.choices) {
          const labels = spec.choice_labels || {};
          const option = Meldcam.el("option", { value: String(choice) }, labels[String(choice)] || String(choice));
          if (String(choice) === String(value)) option.selected = true;
          input.append(option);
        }
        label.append(spec.help || spec.name, input);
      } else {
        input = Meldcam.el("input", spec.type === "int" ? { type: "number", inputmode: "numeric" } : {});
        if (spec.minimum !== null && spec.minimum !== undefined) input.min = spec.minimum;
        if (spec.maximum !== null && spec.maximum !== undefined) input.max = spec.maximum;
        input.value = value === null || value === undefined ? "" : String(value);
        if (spec.default === null) input.placeholder = t("automatic");
        label.append(spec.help || spec.name, input);
      }
      input.dataset.option = spec.name;
      input.dataset.type = spec.type;
      input.addEventListener("change", applyGame);
      fields.append(label);
    }
  }

  /** The house rules as chosen: only those that differ from the game's defaults. */
  function chosenOptions(game) {
    const options = {};
    for (const input of fields.querySelectorAll("[data-option]")) {
      const spec = (described(game).options || []).find((o) => o.name === input.dataset.option);
      if (!spec) continue;
      if (spec.type === "bool") {
        if (input.checked !== Boolean(spec.default)) options[spec.name] = input.checked;
      } else if (input.value.trim() !== "" && input.value.trim() !== String(spec.default)) {
        options[spec.name] = input.value.trim();
      }
    }
    return options;
  }

  let applying = 0;
  async function applyGame(event) {
    const ticket = ++applying;
    const game = select.value;
    if (event && event.target === select) renderOptions(game, {});
    const options = chosenOptions(game);
    const answer = await Meldcam.postJSON("/api/pieces", { game, options });
    if (ticket !== applying) return;
    if (!answer.ok) {  // a house rule the game does not take: said, nothing changed
      optionsError.textContent = answer.data.error;
      optionsError.hidden = false;
      return;
    }
    optionsError.hidden = true;
    const kindBefore = setup.kind;
    const info = described(game);
    Object.assign(setup, { game, options, pieces: answer.data.pieces, kind: answer.data.kind,
      title: info.title, hand_style: info.hand_style });
    document.getElementById("game-title").textContent = info.title;
    document.title = t("meldcam: check a meld ({title})", { title: info.title });
    openingChoice.hidden = info.hand_style !== "racks";
    const query = new URLSearchParams({ game, ...options });
    const asked = new URLSearchParams(location.search).get("lang");
    if (asked) query.set("lang", asked);
    history.replaceState(null, "", `${location.pathname}?${query}`);
    if (setup.kind !== kindBefore) await board.reread(); // the photo, read as this game's pieces
    else board.changed(true);
  }

  renderOptions(setup.game, setup.options || {});
  select.addEventListener("change", applyGame);
})();
