// Listening mode: a player that follows the project's rules (play once, no pause, no seeking,
// to the end, unless the project allows them), reports play, pause, seek and ended events with
// the fraction heard in the hidden "playback" field, and tells the form when it may be sent.
// The server checks the same rules on the report. Loaded as a file (htmx runs with allowEval off).
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
    };
    const shown = performance.now();
    const events = [];
    let ended = false;
    let lastTime = 0;
    // Set while the player puts the position back after a seek the project does not allow: the
    // "seeking" event that this causes comes later and is not the worker's.
    let restoring = false;
    // Re-shown after the server refused another field: the speech was heard, keep its report.
    const earlier = readEarlier(field.value);
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
      section.dataset.problem = problem();
      // A problem the worker has now solved stops being shown.
      if (section.classList.contains("invalid") && !section.dataset.problem) {
        section.classList.remove("invalid");
        const out = section.querySelector("[data-error]");
        if (out) out.hidden = true;
      }
    }

    function refreshButton() {
      if (audio.paused) {
        const again = ended;
        button.disabled = again && !rules.replay;
        button.textContent = again ? (rules.replay ? "▶ Play again" : "Played") : (events.length ? "▶ Resume" : "▶ Play the speech");
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
        if (ended && !rules.replay) return;
        audio.play().catch(function () {
          if (status) status.textContent = "The browser did not start the audio: press play again.";
        });
      } else if (rules.pause) {
        audio.pause();
      }
    });
    section.addEventListener("player:toggle", function () { if (!button.disabled) button.click(); });

    audio.addEventListener("play", function () { record("play"); refreshButton(); });
    audio.addEventListener("pause", function () {
      // The browser pauses as the audio ends: that is the end, not the worker's pause.
      if (!audio.ended) record("pause");
      refreshButton();
    });
    audio.addEventListener("ended", function () {
      ended = true;
      record("ended");
      refreshButton();
      if (status) status.textContent = rules.replay ? "The speech ended. You may play it again." : "The speech ended.";
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
    section.dataset.problem = problem();
    if (earlier) write();
    refreshButton();
    if (ended && status) status.textContent = rules.replay ? "You heard the speech. You may play it again." : "You heard the speech.";
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
