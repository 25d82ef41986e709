// Logging out leaves nothing of the worker's unsent answers in this browser: drafts kept across
// reloads (annotate/draft.js) and playback reports (listening.js) go with the session, so the
// next person at a shared machine finds none of them.
(function () {
  "use strict";

  function forget(storage, prefixes) {
    try {
      for (let i = storage.length - 1; i >= 0; i--) {
        const name = storage.key(i);
        if (name && prefixes.some(function (p) { return name.indexOf(p) === 0; })) storage.removeItem(name);
      }
    } catch (e) { /* storage off */ }
  }

  document.addEventListener("submit", function (event) {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.matches("[data-logout]")) return;
    forget(window.localStorage, ["draft:"]);
    forget(window.sessionStorage, ["playback:"]);
  }, true);
})();
