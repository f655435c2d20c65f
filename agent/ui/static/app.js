// The round clock runs in the browser: each timer the server renders carries the seconds elapsed
// when it was rendered; from then on the page counts on its own (no event per second, no race).
setInterval(() => {
  const fmt = (s) => String(Math.floor(s / 60)).padStart(2, "0") + ":" + String(s % 60).padStart(2, "0");
  document.querySelectorAll(".coach-timer[data-elapsed]").forEach((el) => {
    // Gradio re-renders the same element with a new data-elapsed (and data-shown, which differs between renders
    // even when the elapsed time is the same: two sessions both at 00:00): each new render counts from its value.
    const from = el.dataset.elapsed + "|" + (el.dataset.shown || "");
    if (el.dataset.from !== from) {
      el.dataset.from = from;
      el.dataset.seen = String(Date.now());
    }
    const s = Math.max(0, Math.floor(parseFloat(el.dataset.elapsed) + (Date.now() - Number(el.dataset.seen)) / 1000));
    const budget = parseInt(el.dataset.budget || "0", 10);
    const over = budget > 0 && s > budget;
    el.textContent = fmt(s) + (budget ? " / " + fmt(budget) : "") + (over ? " · " + el.dataset.over : "");
    const box = el.closest(".coach-progress");
    if (box) {
      box.classList.toggle("over", over);
      const bar = box.querySelector(".coach-clock");
      if (bar && budget) bar.value = Math.min(s, budget);
    }
  });
}, 1000);

// Ctrl+Enter (⌘+Enter on a Mac) in an answer box sends it: Practice's Send, Co-pilot's Save answer.
document.addEventListener("keydown", (e) => {
  if (e.key !== "Enter" || !(e.ctrlKey || e.metaKey) || e.isComposing) return;
  const box = e.target instanceof Element ? e.target.closest("#answer, #copilot-answer") : null;
  if (!box) return;
  const button = document.querySelector(box.id === "answer" ? "#send" : "#copilot-record");
  const target = button && (button.tagName === "BUTTON" ? button : button.querySelector("button"));
  if (target && !target.disabled) {
    e.preventDefault();
    target.click();
  }
});

