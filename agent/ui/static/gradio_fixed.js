// Gradio 6 writes some of its components' words as fixed English, with no message key its locale could change:
// the players' "Adjust volume" and "Skip forward by 5 seconds", the recorder's "Record audio", the upload's
// "Click to upload or drop files", the tables' "Copy table data" and "Fullscreen", the status "processing |", …
// While the interface is in Chinese (Gradio's locale, which the app's switch sets, is written to <html lang>),
// this swaps them for Chinese where a person or a screen reader meets them (aria-label, title, and a text node
// of Gradio's own controls), as Gradio draws them; on a switch back to English, Gradio's English is put back.
// The pairs are data: messages/ui.yaml `gradio_fixed` (`en` as Gradio writes it, its {fields} the parts Gradio
// fills in), handed to the page by agent/ui/assets.py as `window.coachGradioFixed`.
// A player holding audio is not mounted again on a switch (agent/ui/app.py remounted: it would load its audio
// anew), so the few of Gradio's own messages it shows ("Download", "Play", …: messages/ui.yaml `gradio_player`,
// `window.coachGradioPlayer`) are put in the new language here, both ways, when the locale changes.
(() => {
  if (window.coachGradioFixedRules) return; // the page's head ran this once already
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const rules = (window.coachGradioFixed || []).map(([en, zh]) => {
    const names = [];
    const source = en.split(/\{(\w+)\}/).map((part, i) => (i % 2 ? (names.push(part), "(.+?)") : escape(part)));
    return { re: new RegExp("^" + source.join("") + "$"), names, zh };
  });
  window.coachGradioFixedRules = rules;

  // The Chinese for one of Gradio's fixed texts (its spaces around kept), or null when it is none of them.
  const chinese = (text) => {
    const core = text.trim();
    if (!core) return null;
    for (const r of rules) {
      const m = r.re.exec(core);
      if (m) return text.replace(core, r.zh.replace(/\{(\w+)\}/g, (_, name) => m[1 + r.names.indexOf(name)]));
    }
    return null;
  };

  const ATTRS = ["aria-label", "title"];
  // Text written by people (the app's Markdown and HTML, answers, tables' cells, the JSON view) is never swapped:
  // only the words of Gradio's own controls are.
  const CONTENT = ".prose, .md, .json-holder, textarea, input, pre, code, td, th, option, [contenteditable]";
  const swapped = new Map(); // node -> Map(attribute name or "#text" -> [English, Chinese])

  const remember = (node, where, en, zh) => {
    if (!swapped.has(node)) {
      if (swapped.size > 5000) for (const n of swapped.keys()) if (!n.isConnected) swapped.delete(n);
      swapped.set(node, new Map());
    }
    swapped.get(node).set(where, [en, zh]);
  };

  const swap = (node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const parent = node.parentElement;
      if (!parent || parent.closest(CONTENT)) return;
      const zh = chinese(node.data);
      if (zh !== null) {
        remember(node, "#text", node.data, zh);
        node.data = zh;
      }
    } else if (node.nodeType === Node.ELEMENT_NODE) {
      for (const name of ATTRS) {
        const value = node.getAttribute(name);
        const zh = value ? chinese(value) : null;
        if (zh !== null) {
          remember(node, name, value, zh);
          node.setAttribute(name, zh);
        }
      }
    }
  };

  const swapTree = (root) => {
    swap(root);
    if (root.nodeType !== Node.ELEMENT_NODE) return;
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    while (walk.nextNode()) swap(walk.currentNode);
  };

  // Gradio's English back where the Chinese put here is still shown (what Gradio drew since stays as it is).
  const restore = () => {
    for (const [node, saved] of swapped) {
      for (const [where, [en, zh]] of saved) {
        if (where === "#text") {
          if (node.data === zh) node.data = en;
        } else if (node.getAttribute(where) === zh) {
          node.setAttribute(where, en);
        }
      }
    }
    swapped.clear();
  };

  const observer = new MutationObserver((records) => {
    for (const m of records) {
      if (m.type === "childList") m.addedNodes.forEach(swapTree);
      else swap(m.target);
    }
  });

  // The players holding audio: Gradio's messages they show, from the other language into `zh` or English.
  const PLAYERS = ".block:has(audio)";
  const playerWords = (toZh) => new Map((window.coachGradioPlayer || []).map(([en, zh]) => (toZh ? [en, zh] : [zh, en])));
  const translatePlayers = (toZh) => {
    const words = playerWords(toZh);
    for (const block of document.querySelectorAll(PLAYERS)) {
      const walk = document.createTreeWalker(block, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
      for (let node = block; node; node = walk.nextNode()) {
        if (node.nodeType === Node.TEXT_NODE) {
          const word = node.data.trim();
          if (words.has(word) && !node.parentElement?.closest(CONTENT)) node.data = node.data.replace(word, words.get(word));
        } else {
          for (const name of ATTRS) {
            const value = node.getAttribute(name);
            if (value !== null && words.has(value)) node.setAttribute(name, words.get(value));
          }
        }
      }
    }
  };

  let on = false;
  const follow = () => {
    const zh = /^zh\b/i.test(document.documentElement.lang || "");
    if (zh === on || !document.body) return;
    on = zh;
    translatePlayers(zh);
    if (zh) {
      swapTree(document.body);
      observer.observe(document.body, {
        subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ATTRS,
      });
    } else {
      observer.disconnect();
      restore();
    }
  };
  new MutationObserver(follow).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
  if (document.body) follow();
  else document.addEventListener("DOMContentLoaded", follow);
})();
