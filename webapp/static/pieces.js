/* meldcam: pieces on a board (photo + boxes + melds), the piece picker, photo upload.
   Plain JS, no framework. Shared by the check page and the end-of-hand page. */
"use strict";

const Meldcam = (() => {
  const MAX_SIDE = 1600;
  const SVG = "http://www.w3.org/2000/svg";

  function el(tag, attrs = {}, text = null) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    if (text !== null) node.textContent = text;
    return node;
  }

  function svgEl(tag, attrs = {}) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
    return node;
  }

  const { t, tn } = I18n;
  // The pieces' names, their parts and the words for them in the page's language: the server's
  // one vocabulary (webapp/facts.py, from meldcam.vocabulary), never a list of this script's own.
  const facts = JSON.parse(document.getElementById("meldcam-facts").textContent);
  const SUITS = facts.cards.suit_symbols;
  const SUIT_WORDS = facts.words.suits;
  const RANK_WORDS = facts.words.ranks;
  const COLOUR_WORDS = facts.words.colours;
  const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  /** One of ``names`` as a regular expression's alternatives, the longest first ("10" before "1"). */
  const oneOf = (names) => `(?:${[...names].sort((a, b) => b.length - a.length).map(escaped).join("|")})`;
  const COLOUR = oneOf(facts.tiles.colours), RANK = oneOf(facts.cards.ranks), SUIT = oneOf(facts.cards.suits);
  const JOKERS = [facts.tiles.joker, facts.cards.joker];
  const TILE_RE = new RegExp(`^(${COLOUR})-(\\d+)$`);
  const DOMINO_RE = /^(\d+)-(\d+)$/;
  const CARD_RE = new RegExp(`^(${RANK})(${SUIT})$`);
  // a piece's name inside a text (a verdict, the scorer's reason), quoted or not, by kind
  const PIECE_PATTERNS = {
    tiles: `'?\\b((?:${COLOUR})-\\d+|${escaped(facts.tiles.joker)})\\b'?`,
    dominoes: "'?\\b(\\d{1,2}-\\d{1,2})\\b'?",
    cards: `'?\\b(${RANK}${SUIT}|${escaped(facts.cards.joker)})\\b'?`,
  };
  /** A fresh global pattern of the piece names of ``kind`` (tiles, dominoes, cards), or null. */
  function piecePattern(kind) {
    return PIECE_PATTERNS[kind] ? new RegExp(PIECE_PATTERNS[kind], "g") : null;
  }
  // the scorer's kinds of meld, in the words of the rule sheets
  const KIND_WORDS = { run: t("run"), group: t("group"), set: t("set"), sequence: t("sequence"),
    doubles: t("doubles"), "group-of-6": t("group-of-6"), jokers: t("jokers") };

  /** How a piece name is shown: short text and a CSS class (tile colour, card suit colour). */
  function pieceFace(name) {
    let m = TILE_RE.exec(name);
    if (m) return { text: m[2], cls: "tile c-" + m[1] };
    if (JOKERS.includes(name)) return { text: "☺", cls: "tile c-joker" };
    m = DOMINO_RE.exec(name);
    if (m) return { text: m[1] + "|" + m[2], cls: "domino" };
    m = CARD_RE.exec(name);
    if (m) return { text: m[1] + SUITS[m[2]], cls: "card s-" + m[2] };
    return { text: name, cls: "other" };
  }

  /** A piece as it is said: "red 5", "queen of hearts", "3-8", "joker" (accessible names). */
  function pieceName(name) {
    let m = TILE_RE.exec(name);
    if (m) return t("{colour} {number}", { colour: COLOUR_WORDS[m[1]], number: m[2] });
    if (JOKERS.includes(name)) return facts.words.joker;
    m = CARD_RE.exec(name);
    if (m) return t("{rank} of {suit}", { rank: RANK_WORDS[m[1]] || m[1], suit: SUIT_WORDS[m[2]] });
    return name;
  }

  /** Which picker row a piece goes in: its colour or suit, dominoes by their lower half. */
  function pieceGroup(name) {
    let m = TILE_RE.exec(name);
    if (m) return COLOUR_WORDS[m[1]];
    m = DOMINO_RE.exec(name);
    if (m) return t("pips {number}", { number: Math.min(+m[1], +m[2]) });
    m = CARD_RE.exec(name);
    if (m) return SUIT_WORDS[m[2]];
    return t("jokers");
  }

  /** A text (a verdict, the scorer's reason) with each piece name shown as its chip shows it,
   *  the spoken name kept for screen readers: "blue-9 fits..." -> [9] fits... */
  function withFaces(text, kind) {
    const pattern = piecePattern(kind);
    const out = document.createDocumentFragment();
    if (!pattern) { out.append(text); return out; }
    let last = 0;
    for (const m of text.matchAll(pattern)) {
      out.append(text.slice(last, m.index));
      out.append(faceSpan(m[1]));
      last = m.index + m[0].length;
    }
    out.append(text.slice(last));
    return out;
  }

  function faceSpan(name) {
    const face = pieceFace(name);
    const span = el("span", { class: `face ${face.cls}`, "data-piece": name });
    span.append(el("span", { "aria-hidden": "true" }, face.text), el("span", { class: "sr-only" }, pieceName(name)));
    return span;
  }

  /**
   * Whether the page asks the player to confirm a piece: the recogniser did not flag it sure
   * (`sure: false`, chosen so that at least 99.5 % of sure pieces are right; see
   * docs/choices/vision.md). Pieces entered or corrected by hand are sure.
   */
  function toConfirm(piece) { return piece.sure === false; }

  function chip(name, extraClass = "", spoken = null) {
    const face = pieceFace(name);
    const button = el("button", { type: "button", class: `chip ${face.cls} ${extraClass}`.trim(),
      title: pieceName(name), "aria-label": spoken || pieceName(name), "data-piece": name }, face.text);
    return button;
  }

  async function postJSON(url, body) {
    const response = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body) });
    let data = null;
    try { data = await response.json(); } catch (e) { data = { error: t("the server answered {status}", { status: response.status }) }; }
    if (data && data.error_text) data.error = data.error_text;  // the API's error in the page's language
    return { ok: response.ok, status: response.status, data };
  }

  /** Shrink the photo in the browser (long side <= 1600 px), EXIF orientation applied. */
  async function downscale(file) {
    let bitmap;
    try {
      bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
    } catch (e) {
      throw new Error(t("this file is not a photo the browser can open"));
    }
    const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
    const width = Math.round(bitmap.width * scale), height = Math.round(bitmap.height * scale);
    const canvas = el("canvas", { width, height });
    canvas.getContext("2d").drawImage(bitmap, 0, 0, width, height);
    bitmap.close();
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.9));
    return { blob, width, height };
  }

  /** A quick print of a photo file's bytes (FNV-1a and the size): the same picture chosen
   *  twice is told apart from another without hashing on the server (no secure context needed). */
  async function fingerprint(file) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    let h = 0x811c9dc5;
    for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
    return `${bytes.length}:${(h >>> 0).toString(16)}`;
  }

  /** The one picker dialog of the page: choose a piece, remove it, or move it to a meld. */
  const picker = {
    open(setup, options) {
      const dialog = document.getElementById("picker");
      this.options = options;
      const added = document.getElementById("picker-added");
      if (added) added.replaceChildren();
      document.getElementById("picker-title").textContent = options.title;
      const confirmButton = document.getElementById("picker-confirm");
      confirmButton.hidden = !options.onConfirm;
      if (options.onConfirm) {
        confirmButton.textContent = t("✓ Yes, it is {piece}", { piece: pieceName(options.current) });
        confirmButton.onclick = () => { dialog.close(); options.onConfirm(); };
      }
      const suggestions = document.getElementById("picker-suggestions");
      suggestions.replaceChildren();
      const likely = (options.suggestions || []).filter((name) => setup.pieces.includes(name));
      if (likely.length) suggestions.append(el("span", { class: "muted" }, t("Or perhaps:")));
      for (const name of likely) {
        const button = chip(name, "pick");
        button.addEventListener("click", () => this.choose(name));
        suggestions.append(button);
      }
      const grid = document.getElementById("picker-pieces");
      const key = setup.game + " " + setup.pieces.length + " " + setup.pieces[setup.pieces.length - 1];
      if (grid.dataset.set !== key) {
        // one row per colour or suit (dominoes: per lower half), never two colours in a row
        grid.replaceChildren();
        grid.classList.add("piece-rows");
        const rows = new Map();
        for (const name of setup.pieces) {
          const group = pieceGroup(name);
          if (!rows.has(group)) {
            const row = el("div", { class: "piece-row", role: "group", "aria-label": group });
            rows.set(group, row);
            grid.append(row);
          }
          rows.get(group).append(chip(name, "pick"));
        }
        grid.dataset.set = key;
        grid.dataset.game = setup.game;
        if (!grid.dataset.listening) {
          grid.addEventListener("click", (event) => {
            const target = event.target.closest("[data-piece]");
            if (target) this.choose(target.dataset.piece);
          });
          grid.dataset.listening = "1";
        }
      }
      let current = null;
      for (const button of grid.querySelectorAll(".chip")) {
        const isCurrent = button.dataset.piece === options.current;
        button.classList.toggle("current", isCurrent);
        if (isCurrent) {
          button.setAttribute("aria-current", "true");
          current = button;
        } else {
          button.removeAttribute("aria-current");
        }
      }
      const remove = document.getElementById("picker-remove");
      remove.hidden = !options.onRemove;
      remove.onclick = () => { dialog.close(); options.onRemove(); };
      const melds = document.getElementById("picker-melds");
      melds.replaceChildren();
      if (options.onMove) {
        melds.append(el("span", { class: "muted" }, t("Move to:") + " "));
        for (let i = 0; i <= options.meldCount; i++) {
          const label = i === options.meldCount ? t("new meld") : t("meld {number}", { number: i + 1 });
          if (i === options.currentMeld) continue;
          const button = el("button", { type: "button", class: "move" }, label);
          button.addEventListener("click", () => { dialog.close(); options.onMove(i); });
          melds.append(button);
        }
      }
      // focus goes back where it came from (Escape changes nothing); the page may re-render
      // the piece meanwhile, so the opener is found again by ``options.refocus``
      const opener = document.activeElement;
      dialog.onclose = () => {
        const back = options.refocus ? options.refocus() : null;
        const target = back || (opener && opener.isConnected ? opener : null);
        if (target && target.focus) target.focus();
      };
      dialog.showModal();
      // start on the "yes" button or on the piece as it is: pressing Enter at once keeps it
      const first = options.onConfirm ? confirmButton : current;
      if (first) first.focus();
    },
    choose(name) {
      const options = this.options;
      if (!options || !options.keepOpen) document.getElementById("picker").close();
      if (options && options.onPick) options.onPick(name);
      if (options && options.keepOpen) {
        options.added = [...(options.added || []), name];
        const said = document.getElementById("picker-added");
        if (said) {
          said.replaceChildren(t("Added:") + " ");
          options.added.forEach((piece, i) => { if (i) said.append(" "); said.append(faceSpan(piece)); });
        }
      }
    },
  };

  /**
   * A board of pieces: the photos it was read from, each with one box per piece (SVG in image
   * pixels), and the pieces as chips, grouped into melds when `withMelds`. A second photo adds
   * its pieces to those already there (a rack often needs two photos). Every change calls
   * onChange().
   */
  class Board {
    constructor(root, setup, { withMelds, onChange }) {
      this.root = root;
      this.setup = setup;
      this.withMelds = withMelds;
      this.onChange = onChange;
      // {label, bbox|null, photo (index)|null, confidence, sure, alternatives, meld, rank, corrected}
      this.pieces = [];
      this.meldCount = 1;
      this.photos = []; // {url, width, height, id, blob, view, svg}
      this.busyCount = 0;
      this.statusError = false;
      this.fileInput = root.querySelector(".photo-file");
      this.status = root.querySelector(".status");
      this.busy = root.querySelector(".busy");
      this.photosBox = root.querySelector(".photos");
      this.legend = root.querySelector(".board-legend");
      this.confirmBar = root.querySelector(".to-confirm");
      this.meldsBox = root.querySelector(".melds");
      this.clearButton = root.querySelector(".clear-board");
      this.replacing = null;  // the photo a "Retake" replaces once the new one is chosen
      this.retakeArmed = false;
      this.fileInput.addEventListener("click", () => {
        if (!this.retakeArmed) this.replacing = null;  // the plain "take a photo" button
        this.retakeArmed = false;
      });
      this.fileInput.addEventListener("cancel", () => { this.replacing = null; });
      this.fileInput.addEventListener("change", () => {
        if (!this.fileInput.files.length) return;
        const file = this.fileInput.files[0];
        this.fileInput.value = ""; // so that choosing the same photo again reads it again
        const replacing = this.replacing;
        this.replacing = null;
        this.upload(file, replacing);
      });
      if (this.clearButton) {
        this.clearButton.addEventListener("click", () => {
          this.clear();
          this.setStatus(t("Cleared: no photos and no pieces on this board."));
          this.onChange(true);
        });
      }
      if (this.confirmBar) {
        this.confirmBar.querySelector(".confirm-all").addEventListener("click", () => this.confirmAll());
      }
      const addMeld = root.querySelector(".add-meld");
      if (addMeld) addMeld.addEventListener("click", () => { this.meldCount += 1; this.changed(); });
      // tags are sized in screen pixels: redraw them when the phone turns
      window.addEventListener("resize", debounce(() => this.renderBoxes(), 200));
      this.render();
      // the live camera view (livecam.js, where the page loads it)
      this.live = typeof MeldcamLive !== "undefined" ? MeldcamLive.attach(this) : null;
    }

    /** Indices of the pieces in the order they are shown (added pieces last). */
    shownOrder() {
      const rank = (i) => (this.pieces[i].rank === undefined ? Infinity : this.pieces[i].rank);
      return this.pieces.map((p, i) => i).sort((a, b) => rank(a) - rank(b) || a - b);
    }

    labels() { return this.shownOrder().map((i) => this.pieces[i].label); }

    /** Non-empty melds as lists of piece names, in order. */
    melds() {
      const groups = [];
      for (let i = 0; i < this.meldCount; i++) {
        const names = this.shownOrder().filter((j) => this.pieces[j].meld === i).map((j) => this.pieces[j].label);
        if (names.length) groups.push(names);
      }
      return groups;
    }

    /** Pieces the recogniser was not sure of and nobody has confirmed or corrected yet. */
    unsureCount() { return this.pieces.filter(toConfirm).length; }

    /** Whether a photo is still being read. */
    reading() { return this.busyCount > 0; }

    /** One tap: every piece marked "?" is as read. */
    confirmAll() {
      for (const piece of this.pieces) if (toConfirm(piece)) piece.sure = true;
      this.changed();
    }

    /** take a photo back, with the pieces read from it (a failed or doubled photo). */
    removePhoto(index, quiet = false) {
      const photo = this.photos[index];
      if (!photo) return 0;
      if (photo.url && photo.blob) URL.revokeObjectURL(photo.url);
      photo.view.remove();
      this.photos.splice(index, 1);
      const before = this.pieces.length;
      this.pieces = this.pieces.filter((p) => p.photo !== index);
      for (const p of this.pieces) if (p.photo !== null && p.photo > index) p.photo -= 1;
      this.labelPhotos();
      const gone = before - this.pieces.length;
      if (!quiet) {
        this.statusError = false;
        this.changed(true);
        this.setStatus(tn("Photo removed, with the {count} piece read from it.",
          "Photo removed, with the {count} pieces read from it.", gone));
      }
      return gone;
    }

    /** "Retake": the next photo chosen replaces this one. */
    retake(index) {
      this.replacing = this.photos[index] || null;
      this.retakeArmed = true;
      this.fileInput.click();
    }

    /** Each photo's number in its picture's name and its buttons (after one is removed). */
    labelPhotos() {
      this.photos.forEach((photo, i) => {
        photo.view.dataset.photo = i;
        const img = photo.view.querySelector("img");
        if (img) img.alt = t("photo {number} of the pieces", { number: i + 1 });
        const remove = photo.view.querySelector(".remove-photo");
        if (remove) remove.setAttribute("aria-label", t("Remove photo {number}", { number: i + 1 }));
        const again = photo.view.querySelector(".retake-photo");
        if (again) again.setAttribute("aria-label", t("Retake photo {number}", { number: i + 1 }));
      });
    }

    setPieces(names) {
      this.pieces = names.map((label, rank) => ({ label, bbox: null, photo: null, confidence: 1, sure: true,
        alternatives: [], meld: 0, rank }));
      this.render();
    }

    /** Empty the board: no photos, no pieces (a rack sent from a player's phone replaces it). */
    clear() {
      for (const p of this.photos) if (p.url && p.blob) URL.revokeObjectURL(p.url);
      this.photos = [];
      this.photosBox.replaceChildren();
      this.pieces = [];
      this.meldCount = 1;
      this.setStatus("");
      this.render();
    }

    /** Pieces tapped in, meld by meld (lists of names): the check page after a language switch. */
    setMelds(melds) {
      this.pieces = melds.flatMap((meld, m) => meld.map((label) => ({ label, bbox: null, photo: null,
        confidence: 1, sure: true, alternatives: [], meld: m })));
      this.pieces.forEach((p, rank) => { p.rank = rank; });
      this.meldCount = Math.max(1, melds.length);
      this.changed(true);
    }

    /** Group the pieces as ``melds`` (lists of names) say: the check page's "lay them out this
     *  way"; the photos and boxes stay. */
    regroup(melds) {
      const free = new Set(this.pieces.keys());
      melds.forEach((meld, m) => meld.forEach((label) => {
        const i = [...free].find((j) => this.pieces[j].label === label);
        if (i !== undefined) { this.pieces[i].meld = m; free.delete(i); }
      }));
      for (const i of free) this.pieces[i].meld = melds.length;
      this.meldCount = Math.max(1, melds.length + (free.size ? 1 : 0));
      this.changed(true);
    }

    /** What the page saves with a hand: the photos kept on the server and the boxes on them. */
    state() {
      const kept = this.photos.map((p) => (p.id ? { id: p.id, width: p.width, height: p.height } : null));
      return {
        photos: kept,
        pieces: this.shownOrder().map((i) => {
          const p = this.pieces[i];
          const placed = p.bbox && p.photo !== null && kept[p.photo];
          const box = placed ? p.bbox.map((v) => Math.round(v)) : [0, 0, 0, 0];
          return [p.label, placed ? p.photo : -1, ...box, p.sure === false ? 0 : 1, p.corrected ? 1 : 0];
        }),
      };
    }

    /** Show a saved hand's board again: its photos and boxes when they still match the pieces
     *  saved (``labels``), else the photos alone above the saved pieces. */
    restore(saved, labels) {
      const photos = (saved && saved.photos) || [];
      photos.forEach((p) => this.addPhoto(p ? p.url : null, p ? p.width : 1, p ? p.height : 1, p ? p.id : null));
      const pieces = (saved && saved.pieces) || [];
      const same = pieces.length === labels.length &&
        [...pieces.map((p) => p[0])].sort().join(" ") === [...labels].sort().join(" ");
      if (!same) { this.setPieces(labels); return; }
      this.pieces = pieces.map(([label, photo, x1, y1, x2, y2, sure, corrected], rank) => ({
        label, photo: photo >= 0 && photos[photo] ? photo : null,
        bbox: photo >= 0 && photos[photo] ? [x1, y1, x2, y2] : null,
        confidence: 1, sure: sure === 1, corrected: corrected === 1, alternatives: [], meld: 0, rank,
      }));
      this.render();
    }

    setStatus(text, isError = false) {
      this.status.textContent = text;
      this.status.classList.toggle("error", isError);
      this.statusError = isError;
    }

    /** The status line after a change: how many pieces, how many to check (it said
     *  "Read 7 pieces" after pieces were added or removed). */
    countStatus(prefix = "") {
      const n = this.pieces.length;
      const doubtful = this.unsureCount();
      const photos = tn("{count} photo", "{count} photos", this.photos.length);
      const parts = [prefix + (this.photos.length
        ? tn("{count} piece in all ({photos}).", "{count} pieces in all ({photos}).", n, { photos })
        : tn("{count} piece in all.", "{count} pieces in all.", n))];
      if (doubtful) parts.push(tn("Check the {count} marked ? (dashed).", "Check the {count} marked ? (dashed).", doubtful));
      if (n) parts.push(t("Tap a box or a piece to correct it."));
      this.setStatus(parts.join(" "));
    }

    /** Count a photo being prepared or read (the page waits for it before judging). */
    working(step) {
      this.busyCount += step;
      this.busy.hidden = this.busyCount === 0;
    }

    async upload(file, replacing = null) {
      this.setStatus(t("Preparing the photo…"));
      this.working(1);
      let small, print;
      try {
        print = await fingerprint(file);
        // the same picture sent twice would double its pieces
        const twin = this.photos.findIndex((p) => p.print === print && p !== replacing);
        if (twin >= 0) {
          this.setStatus(t("This photo is on the board already (photo {number}): its pieces were not added again.",
            { number: twin + 1 }), true);
          return;
        }
        small = await downscale(file);
      } catch (error) {
        this.setStatus(error.message || String(error), true);
        return;
      } finally {
        this.working(-1);
      }
      const old = replacing ? this.photos.indexOf(replacing) : -1;
      if (old >= 0) this.removePhoto(old, true);
      await this.read(small.blob, small.width, small.height, print);
    }

    /** Send one (already shrunk) photo to the recogniser; its pieces join those on the board. */
    async read(blob, width, height, print = null) {
      const entry = this.photos[this.addPhoto(URL.createObjectURL(blob), width, height, null, blob)];
      entry.print = print;
      this.setStatus(t("Reading the pieces…"));
      const form = new FormData();
      form.append("photo", blob, "photo.jpg");
      form.append("kind", this.setup.kind);
      if (this.setup.game_id) form.append("game", this.setup.game_id);
      const started = performance.now();
      this.working(1);
      let ok = false, data;
      try {
        const response = await fetch("/api/recognise", { method: "POST", body: form });
        ok = response.ok;
        try { data = await response.json(); } catch (e) { data = { error: t("the server answered {status}", { status: response.status }) }; }
        if (data && data.error_text) data.error = data.error_text;
      } catch (error) {
        data = { error: t("the photo could not be sent: check the connection and try again") };
      } finally {
        this.working(-1);
      }
      const index = this.photos.indexOf(entry);
      if (index < 0) { this.onChange(true); return; }  // removed while it was read
      if (!ok) {
        // the pieces already here stay; only this photo could not be read
        this.setStatus(data.error || t("the photo could not be read"), true);
        this.render();
        this.onChange(true);
        return;
      }
      if (data.photo) this.photos[index].id = data.photo.id;
      const before = this.pieces.length;
      this.takeRecognition(data, index);
      const seconds = new Intl.NumberFormat(I18n.lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 })
        .format((performance.now() - started) / 1000);  // 0.4 s, 0,4 s: as the language writes it
      const count = data.pieces.length;
      if (!count) {
        this.setStatus(t("No pieces found on this photo: take it closer, or tap + to enter them."));
      } else {
        const read = before
          ? tn("Read {count} piece in {seconds} s, added to the {before} already here.",
            "Read {count} pieces in {seconds} s, added to the {before} already here.", count, { seconds, before })
          : tn("Read {count} piece in {seconds} s.", "Read {count} pieces in {seconds} s.", count, { seconds });
        // a deck whose letters were told, not named by the game: shown, so a wrong one is seen
        const fromGame = data.set_from === "game";
        // said plainly ("Read as a JQKA deck, told from its letters" was jargon)
        const deck = data.set === facts.other_letters  // a queen's D, not which deck's
          ? (fromGame ? t("Letters on the cards: other than J Q K A, as this game's other photos showed.")
            : t("Letters on the cards: other than J Q K A, as seen on this photo."))
          : !data.set_letters ? ""
            : fromGame ? t("Letters on the cards: {letters}, as this game's other photos showed.", { letters: data.set_letters })
              : t("Letters on the cards: {letters}, as seen on this photo.", { letters: data.set_letters });
        this.countStatus(read + " " + (deck ? deck + " " : ""));
      }
    }

    /** Read every photo again (the game changed: another kind of piece, or another set).
     *  Pieces tapped in stay if the game has them; the page is told how many did not. */
    async reread() {
      const photos = this.photos.filter((p) => p.blob);
      const tapped = this.pieces.filter((p) => p.photo === null);
      const kept = tapped.filter((p) => this.setup.pieces.includes(p.label));
      for (const p of this.photos) if (p.url && p.blob) URL.revokeObjectURL(p.url);
      this.photos = [];
      this.photosBox.replaceChildren();
      this.pieces = kept;
      this.meldCount = 1;
      for (const p of kept) p.meld = 0;
      const dropped = tapped.length - kept.length;
      this.render();
      if (!photos.length) {
        if (dropped) {
          this.setStatus(tn("{count} piece tapped in for the other game is not in this one and was taken off.",
            "{count} pieces tapped in for the other game are not in this one and were taken off.", dropped));
        }
        this.onChange(true);
        return;
      }
      for (const p of photos) await this.read(p.blob, p.width, p.height, p.print);
    }

    /** A photo view (image and its boxes) under the others; returns its index. */
    addPhoto(url, width, height, id = null, blob = null) {
      const index = this.photos.length;
      const view = el("figure", { class: "photo-view", "data-photo": index });
      const img = el("img", { class: "photo-img", alt: t("photo {number} of the pieces", { number: index + 1 }) });
      if (url) img.src = url;
      const svg = svgEl("svg", { class: "boxes", preserveAspectRatio: "none", viewBox: `0 0 ${width} ${height}` });
      const frame = el("div", { class: "photo-frame" });  // the boxes cover the picture only
      frame.append(img, svg);
      view.append(frame);
      if (!url) view.append(el("figcaption", { class: "photo-caption muted" }, t("This photo is no longer kept.")));
      // a photo can be taken back (its pieces with it) or taken again
      const actions = el("div", { class: "photo-actions" });
      const remove = el("button", { type: "button", class: "remove-photo" }, t("Remove"));
      const again = el("button", { type: "button", class: "retake-photo" }, t("Retake"));
      const place = () => this.photos.findIndex((p) => p.view === view);
      remove.addEventListener("click", () => this.removePhoto(place()));
      again.addEventListener("click", () => this.retake(place()));
      actions.append(remove, " ", again);
      view.append(actions);
      this.photosBox.append(view);
      this.photos.push({ url, width, height, id, blob, view, svg });
      this.labelPhotos();
      return index;
    }

    takeRecognition(data, photo) {
      const inMeld = new Map();
      (data.melds || []).forEach((meld, m) => meld.forEach((i) => inMeld.set(i, m)));
      const meldCount = (data.melds || []).length;
      // a second photo's melds come after those already on the board
      const offset = this.withMelds && this.pieces.length ? this.meldCount : 0;
      const rankStart = this.pieces.reduce((top, p) => Math.max(top, p.rank === undefined ? -1 : p.rank), -1) + 1;
      // chips follow the melds as they lie on the table, each read left to right, then the
      // loose pieces: the order a player reads them in, not the order the boxes were found in
      const rank = new Map();
      const centre = (i) => (data.pieces[i].bbox[0] + data.pieces[i].bbox[2]) / 2;
      for (const meld of data.melds || []) {
        const along = meld.length > 1 && centre(meld[0]) > centre(meld[meld.length - 1]) ? [...meld].reverse() : meld;
        for (const i of along) if (!rank.has(i)) rank.set(i, rank.size);
      }
      data.pieces.forEach((p, i) => { if (!rank.has(i)) rank.set(i, rank.size); });
      const added = data.pieces.map((p, i) => ({
        label: p.label, bbox: p.bbox, photo, confidence: p.confidence, sure: p.sure,
        alternatives: (p.alternatives || []).map((a) => a[0]),
        // pieces the recogniser put in no meld form one more group of their own
        meld: this.withMelds ? offset + (inMeld.has(i) ? inMeld.get(i) : meldCount) : 0,
        rank: rankStart + rank.get(i),
      }));
      this.pieces.push(...added);
      const loose = added.some((p) => p.meld === offset + meldCount);
      if (this.withMelds) this.meldCount = Math.max(offset ? this.meldCount : 1, offset + meldCount + (loose ? 1 : 0));
      this.changed(true);
    }

    /** The element that shows piece ``index`` now (after a re-render), to give focus back. */
    pieceElement(index) {
      return this.meldsBox.querySelector(`.chip[data-index="${index}"]`);
    }

    /** Where piece ``index`` is shown among the board's chips (1 = first), as players count. */
    place(index) { return this.shownOrder().indexOf(index) + 1; }

    edit(index) {
      const piece = this.pieces[index];
      // "Piece 10 may be black 9" read like the tile 10, and 10 was not its place
      const where = { number: this.place(index), count: this.pieces.length, piece: pieceName(piece.label) };
      picker.open(this.setup, {
        title: toConfirm(piece)
          ? t("Is it {piece}? The reader is not sure. (Place {number} of {count} on this board.)", where)
          : t("Read as {piece}. Which piece is it? (Place {number} of {count} on this board.)", where),
        current: piece.label,
        suggestions: piece.alternatives,
        onConfirm: toConfirm(piece) ? () => { piece.sure = true; this.changed(); } : null,
        onPick: (name) => {
          if (name === piece.label) { piece.sure = true; this.changed(); return; }
          piece.label = name; piece.confidence = 1; piece.sure = true; piece.corrected = true; this.changed();
        },
        onRemove: () => { this.pieces.splice(index, 1); this.changed(); },
        onMove: this.withMelds ? (m) => {
          piece.meld = m; if (m >= this.meldCount) this.meldCount = m + 1; this.changed();
        } : null,
        meldCount: this.meldCount, currentMeld: piece.meld,
        refocus: () => this.pieceElement(index),
      });
    }

    add(meld) {
      // the picker stays open for several pieces (a gin hand is ten); Close ends
      picker.open(this.setup, {
        title: this.withMelds ? t("Add pieces to meld {number}: tap each, then Close", { number: meld + 1 })
          : t("Add pieces: tap each, then Close"),
        keepOpen: true,
        onPick: (name) => {
          this.pieces.push({ label: name, bbox: null, photo: null, confidence: 1, sure: true, alternatives: [], meld });
          this.changed();
        },
        refocus: () => this.meldsBox.querySelector(`.meld[data-meld="${meld}"] .chip.add`),
      });
    }

    /** Re-render and tell the page; ``now`` skips the page's debounce (a fresh photo). */
    changed(now = false) {
      this.render();
      if (!this.statusError && (this.pieces.length || this.photos.length)) this.countStatus();
      this.onChange(now);
    }

    /** Mark melds valid / invalid (colours of boxes and groups). */
    setVerdicts(verdicts) {
      this.verdicts = verdicts;
      this.render();
    }

    render() {
      this.renderBoxes();
      this.renderMelds();
      const doubtful = this.unsureCount();
      if (this.confirmBar) {
        this.confirmBar.hidden = doubtful === 0;
        this.confirmBar.querySelector(".to-confirm-text").textContent = tn(
          "{count} piece is marked ?: the reader is not sure of it. Tap it to correct it, or:",
          "{count} pieces are marked ?: the reader is not sure of them. Tap one to correct it, or:", doubtful);
        this.confirmBar.querySelector(".confirm-all").textContent = tn("✓ It is right", "✓ All {count} are right", doubtful);
      }
      if (this.legend) this.legend.hidden = !this.photos.some((p) => p.url);
      if (this.clearButton) this.clearButton.hidden = !(this.pieces.length || this.photos.length);
    }

    /**
     * One box per piece, then one tag per piece on top of every box (so no box hides another
     * piece's tag). A tag shows the piece as its chip does (number in the tile's colour, card
     * with suit), sized to its box and kept 11-16 screen pixels high, so that a table of 50
     * small tiles stays readable on a phone.
     */
    renderBoxes() {
      const order = this.meldOrder();
      const places = new Map(this.shownOrder().map((j, k) => [j, k + 1]));  // as the chips are shown
      this.photos.forEach((photo, p) => {
        photo.svg.replaceChildren();
        if (!photo.url) return;
        const shown = photo.svg.getBoundingClientRect().width;
        const unit = photo.width / (shown > 0 ? shown : 360); // image pixels per screen pixel
        const tags = [];
        this.pieces.forEach((piece, i) => {
          if (!piece.bbox || piece.photo !== p) return;
          const [x1, y1, x2, y2] = piece.bbox;
          const state = this.meldState(piece.meld, order);
          const flags = `${toConfirm(piece) ? " unsure" : ""}${piece.corrected ? " corrected" : ""}`;
          const spoken = toConfirm(piece)
            ? t("piece {number}: {piece}, not sure", { number: places.get(i), piece: pieceName(piece.label) })
            : t("piece {number}: {piece}", { number: places.get(i), piece: pieceName(piece.label) });
          const group = svgEl("g", { class: `box m${piece.meld % 6} ${state}${flags}`,
            "data-index": i, "data-piece": piece.label, tabindex: 0, role: "button", "aria-label": spoken });
          const title = svgEl("title");
          title.textContent = pieceName(piece.label);
          group.append(title, svgEl("rect", { x: x1, y: y1, width: x2 - x1, height: y2 - y1, rx: 3 * unit }));
          group.addEventListener("click", () => this.edit(i));
          // Enter and Space open the picker and do nothing else: the key must not reach the
          // picker that opens under it (Enter's keypress would choose its first piece)
          group.addEventListener("keydown", (e) => {
            if (e.key !== "Enter" && e.key !== " ") return;
            e.preventDefault();
            if (e.key === "Enter" && !e.repeat) this.edit(i);
          });
          group.addEventListener("keyup", (e) => {
            if (e.key !== " ") return;
            e.preventDefault();
            this.edit(i);
          });
          photo.svg.append(group);
          const face = pieceFace(piece.label);
          const size = Math.min(16 * unit, Math.max(11 * unit, 0.5 * Math.min(x2 - x1, y2 - y1)));
          const mark = toConfirm(piece) ? "?" : "";
          const width = (0.62 * [...face.text + mark].length + 0.5) * size, height = 1.25 * size;
          // above the box, or inside its top edge when the box touches the top of the photo
          const top = y1 - height >= 0 ? y1 - height : y1;
          const colour = face.cls.split(" ").filter((c) => /^[cs]-/.test(c)).join(" ");
          const tag = svgEl("g", { class: `tag ${colour} ${state}${flags}`,
            "data-index": i, "aria-hidden": "true" });
          tag.append(svgEl("rect", { x: x1, y: top, width, height, rx: size / 5 }));
          const text = svgEl("text", { x: x1 + width / 2, y: top + 0.95 * size, "font-size": size,
            "text-anchor": "middle" });
          text.textContent = face.text + mark;
          tag.append(text);
          tag.addEventListener("click", () => this.edit(i));
          tags.push(tag);
        });
        photo.svg.append(...tags);
      });
    }

    /** Index of each non-empty meld among the melds sent for checking. */
    meldOrder() {
      const order = new Map();
      let n = 0;
      for (let m = 0; m < this.meldCount; m++) {
        if (this.pieces.some((p) => p.meld === m)) order.set(m, n++);
      }
      return order;
    }

    meldState(meld, order) {
      if (!this.withMelds || !this.verdicts || !order.has(meld)) return "";
      const verdict = this.verdicts[order.get(meld)];
      if (!verdict) return "";
      return verdict.valid ? "valid" : "invalid";
    }

    renderMelds() {
      this.meldsBox.replaceChildren();
      const order = this.meldOrder();
      for (let m = 0; m < this.meldCount; m++) {
        const box = el("div", { class: `meld m${m % 6} ${this.meldState(m, order)}`, "data-meld": m });
        if (this.withMelds) box.append(el("h3", {}, t("Meld {number}", { number: m + 1 })));
        const row = el("div", { class: "chips" });
        for (const i of this.shownOrder()) {
          const piece = this.pieces[i];
          if (piece.meld !== m) continue;
          const unsure = toConfirm(piece);
          const button = chip(piece.label, unsure ? "unsure" : "",
            unsure ? t("{piece}, not sure: check it", { piece: pieceName(piece.label) }) : pieceName(piece.label));
          button.dataset.index = i;
          button.addEventListener("click", () => this.edit(i));
          row.append(button);
        }
        const add = el("button", { type: "button", class: "chip add", title: t("add a piece"),
          "aria-label": this.withMelds ? t("add a piece to meld {number}", { number: m + 1 }) : t("add a piece") }, "+");
        add.addEventListener("click", () => this.add(m));
        row.append(add);
        box.append(row);
        if (this.withMelds && this.verdicts && order.has(m)) {
          const v = this.verdicts[order.get(m)];
          if (v) {
            // the verdict of the meld as it stands now (asked again after every change)
            const p = el("p", { class: "meld-verdict" });
            if (v.valid) {
              const kind = KIND_WORDS[v.kind] || t("meld");
              p.append(v.value !== null && v.value !== undefined
                ? t("✓ legal {kind}, worth {value}", { kind, value: v.value })
                : t("✓ legal {kind}", { kind }));
            } else {
              p.append("✗ ", withFaces(v.reason_text || v.reason || t("not a legal meld"), this.setup.kind));
            }
            box.append(p);
          }
        }
        this.meldsBox.append(box);
      }
    }
  }

  function debounce(fn, ms) {
    let timer = null;
    return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
  }

  function readSetup() { return JSON.parse(document.getElementById("setup").textContent); }

  return { Board, picker, facts, pieceFace, pieceName, piecePattern, withFaces, KIND_WORDS, faceSpan, toConfirm, chip, postJSON, downscale,
    debounce, readSetup, el };
})();
