/* meldcam: the live camera view. "Live" opens the rear camera in the page, shows the
   video full width and sends a downscaled frame to /api/frames whenever the previous answer has
   come back (one request in flight, the newest frame wins, nothing queues). The boxes, labels,
   ? marks and the verdict are drawn over the video. A tap (or Freeze) keeps the frame shown and
   reads it as a photo: the page is then the page after a photo (corrections, save); nothing is
   stored before. A label is shown once read alike on STEADY frames in a row; the verdict is
   asked again only when the pieces shown change, and read aloud (check page, an option kept in
   localStorage) once per change. Loaded after pieces.js: each Board attaches one of these. */
"use strict";

const MeldcamLive = (() => {
  const { t, tn } = I18n;
  const LIVE_SIDE = 640;  // long side of the frames sent (px)
  const STEADY = 2;  // frames in a row that must agree before a label is shown
  const SPEAK_KEY = "meldcam-read-aloud";
  const SVG = "http://www.w3.org/2000/svg";
  const views = [];

  function svgEl(tag, attrs = {}) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
    return node;
  }

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Why live view cannot run on this page, in one line; null when it can. */
  function unavailable() {
    if (!window.isSecureContext) {
      return t("Live view needs a secure page (https://, or this computer): open the https address of the server, or use the photo button.");
    }
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      return t("This browser cannot show the camera in the page: use the photo button.");
    }
    return null;
  }

  /** Why the camera did not open (getUserMedia's error), in one line. */
  function refusal(error) {
    const name = error && error.name;
    if (name === "NotAllowedError" || name === "SecurityError" || name === "PermissionDeniedError") {
      return t("The camera was refused: allow it for this site in the browser's settings, or use the photo button.");
    }
    if (name === "NotFoundError" || name === "OverconstrainedError" || name === "DevicesNotFoundError") {
      return t("No camera was found: use the photo button.");
    }
    if (name === "NotReadableError") return t("The camera is busy in another app: close it, or use the photo button.");
    return t("The camera could not be started: use the photo button.");
  }

  function overlap(a, b) {
    const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
    const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
    if (w <= 0 || h <= 0) return 0;
    const inter = w * h;
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter);
  }

  /**
   * Steadiness: each piece of the new frame is matched to the last frame's piece whose box
   * covers it best (IoU > 0.3). A label is shown once it was read alike on STEADY frames in a
   * row; until then the piece keeps the label it showed before (or none: "…").
   */
  function follow(tracks, pieces) {
    const used = new Set();
    return pieces.map((p) => {
      let best = -1, score = 0.3;
      tracks.forEach((track, k) => {
        if (used.has(k)) return;
        const s = overlap(track.bbox, p.bbox);
        if (s > score) { best = k; score = s; }
      });
      const before = best >= 0 ? tracks[best] : null;
      if (before) used.add(best);
      const runs = before && before.label === p.label ? before.runs + 1 : 1;
      const shown = runs >= STEADY ? p.label : (before ? before.shown : null);
      return { label: p.label, bbox: p.bbox, sure: p.sure !== false, runs, shown };
    });
  }

  /** A reason with every piece name as it is said ("red 5", "queen of hearts"). */
  function saidPieces(text, kind) {
    const pattern = kind === "dominoes" ? null : Meldcam.piecePattern(kind);  // "3-8" as it is
    return pattern ? text.replace(pattern, (whole, name) => Meldcam.pieceName(name)) : text;
  }

  /** What is read aloud for the scorer's verdicts of the melds shown (``/api/check``'s
   *  ``melds``), in the page's language: "legal run, worth 25", or the reason it is not legal. */
  function spokenVerdict(verdicts, kind) {
    return verdicts.map((v) => {
      const kindWord = Meldcam.KIND_WORDS[v.kind] || t("meld");
      if (v.valid) {
        return v.value !== null && v.value !== undefined
          ? t("legal {kind}, worth {value}", { kind: kindWord, value: v.value })
          : t("legal {kind}", { kind: kindWord });
      }
      const reason = v.reason_text || v.reason;
      return reason ? t("not legal: {reason}", { reason: saidPieces(reason, kind) }) : t("not a legal meld");
    }).join(". ");
  }

  /** The same verdicts as written over the video. */
  function writtenVerdict(verdicts) {
    return verdicts.map((v) => {
      const kindWord = Meldcam.KIND_WORDS[v.kind] || t("meld");
      if (v.valid) {
        return v.value !== null && v.value !== undefined
          ? t("✓ legal {kind}, worth {value}", { kind: kindWord, value: v.value })
          : t("✓ legal {kind}", { kind: kindWord });
      }
      return "✗ " + (v.reason_text || v.reason || t("not a legal meld"));
    }).join(" · ");
  }

  function readAloudBox() { return document.getElementById("read-aloud"); }

  function speak(text) {
    const box = readAloudBox();
    if (!box || !box.checked || !text) return;
    document.body.dataset.spoken = text;  // what was said last (the tests read it)
    if (!("speechSynthesis" in window) || typeof SpeechSynthesisUtterance === "undefined") return;
    window.speechSynthesis.cancel();  // the newest verdict only
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.lang = I18n.lang;
    window.speechSynthesis.speak(utterance);
  }

  class LiveView {
    constructor(board) {
      this.board = board;
      const root = board.root;
      this.button = root.querySelector(".live-button");
      this.why = root.querySelector(".live-why");
      this.box = root.querySelector(".live-view");
      this.running = false;
      this.session = 0;
      this.asked = 0;
      if (!this.button || !this.box) return;
      this.video = this.box.querySelector("video");
      this.svg = this.box.querySelector(".live-boxes");
      this.verdictLine = this.box.querySelector(".live-verdict");
      this.note = this.box.querySelector(".live-note");
      this.box.querySelector(".live-freeze").addEventListener("click", () => this.freeze());
      this.box.querySelector(".live-stop").addEventListener("click", () => this.stop());
      // a tap on the picture freezes (on its frame: a tap on a <video> itself makes no click)
      this.box.querySelector(".live-frame").addEventListener("click", () => this.freeze());
      this.button.addEventListener("click", () => this.start());
      this.button.hidden = false;
      document.addEventListener("visibilitychange", () => { if (document.hidden) this.stop(); });
      views.push(this);
    }

    explain(text) {
      this.why.textContent = text;
      this.why.hidden = false;
    }

    async start() {
      if (this.running) return;
      for (const other of views) if (other !== this) other.stop();  // one camera at a time
      const reason = unavailable();
      if (reason) { this.explain(reason); return; }
      let stream;
      try {
        stream = await navigator.mediaDevices.getUserMedia({ audio: false,
          video: { facingMode: { ideal: "environment" }, width: { ideal: 1280 }, height: { ideal: 720 } } });
      } catch (error) {
        this.explain(refusal(error));
        return;
      }
      this.why.hidden = true;
      this.stream = stream;
      this.video.srcObject = stream;
      this.box.hidden = false;
      this.button.hidden = true;
      try { await this.video.play(); } catch (e) { /* muted inline video: it plays */ }
      this.running = true;
      this.tracks = [];
      this.melds = [];
      this.verdicts = null;
      this.frame = null;
      this.lastKey = null;
      this.wait = 0;
      this.stats = { frames: 0, started: performance.now(), roundMs: [], serverMs: [] };
      this.verdictLine.textContent = t("Point the camera at the pieces…");
      this.note.textContent = "";
      this.svg.replaceChildren();
      document.body.dataset.live = "on";
      this.loop(++this.session);
    }

    stop() {
      if (!this.running) return;
      this.running = false;
      this.session += 1;
      if (this.stream) for (const track of this.stream.getTracks()) track.stop();
      this.stream = null;
      this.video.srcObject = null;
      this.box.hidden = true;
      this.button.hidden = false;
      if ("speechSynthesis" in window) window.speechSynthesis.cancel();
      document.body.dataset.live = "off";
    }

    /** Keep the frame shown and read it as a photo: the page after a photo, as today. */
    async freeze() {
      if (!this.running) return;
      const frame = this.frame;
      if (!frame) { this.note.textContent = t("Wait for the first reading, then tap again."); return; }
      this.stop();
      await this.board.read(frame.blob, frame.width, frame.height);
    }

    /** The video's picture now, its long side at most LIVE_SIDE, as a JPEG. */
    async grab() {
      const w0 = this.video.videoWidth, h0 = this.video.videoHeight;
      const scale = Math.min(1, LIVE_SIDE / Math.max(w0, h0));
      const width = Math.round(w0 * scale), height = Math.round(h0 * scale);
      if (!this.canvas) this.canvas = document.createElement("canvas");
      this.canvas.width = width;
      this.canvas.height = height;
      this.canvas.getContext("2d").drawImage(this.video, 0, 0, width, height);
      const blob = await new Promise((resolve) => this.canvas.toBlob(resolve, "image/jpeg", 0.8));
      return { blob, width, height };
    }

    /** One frame at a time: the next is taken when the answer to this one has come. */
    async loop(session) {
      const setup = this.board.setup;
      while (this.running && session === this.session) {
        if (this.video.readyState < 2 || !this.video.videoWidth) { await sleep(100); continue; }
        const frame = await this.grab();
        if (!frame.blob) { await sleep(200); continue; }
        const form = new FormData();
        form.append("photo", frame.blob, "frame.jpg");
        form.append("kind", setup.kind);
        if (setup.game_id) form.append("game", setup.game_id);
        const sent = performance.now();
        let response = null, data = null;
        try {
          response = await fetch("/api/frames", { method: "POST", body: form });
          try { data = await response.json(); } catch (e) { data = null; }
        } catch (e) { response = null; }
        if (!this.running || session !== this.session) return;
        if (response && response.ok && data) {
          this.wait = 0;
          this.note.textContent = "";
          this.take(data, frame, performance.now() - sent);
          continue;
        }
        if (response && response.status === 503) {  // a busy reader: this phone slows down
          const after = Number(response.headers.get("Retry-After")) || 2;
          this.wait = Math.min(10000, Math.max(1000 * after, 2 * this.wait));
          this.note.textContent = (data && (data.error_text || data.error)) || t("The photo reader is busy: slowing down.");
        } else {
          this.wait = Math.min(10000, Math.max(1000, 2 * this.wait));
          this.note.textContent = data && (data.error_text || data.error)
            ? data.error_text || data.error : t("No connection: the live view goes on once it is back.");
        }
        await sleep(this.wait);
      }
    }

    take(data, frame, roundMs) {
      this.frame = frame;
      this.tracks = follow(this.tracks, data.pieces || []);
      const stats = this.stats;
      stats.frames += 1;
      stats.roundMs.push(roundMs);
      if (data.frame && typeof data.frame.server_ms === "number") stats.serverMs.push(data.frame.server_ms);
      this.size = [frame.width, frame.height];
      this.melds = this.meldsOf(data.melds || []);
      this.draw();
      document.body.dataset.liveFrames = String(stats.frames);
      this.judge();
    }

    /** The reading's melds as track indices; the pieces in none form one more group. */
    meldsOf(melds) {
      const inMeld = new Set(melds.flat());
      const loose = this.tracks.map((_, i) => i).filter((i) => !inMeld.has(i));
      return [...melds, ...(loose.length ? [loose] : [])];
    }

    /** The melds shown, as piece names (labels not yet steady, or not of this game, left out). */
    shownMelds() {
      const known = new Set(this.board.setup.pieces);
      return this.melds.map((meld) => {
        const names = meld.map((i) => this.tracks[i] && this.tracks[i].shown).filter((n) => n && known.has(n));
        const centre = (i) => (this.tracks[i].bbox[0] + this.tracks[i].bbox[2]) / 2;
        return meld.length > 1 && centre(meld[0]) > centre(meld[meld.length - 1]) ? names.reverse() : names;
      }).filter((names) => names.length);
    }

    draw() {
      if (!this.size) return;
      const [width, height] = this.size;
      this.svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
      const shownWidth = this.svg.getBoundingClientRect().width;
      const unit = width / (shownWidth > 0 ? shownWidth : 360);
      const states = new Map();
      let k = 0;
      this.melds.forEach((meld, m) => {
        const shown = meld.some((i) => this.tracks[i] && this.tracks[i].shown);
        const verdict = shown && this.verdicts ? this.verdicts[k] : null;
        if (shown) k += 1;
        for (const i of meld) states.set(i, { meld: m, state: verdict ? (verdict.valid ? "valid" : "invalid") : "" });
      });
      const boxes = [], tags = [];
      this.tracks.forEach((track, i) => {
        const [x1, y1, x2, y2] = track.bbox;
        const { meld, state } = states.get(i) || { meld: 0, state: "" };
        const unsure = track.sure ? "" : " unsure";
        const box = svgEl("g", { class: `box live-piece m${meld % 6} ${state}${unsure}`,
          "data-piece": track.shown || "", "data-read": track.label });
        box.append(svgEl("rect", { x: x1, y: y1, width: x2 - x1, height: y2 - y1, rx: 3 * unit }));
        boxes.push(box);
        const face = track.shown ? Meldcam.pieceFace(track.shown) : { text: "…", cls: "" };
        const text = face.text + (track.shown && !track.sure ? "?" : "");
        const size = Math.min(18 * unit, Math.max(12 * unit, 0.5 * Math.min(x2 - x1, y2 - y1)));
        const tagWidth = (0.62 * [...text].length + 0.5) * size, tagHeight = 1.25 * size;
        const top = y1 - tagHeight >= 0 ? y1 - tagHeight : y1;
        const colour = face.cls.split(" ").filter((c) => /^[cs]-/.test(c)).join(" ");
        const tag = svgEl("g", { class: `tag ${colour} ${state}` });
        tag.append(svgEl("rect", { x: x1, y: top, width: tagWidth, height: tagHeight, rx: size / 5 }));
        const label = svgEl("text", { x: x1 + tagWidth / 2, y: top + 0.95 * size, "font-size": size, "text-anchor": "middle" });
        label.textContent = text;
        tag.append(label);
        tags.push(tag);
      });
      this.svg.replaceChildren(...boxes, ...tags);
    }

    /** The verdict line: asked again only when the pieces shown change. */
    async judge() {
      const melds = this.shownMelds();
      const key = JSON.stringify(melds);
      if (key === this.lastKey) return;
      this.lastKey = key;
      const ticket = ++this.asked;
      const setup = this.board.setup;
      const count = melds.flat().length;
      if (!count) {
        this.verdicts = null;
        this.say(t("Point the camera at the pieces…"), null);
        return;
      }
      if (!this.board.withMelds) {  // a rack: the pieces, no melds to judge
        this.verdicts = null;
        this.say(tn("{count} piece in view: tap to keep this reading.", "{count} pieces in view: tap to keep this reading.", count), null);
        return;
      }
      const answer = await Meldcam.postJSON("/api/check", { game: setup.game, options: setup.options || {}, melds, opening: false });
      if (ticket !== this.asked || !this.running) return;
      if (!answer.ok) {
        this.verdicts = null;
        this.say((answer.data && answer.data.error) || t("the photo could not be read"), null);
        return;
      }
      this.verdicts = answer.data.melds;
      this.draw();
      this.say(writtenVerdict(this.verdicts), spokenVerdict(this.verdicts, setup.kind));
    }

    say(written, spoken) {
      this.verdictLine.textContent = written;
      this.verdictLine.classList.toggle("bad", Boolean(this.verdicts && this.verdicts.some((v) => !v.valid)));
      document.body.dataset.liveVerdict = String(this.asked);
      if (spoken) speak(spoken);
    }
  }

  // the read-aloud option (check page), remembered on this phone
  const option = readAloudBox();
  if (option) {
    try { option.checked = localStorage.getItem(SPEAK_KEY) === "1"; } catch (e) { /* no storage */ }
    option.addEventListener("change", () => {
      try { localStorage.setItem(SPEAK_KEY, option.checked ? "1" : "0"); } catch (e) { /* no storage */ }
      if (!option.checked && "speechSynthesis" in window) window.speechSynthesis.cancel();
    });
  }

  return { attach: (board) => new LiveView(board), views, spokenVerdict, writtenVerdict, follow, unavailable, STEADY };
})();
