/* meldcam: pieces on a board (photo + boxes + melds), the piece picker, photo upload.
   Plain JS, no framework. Shared by the check page and the end-of-hand page. */
"use strict";

const Meldcam = (() => {
  const MAX_SIDE = 1600;
  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
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

  /** How a piece name is shown: short text and a CSS class (tile colour, card suit colour). */
  function pieceFace(name) {
    let m = /^(red|orange|blue|black)-(\d+)$/.exec(name);
    if (m) return { text: m[2], cls: "tile c-" + m[1] };
    if (name === "joker") return { text: "☺", cls: "tile c-joker" };
    m = /^(\d+)-(\d+)$/.exec(name);
    if (m) return { text: m[1] + "|" + m[2], cls: "domino" };
    m = /^(10|[2-9AJQK])([CDHS])$/.exec(name);
    if (m) return { text: m[1] + SUITS[m[2]], cls: "card s-" + m[2] };
    return { text: name, cls: "other" };
  }

  /**
   * Whether the page asks the player to confirm a piece: the recogniser did not flag it sure
   * (`sure: false`, chosen so that at least 99.5 % of sure pieces are right; see
   * docs/choices/vision.md). Pieces entered or corrected by hand are sure.
   */
  function toConfirm(piece) { return piece.sure === false; }

  function chip(name, extraClass = "") {
    const face = pieceFace(name);
    const button = el("button", { type: "button", class: `chip ${face.cls} ${extraClass}`.trim(),
      title: name, "data-piece": name }, face.text);
    return button;
  }

  async function postJSON(url, body) {
    const response = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body) });
    let data = null;
    try { data = await response.json(); } catch (e) { data = { error: "the server answered " + response.status }; }
    return { ok: response.ok, status: response.status, data };
  }

  /** Shrink the photo in the browser (long side <= 1600 px), EXIF orientation applied. */
  async function downscale(file) {
    let bitmap;
    try {
      bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
    } catch (e) {
      throw new Error("this file is not a photo the browser can open");
    }
    const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
    const width = Math.round(bitmap.width * scale), height = Math.round(bitmap.height * scale);
    const canvas = el("canvas", { width, height });
    canvas.getContext("2d").drawImage(bitmap, 0, 0, width, height);
    bitmap.close();
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.9));
    return { blob, width, height };
  }

  /** The one picker dialog of the page: choose a piece, remove it, or move it to a meld. */
  const picker = {
    open(setup, options) {
      const dialog = document.getElementById("picker");
      this.options = options;
      document.getElementById("picker-title").textContent = options.title;
      const suggestions = document.getElementById("picker-suggestions");
      suggestions.replaceChildren();
      const likely = (options.suggestions || []).filter((name) => setup.pieces.includes(name));
      if (likely.length) suggestions.append(el("span", { class: "muted" }, "Or perhaps:"));
      for (const name of likely) {
        const button = chip(name, "pick");
        button.addEventListener("click", () => this.choose(name));
        suggestions.append(button);
      }
      const grid = document.getElementById("picker-pieces");
      if (grid.dataset.game !== setup.game) {
        grid.replaceChildren();
        for (const name of setup.pieces) grid.append(chip(name, "pick"));
        grid.dataset.game = setup.game;
        grid.addEventListener("click", (event) => {
          const target = event.target.closest("[data-piece]");
          if (target) this.choose(target.dataset.piece);
        });
      }
      for (const button of grid.querySelectorAll(".chip")) {
        button.classList.toggle("current", button.dataset.piece === options.current);
      }
      const remove = document.getElementById("picker-remove");
      remove.hidden = !options.onRemove;
      remove.onclick = () => { dialog.close(); options.onRemove(); };
      const melds = document.getElementById("picker-melds");
      melds.replaceChildren();
      if (options.onMove) {
        melds.append(el("span", { class: "muted" }, "Move to: "));
        for (let i = 0; i <= options.meldCount; i++) {
          const label = i === options.meldCount ? "new meld" : "meld " + (i + 1);
          if (i === options.currentMeld) continue;
          const button = el("button", { type: "button", class: "move" }, label);
          button.addEventListener("click", () => { dialog.close(); options.onMove(i); });
          melds.append(button);
        }
      }
      dialog.showModal();
    },
    choose(name) {
      document.getElementById("picker").close();
      if (this.options && this.options.onPick) this.options.onPick(name);
    },
  };

  /**
   * A board of pieces: an optional photo with one box per piece (SVG in image pixels), and the
   * pieces as chips, grouped into melds when `withMelds`. Every change calls onChange().
   */
  class Board {
    constructor(root, setup, { withMelds, onChange }) {
      this.root = root;
      this.setup = setup;
      this.withMelds = withMelds;
      this.onChange = onChange;
      this.pieces = []; // {label, bbox|null, confidence, sure, alternatives, meld}
      this.meldCount = withMelds ? 1 : 1;
      this.photo = null;
      this.fileInput = root.querySelector(".photo-file");
      this.status = root.querySelector(".status");
      this.busy = root.querySelector(".busy");
      this.view = root.querySelector(".photo-view");
      this.img = root.querySelector(".photo-img");
      this.svg = root.querySelector(".boxes");
      this.meldsBox = root.querySelector(".melds");
      this.fileInput.addEventListener("change", () => {
        if (!this.fileInput.files.length) return;
        const file = this.fileInput.files[0];
        this.fileInput.value = ""; // so that choosing the same photo again reads it again
        this.upload(file);
      });
      const addMeld = root.querySelector(".add-meld");
      if (addMeld) addMeld.addEventListener("click", () => { this.meldCount += 1; this.changed(); });
      // tags are sized in screen pixels: redraw them when the phone turns
      window.addEventListener("resize", debounce(() => this.renderBoxes(), 200));
      this.render();
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

    setPieces(names) {
      this.pieces = names.map((label) => ({ label, bbox: null, confidence: 1, sure: true, alternatives: [], meld: 0 }));
      this.render();
    }

    setStatus(text, isError = false) {
      this.status.textContent = text;
      this.status.classList.toggle("error", isError);
    }

    async upload(file) {
      this.setStatus("Preparing the photo…");
      this.busy.hidden = false;
      try {
        const small = await downscale(file);
        this.showPhoto(URL.createObjectURL(small.blob), small.width, small.height);
        this.setStatus("Reading the pieces…");
        const form = new FormData();
        form.append("photo", small.blob, "photo.jpg");
        form.append("kind", this.setup.kind);
        if (this.setup.game_id) form.append("game", this.setup.game_id);
        const started = performance.now();
        const response = await fetch("/api/recognise", { method: "POST", body: form });
        let data;
        try { data = await response.json(); } catch (e) { data = { error: "the server answered " + response.status }; }
        if (!response.ok) {
          this.pieces = [];
          this.setStatus(data.error || "the photo could not be read", true);
          this.render();
          this.onChange(true);
          return;
        }
        this.takeRecognition(data);
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        const count = data.pieces.length;
        const doubtful = this.pieces.filter(toConfirm).length;
        const check = doubtful ? ` Check the ${doubtful} dashed one${doubtful === 1 ? "" : "s"}.` : "";
        this.setStatus(count
          ? `Read ${count} piece${count === 1 ? "" : "s"} in ${seconds} s.${check} Tap a box or a piece to correct it.`
          : "No pieces found on this photo: take it closer, or tap + to enter them.");
      } catch (error) {
        this.setStatus(error.message || String(error), true);
      } finally {
        this.busy.hidden = true;
      }
    }

    showPhoto(url, width, height) {
      if (this.photo && this.photo.url) URL.revokeObjectURL(this.photo.url);
      this.photo = { url, width, height };
      this.img.src = url;
      this.svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
      this.view.hidden = false;
    }

    takeRecognition(data) {
      const inMeld = new Map();
      (data.melds || []).forEach((meld, m) => meld.forEach((i) => inMeld.set(i, m)));
      const meldCount = (data.melds || []).length;
      // chips follow the melds as they lie on the table, each read left to right, then the
      // loose pieces: the order a player reads them in, not the order the boxes were found in
      const rank = new Map();
      const centre = (i) => (data.pieces[i].bbox[0] + data.pieces[i].bbox[2]) / 2;
      for (const meld of data.melds || []) {
        const along = meld.length > 1 && centre(meld[0]) > centre(meld[meld.length - 1]) ? [...meld].reverse() : meld;
        for (const i of along) if (!rank.has(i)) rank.set(i, rank.size);
      }
      data.pieces.forEach((p, i) => { if (!rank.has(i)) rank.set(i, rank.size); });
      this.pieces = data.pieces.map((p, i) => ({
        label: p.label, bbox: p.bbox, confidence: p.confidence, sure: p.sure,
        alternatives: (p.alternatives || []).map((a) => a[0]),
        // pieces the recogniser put in no meld form one more group of their own
        meld: this.withMelds ? (inMeld.has(i) ? inMeld.get(i) : meldCount) : 0,
        rank: rank.get(i),
      }));
      const loose = this.pieces.some((p) => p.meld === meldCount);
      this.meldCount = this.withMelds ? Math.max(1, meldCount + (loose ? 1 : 0)) : 1;
      this.changed(true);
    }

    edit(index) {
      const piece = this.pieces[index];
      picker.open(this.setup, {
        title: `Piece ${index + 1} was read as ${piece.label}. Which is it?`,
        current: piece.label,
        suggestions: piece.alternatives,
        onPick: (name) => {
          piece.label = name; piece.confidence = 1; piece.sure = true; piece.corrected = true; this.changed();
        },
        onRemove: () => { this.pieces.splice(index, 1); this.changed(); },
        onMove: this.withMelds ? (m) => {
          piece.meld = m; if (m >= this.meldCount) this.meldCount = m + 1; this.changed();
        } : null,
        meldCount: this.meldCount, currentMeld: piece.meld,
      });
    }

    add(meld) {
      picker.open(this.setup, {
        title: this.withMelds ? `Add a piece to meld ${meld + 1}` : "Add a piece",
        onPick: (name) => {
          this.pieces.push({ label: name, bbox: null, confidence: 1, sure: true, alternatives: [], meld });
          this.changed();
        },
      });
    }

    /** Re-render and tell the page; ``now`` skips the page's debounce (a fresh photo). */
    changed(now = false) { this.render(); this.onChange(now); }

    /** Mark melds valid / invalid (colours of boxes and groups). */
    setVerdicts(verdicts) {
      this.verdicts = verdicts;
      this.render();
    }

    render() {
      this.renderBoxes();
      this.renderMelds();
    }

    /**
     * One box per piece, then one tag per piece on top of every box (so no box hides another
     * piece's tag). A tag shows the piece as its chip does (number in the tile's colour, card
     * with suit), sized to its box and kept 11-16 screen pixels high, so that a table of 50
     * small tiles stays readable on a phone.
     */
    renderBoxes() {
      this.svg.replaceChildren();
      if (!this.photo) return;
      const shown = this.svg.getBoundingClientRect().width;
      const unit = this.photo.width / (shown > 0 ? shown : 360); // image pixels per screen pixel
      const order = this.meldOrder();
      const tags = [];
      this.pieces.forEach((piece, i) => {
        if (!piece.bbox) return;
        const [x1, y1, x2, y2] = piece.bbox;
        const state = this.meldState(piece.meld, order);
        const flags = `${toConfirm(piece) ? " unsure" : ""}${piece.corrected ? " corrected" : ""}`;
        const group = svgEl("g", { class: `box m${piece.meld % 6} ${state}${flags}`,
          "data-index": i, "data-piece": piece.label, tabindex: 0, role: "button",
          "aria-label": `piece ${i + 1}: ${piece.label}` });
        const title = svgEl("title");
        title.textContent = piece.label;
        group.append(title, svgEl("rect", { x: x1, y: y1, width: x2 - x1, height: y2 - y1, rx: 3 * unit }));
        group.addEventListener("click", () => this.edit(i));
        group.addEventListener("keydown", (e) => { if (e.key === "Enter") this.edit(i); });
        this.svg.append(group);
        const face = pieceFace(piece.label);
        const size = Math.min(16 * unit, Math.max(11 * unit, 0.5 * Math.min(x2 - x1, y2 - y1)));
        const width = (0.62 * [...face.text].length + 0.5) * size, height = 1.25 * size;
        // above the box, or inside its top edge when the box touches the top of the photo
        const top = y1 - height >= 0 ? y1 - height : y1;
        const colour = face.cls.split(" ").filter((c) => /^[cs]-/.test(c)).join(" ");
        const tag = svgEl("g", { class: `tag ${colour} ${state}${flags}`,
          "data-index": i, "aria-hidden": "true" });
        tag.append(svgEl("rect", { x: x1, y: top, width, height, rx: size / 5 }));
        const text = svgEl("text", { x: x1 + width / 2, y: top + 0.95 * size, "font-size": size,
          "text-anchor": "middle" });
        text.textContent = face.text;
        tag.append(text);
        tag.addEventListener("click", () => this.edit(i));
        tags.push(tag);
      });
      this.svg.append(...tags);
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
        if (this.withMelds) box.append(el("h3", {}, `Meld ${m + 1}`));
        const row = el("div", { class: "chips" });
        for (const i of this.shownOrder()) {
          const piece = this.pieces[i];
          if (piece.meld !== m) continue;
          const button = chip(piece.label, toConfirm(piece) ? "unsure" : "");
          button.dataset.index = i;
          button.addEventListener("click", () => this.edit(i));
          row.append(button);
        }
        const add = el("button", { type: "button", class: "chip add", title: "add a piece" }, "+");
        add.addEventListener("click", () => this.add(m));
        row.append(add);
        box.append(row);
        if (this.withMelds && this.verdicts && order.has(m)) {
          const v = this.verdicts[order.get(m)];
          if (v) {
            const words = v.valid ? `✓ legal ${v.kind || "meld"}${v.value !== null && v.value !== undefined ? ", worth " + v.value : ""}` : `✗ ${v.reason || "not a legal meld"}`;
            box.append(el("p", { class: "meld-verdict" }, words));
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

  return { Board, picker, pieceFace, chip, postJSON, downscale, debounce, readSetup, el };
})();