// Gradio's own strings (the microphone's "Record", "Drop File Here", "Click to Upload", …) come from its
// frontend's locale (svelte-i18n), which Gradio takes from the browser's language when the page loads.
// The app's language switch sets that locale with `changeLocale`, the function Gradio's own Settings
// panel calls, on the very module instance the page runs (its bundle is found among the page's modules).
// Resolves true when the locale changed (the app then mounts again the components that show such strings,
// which render them once), false when it already was the one asked for or cannot be set.
window.coachGradioLocale = async (lang) => {
  const want = lang === "zh" ? "zh-CN" : "en";
  const html = document.documentElement;
  if (html.lang === want) return false;
  const urls = [...document.querySelectorAll("link[rel=modulepreload], script[type=module][src]")]
    .map((el) => el.href || el.src)
    .concat(performance.getEntriesByType("resource").map((e) => e.name));
  const url = urls.find((u) => /\/assets\/core-[^/?#]*\.js([?#]|$)/.test(u));
  let core = null;
  try {
    core = url ? await import(url) : null;
  } catch (err) {
    console.warn("interview coach: Gradio's locale module did not load", err);
  }
  if (!core || typeof core.changeLocale !== "function") {
    console.warn("interview coach: Gradio's changeLocale was not found; its own strings keep the browser's language");
    return false;
  }
  core.changeLocale(want);
  // the locale is set once its messages are loaded; Gradio then writes it to <html lang>
  for (let i = 0; i < 200 && html.lang !== want; i++) await new Promise((r) => setTimeout(r, 25));
  if (html.lang === want) window.coachQuietUntil = Date.now() + 10000;
  return html.lang === want;
};

// A player holding audio is no longer mounted again on a switch (agent/ui/app.py remounted); this stays as a
// guard for one that is: the question's player plays on its own when it is mounted with a value (its audio
// element is made with `autoplay`, then told to play), and would read the question again. For a while after the switch (until the person clicks or types, at most 10 s) an audio
// element made then does not play on its own; it plays when asked to, and the next question's speech plays
// on its own as before.
window.coachQuietUntil = 0;
const coachQuiet = () => Date.now() < window.coachQuietUntil;
const coachPlay = HTMLMediaElement.prototype.play;
HTMLMediaElement.prototype.play = function (...args) {
  return coachQuiet() ? Promise.resolve() : coachPlay.apply(this, args);
};
const coachAutoplay = Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, "autoplay");
Object.defineProperty(HTMLMediaElement.prototype, "autoplay", {
  ...coachAutoplay,
  set(on) {
    coachAutoplay.set.call(this, Boolean(on) && !coachQuiet());
  },
});
for (const type of ["pointerdown", "keydown"]) {
  document.addEventListener(type, (e) => {
    if (!e.target.closest || !e.target.closest("#ui-language")) window.coachQuietUntil = 0;
  }, true);
}

// On a narrow screen (a phone) Practice is one long column: after Start, Resume, Send, Finish or Continue,
// what comes next (the round-finished banner when it shows, else the question under the round's progress and
// clock) is scrolled into view when it is off the screen, so the new question is read at once (Send is
// pressed far below it). A question already shown (an answer refused) leaves the page where it is.
// On a wide screen (a desktop) only the round-finished banner is: it appears at the top of the tab, above
// the answer box the candidate wrote in, and was missed there (issue 12); the question stays beside its box.
window.coachShowNext = async () => {
  const phone = window.matchMedia("(max-width: 640px)").matches;
  const shown = (el) => el && el.offsetParent !== null && el.innerText.trim() !== "";
  for (let i = 0; i < 40; i++) { // the event's outputs are drawn within a moment: up to 2 s
    const banner = document.querySelector("#round-scores");
    const target = shown(banner) ? banner : phone ? document.querySelector("#practice-question") : null;
    if (shown(target)) {
      const text = target.innerText.trim();
      const key = target.id + ":" + text.slice(text.search(/[:：]/) + 1).trim(); // the question, not its label
      if (key !== window.coachShownNext) {
        window.coachShownNext = key;
        const r = target.getBoundingClientRect();
        const progress = document.querySelector("#practice-progress");
        const top = target !== banner && shown(progress) ? progress : target;
        if (r.top < -1 || r.bottom > window.innerHeight + 1) top.scrollIntoView({ block: "start", behavior: "smooth" });
        return;
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
};

// Report tables (Markdown in `.coach-md`) on a phone are one box per row and their head is hidden
// (static/app.css): each cell carries its column's name (`data-label`, shown before it there), so a round's
// row reads "Accuracy 5 · Evidence 4 · … Total 21/25" instead of bare numbers. A table of more than four
// columns (the report's round table: round, five dimensions, total, flags) is marked `coach-wide`: on a phone
// its cells after the first sit side by side; on a desktop it scrolls sideways within its box when it must.
const coachLabelTables = () => {
  document.querySelectorAll(".coach-md table").forEach((table) => {
    const heads = Array.from(table.querySelectorAll("thead th")).map((th) => th.textContent.trim());
    if (!heads.length) return;
    table.classList.toggle("coach-wide", heads.length > 4);
    table.querySelectorAll("tbody tr").forEach((tr) => {
      Array.from(tr.children).forEach((td, i) => {
        const label = heads[i] || "";
        if (td.dataset.label !== label) td.dataset.label = label;
      });
    });
  });
};
new MutationObserver(() => requestAnimationFrame(coachLabelTables)).observe(document.documentElement, {
  childList: true,
  subtree: true,
});

// Review's session picked, its whole name beside the box's one-line input (shown on a phone, where the
// name wraps in the box: static/app.css `coach-picked`); Gradio sets the input's value without an event.
setInterval(() => {
  const input = document.querySelector("#review-sessions input");
  if (!input || !input.parentElement) return;
  let picked = input.parentElement.querySelector(".coach-picked");
  if (!picked) {
    picked = document.createElement("span");
    picked.className = "coach-picked";
    picked.setAttribute("aria-hidden", "true");
    input.after(picked);
  }
  if (picked.textContent !== input.value) picked.textContent = input.value;
}, 300);

// Practice's answer typed and not yet sent is kept in this browser's storage under its session's id (the
// session itself survives a reload: agent/ui/tabs/practice/tab.py `p_saved`); when that session is on screen
// again (a reload, Resume) with an empty answer box, the draft goes back into it. The box as the session's
// events leave it is kept: emptied by Send (the answer taken), Finish or another session, the draft goes.
// A session's id is read once it stayed the same for two looks, so all of its event's outputs have landed.
(() => {
  const key = (sid) => "interview-coach-draft:" + sid;
  let seen = "", steady = 0, restored = "", written = null;
  const keep = (box, sid) => {
    if (box.value === written) return;
    written = box.value;
    if (box.value) localStorage.setItem(key(sid), box.value);
    else localStorage.removeItem(key(sid));
  };
  // each key typed is kept at once (a reload may follow it within a moment)
  document.addEventListener("input", (e) => {
    const box = e.target;
    const id = document.querySelector("#practice-sid :is(input, textarea)");
    if (!(box instanceof HTMLTextAreaElement) || !box.closest("#answer") || !id) return;
    if (id.value.trim() && restored === id.value.trim()) keep(box, restored);
  }, true);
  setInterval(() => {
    const box = document.querySelector("#answer textarea");
    const id = document.querySelector("#practice-sid :is(input, textarea)");
    if (!box || !id) return;
    const sid = id.value.trim();
    if (sid !== seen) {
      seen = sid;
      steady = 0;
      return;
    }
    if (!sid) return;
    if (restored !== sid) {
      if (++steady < 2) return;
      restored = sid;
      written = null;
      const draft = localStorage.getItem(key(sid));
      if (draft && !box.value && !box.disabled) {
        box.value = draft;
        box.dispatchEvent(new Event("input", { bubbles: true }));
      }
      return;
    }
    keep(box, sid);
  }, 300);
})();
