// The round clock runs in the browser: each timer the server renders carries the seconds elapsed
// when it was rendered; from then on the page counts on its own (no event per second, no race).
setInterval(() => {
  const fmt = (s) => String(Math.floor(s / 60)).padStart(2, "0") + ":" + String(s % 60).padStart(2, "0");
  document.querySelectorAll(".coach-timer[data-elapsed]").forEach((el) => {
    if (!el.dataset.seen) el.dataset.seen = String(Date.now());
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

// Ctrl+Enter (⌘+Enter on a Mac) in an answer box sends it: Practice's Send, Co-pilot's Record answer.
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
