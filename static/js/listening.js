// Listening mode: a player that follows the project's rules (play once, no pause, no seeking,
// to the end, unless the project allows them), reports play, pause, seek and ended events with
// the fraction heard in the hidden "playback" field, and tells the form when it may be sent.
// Each start of playback is also reported to the server at once (numbered, so a repeat is
// harmless): a reload does not give a fresh player, and the server checks the report against
// it. The report is kept in the tab's session storage, so a reload after the speech ended
// keeps what was heard. Loaded as a file (htmx runs with allowEval off).
(function () {
  "use strict";

  const NOT_PLAYED = "Play the speech before answering.";
  const NOT_ENDED = "Listen to the speech to its end before answering.";

  function clock(seconds) {
    const s = Math.max(0, Math.floor(seconds || 0));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  // The fraction of the audio heard: the union of the ranges the browser played.
  function heard(audio) {
    const d = audio.duration;
    if (!d || !isFinite(d)) return 0;
    let total = 0;
    for (let i = 0; i < audio.played.length; i++) total += audio.played.end(i) - audio.played.start(i);
    return Math.min(1, total / d);
  }

  function setUp(section) {
    if (section.dataset.ready) return;
    section.dataset.ready = "1";
    const audio = section.querySelector("[data-audio]");
    const button = section.querySelector("[data-play]");
    const field = section.querySelector("[data-playback]");
    const bar = section.querySelector("[data-position]");
    const shownClock = section.querySelector("[data-clock]");
    const status = section.querySelector("[data-player-status]");
    if (!audio || !button || !field) return;
    const rules = {
      pause: section.dataset.allowPause === "1",
      seek: section.dataset.allowSeek === "1",
      replay: section.dataset.allowReplay === "1",
      end: section.dataset.requireEnd === "1",
      maxPlays: parseInt(section.dataset.maxPlays || "0", 10) || 0,
    };
    const storeKey = section.dataset.assignment ? "playback:" + section.dataset.assignment : "";
    // Starts of playback so far, as the server recorded them (before this page) and since.
    let plays = parseInt(section.dataset.plays || "0", 10) || 0;
    // A play begun on this page that has not ended (a pause in it may be resumed).
    let startedHere = false;
    const shown = performance.now();
    const events = [];
    let ended = false;
    let lastTime = 0;
    // Set while the player puts the position back after a seek the project does not allow: the
    // "seeking" event that this causes comes later and is not the worker's.
    let restoring = false;
    // Re-shown after the server refused another field: the speech was heard, keep its report.
    let earlier = readEarlier(field.value);
    if (!earlier && storeKey && !section.classList.contains("invalid")) earlier = readEarlier(stored(storeKey));
    forgetOthers(storeKey);
    let offset = 0;
    if (earlier) {
      earlier.events.forEach(function (e) { events.push(e); });
      ended = earlier.events.some(function (e) { return e.type === "ended"; });
      offset = Math.max.apply(null, earlier.events.map(function (e) { return e.at; }).concat([0])) + 1;
    }

    function problem() {
      if (!events.some(function (e) { return e.type === "play"; })) return NOT_PLAYED;
      if (rules.end && !ended) return NOT_ENDED;
      return "";
    }

    function record(type, extra) {
      const event = { type: type, t: Math.round(audio.currentTime * 1000) / 1000, at: offset + Math.round(performance.now() - shown) };
      if (extra) Object.assign(event, extra);
      events.push(event);
      write();
    }

    function write() {
      const duration = isFinite(audio.duration) ? audio.duration : (earlier ? earlier.duration : null);
      const fraction = Math.max(heard(audio), earlier ? earlier.heard : 0);
      field.value = JSON.stringify({ events: events, heard: Math.round(fraction * 10000) / 10000, duration: duration });
      if (storeKey) {
        try { sessionStorage.setItem(storeKey, field.value); } catch (e) { /* storage off: the server still counts */ }
      }
      section.dataset.problem = problem();
      // A problem the worker has now solved stops being shown.
      if (section.classList.contains("invalid") && !section.dataset.problem) {
        section.classList.remove("invalid");
        const out = section.querySelector("[data-error]");
        if (out) out.hidden = true;
      }
    }

    function exhausted() {
      return rules.maxPlays > 0 && plays >= rules.maxPlays;
    }

    function refreshButton() {
      if (audio.paused) {
        if (startedHere) {
          button.disabled = false;
          button.textContent = "▶ Resume";
        } else {
          button.disabled = exhausted();
          button.textContent = button.disabled ? "Played" : (plays ? "▶ Play again" : "▶ Play the speech");
        }
      } else {
        button.disabled = !rules.pause;
        button.textContent = rules.pause ? "❚❚ Pause" : "Playing…";
      }
      const hint = document.createElement("kbd");
      hint.className = "key-hint";
      hint.textContent = "p";
      if (!button.disabled) button.append(" ", hint);
    }

    button.addEventListener("click", function () {
      if (audio.paused) {
        if (!startedHere && exhausted()) return;
        audio.play().catch(function () {
          if (status) status.textContent = "The browser did not start the audio: press play again.";
        });
      } else if (rules.pause) {
        audio.pause();
      }
    });
    section.addEventListener("player:toggle", function () { if (!button.disabled) button.click(); });

    audio.addEventListener("play", function () {
      if (!startedHere) {
        startedHere = true;
        plays += 1;
        tellStart(plays, 3);
      }
      record("play");
      refreshButton();
    });
    audio.addEventListener("pause", function () {
      // The browser pauses as the audio ends: that is the end, not the worker's pause.
      if (!audio.ended) record("pause");
      refreshButton();
    });
    audio.addEventListener("ended", function () {
      ended = true;
      startedHere = false;
      record("ended");
      refreshButton();
      if (status) status.textContent = rules.replay && !exhausted() ? "The speech ended. You may play it again." : "The speech ended.";
    });
    audio.addEventListener("seeking", function () {
      if (restoring) {
        restoring = false;
        return;
      }
      const target = audio.currentTime;
      // Playing again after the end starts from the beginning: part of the replay, not a seek.
      if (ended && rules.replay && target < 0.5) return;
      if (Math.abs(target - lastTime) <= 0.5) return;
      if (!rules.seek) {
        // Put the position back where it was (media keys or a browser feature moved it).
        restoring = true;
        audio.currentTime = lastTime;
        return;
      }
      record("seek", { from: Math.round(lastTime * 1000) / 1000 });
    });
    audio.addEventListener("timeupdate", function () {
      if (!audio.seeking) lastTime = audio.currentTime;
      const d = audio.duration;
      if (bar && d && isFinite(d)) {
        const pct = Math.round((audio.currentTime / d) * 100);
        bar.setAttribute("aria-valuenow", String(pct));
        bar.firstElementChild.style.width = pct + "%";
      }
      if (shownClock) shownClock.textContent = clock(audio.currentTime) + (d && isFinite(d) ? " / " + clock(d) : "");
    });
    audio.addEventListener("loadedmetadata", function () {
      if (shownClock) shownClock.textContent = "0:00 / " + clock(audio.duration);
    });
    audio.addEventListener("error", function () {
      if (status) status.textContent = "The audio could not be loaded. Reload the page; if it persists, skip this item.";
    });
    if (rules.seek && bar) {
      bar.addEventListener("click", function (event) {
        const d = audio.duration;
        if (!d || !isFinite(d)) return;
        const box = bar.getBoundingClientRect();
        audio.currentTime = Math.max(0, Math.min(d, ((event.clientX - box.left) / box.width) * d));
      });
      bar.style.cursor = "pointer";
    }
    // The server numbers the starts: the n-th is recorded once, however often it is sent.
    function tellStart(n, tries) {
      const url = section.dataset.playsUrl;
      const token = document.querySelector('#task-form input[name="csrfmiddlewaretoken"]');
      if (!url || !token) return;
      fetch(url, {
        method: "POST", credentials: "same-origin", keepalive: true,
        headers: { "Content-Type": "application/json", "X-CSRFToken": token.value },
        body: JSON.stringify({ key: section.dataset.key, play: n }),
      }).then(function (response) {
        if (!response.ok && response.status >= 500 && tries > 1) setTimeout(function () { tellStart(n, tries - 1); }, 1000);
      }).catch(function () {
        if (tries > 1) setTimeout(function () { tellStart(n, tries - 1); }, 1000);
      });
    }

    section.dataset.problem = problem();
    if (earlier) write();
    refreshButton();
    // Started before this page (a reload), with no plays left and what this browser kept of it
    // not enough to answer: the server would refuse any answer, so say so and leave only Skip.
    if (exhausted() && problem()) unanswerable(section);
    if (ended && status) status.textContent = rules.replay && !exhausted() ? "You heard the speech. You may play it again." : "You heard the speech.";
  }

  function unanswerable(section) {
    const notice = section.querySelector("[data-unanswerable]");
    if (notice) notice.hidden = false;
    const form = section.closest("form");
    if (!form) return;
    form.classList.add("unanswerable");
    form.querySelectorAll("fieldset, textarea, button.primary").forEach(function (el) {
      if (!section.contains(el)) el.disabled = true;
    });
  }

  function readEarlier(text) {
    if (!text) return null;
    try {
      const report = JSON.parse(text);
      return report && Array.isArray(report.events) && report.events.length ? report : null;
    } catch (e) {
      return null;
    }
  }

  function stored(key) {
    try { return sessionStorage.getItem(key); } catch (e) { return null; }
  }

  // Reports of items answered or left: only the current item's is kept.
  function forgetOthers(key) {
    try {
      for (let i = sessionStorage.length - 1; i >= 0; i--) {
        const name = sessionStorage.key(i);
        if (name && name.indexOf("playback:") === 0 && name !== key) sessionStorage.removeItem(name);
      }
    } catch (e) { /* storage off */ }
  }

  function setUpAll() {
    document.querySelectorAll("[data-player]").forEach(setUp);
  }

  // A player whose item left the page stops playing.
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "task-area") {
      event.detail.target.querySelectorAll("audio").forEach(function (a) { a.pause(); });
    }
  });
  document.addEventListener("htmx:afterSwap", setUpAll);
  document.addEventListener("DOMContentLoaded", setUpAll);
  if (document.readyState !== "loading") setUpAll();

  // "p" plays (and pauses where allowed) unless the worker is typing.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "p" || event.ctrlKey || event.metaKey || event.altKey) return;
    const el = document.activeElement;
    if (el && (el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && !["radio", "checkbox", "button", "submit", "hidden"].includes(el.type)))) return;
    const section = document.querySelector("#task-form [data-player]");
    if (!section) return;
    event.preventDefault();
    section.dispatchEvent(new CustomEvent("player:toggle"));
  });
})();
