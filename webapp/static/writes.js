/* meldcam: forms that write carry an idempotency key (hidden field idempotency_key). Sending the
   same form again (a retry after a lost answer) sends the same key and is stored once; a page
   brought back from the back-forward cache gets new keys, as a fresh page would. */
(() => {
  function freshKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID(); // secure contexts only
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }
  function fill(renew) {
    for (const input of document.querySelectorAll("input[name=idempotency_key]")) {
      if (renew || !input.value) input.value = freshKey();
    }
  }
  fill(false);
  window.addEventListener("pageshow", (event) => { if (event.persisted) fill(true); });
})();
