// On a narrow screen (a phone), what is wider than the column scrolls sideways inside its
// own box: a table (mdBook's .table-wrapper), a code or output block, a figure shown at
// the size its text was drawn for. Each such box gets a visible cue above it, so that the
// reader knows there is more to the right; a box that fits has none. Figures also open
// alone, full size, on a tap. book/layout.py checks that every box that scrolls has its cue.
(function () {
  "use strict";
  const CUE = "\u2194 wider than the screen: scroll sideways";

  // Each SVG figure in a box of its own that may scroll, inside a link to the file. A
  // chart with a phone variant is a <picture>: the box holds the picture, and the link
  // opens the variant the screen shows.
  function wrapFigures() {
    document.querySelectorAll('main img[src$=".svg"]').forEach(function (img) {
      if (img.closest(".figure-scroll")) return;
      const el = img.closest("picture") || img;
      const source = el === img ? null : el.querySelector("source[media]");
      const shown = source && window.matchMedia(source.media).matches
        ? source.getAttribute("srcset") : img.getAttribute("src");
      const box = document.createElement("div");
      box.className = "figure-scroll";
      const a = document.createElement("a");
      a.href = shown;
      a.title = "the figure alone, full size";
      el.replaceWith(box);
      box.appendChild(a);
      a.appendChild(el);
    });
  }

  // A long name in code text (an Nsight Compute metric, a test's name, a CUDA function)
  // may end a line only between its words: a break opportunity after each run of `_`,
  // after `::` and before a capital that follows a small letter (camelCase), never inside
  // a word (main's overflow-wrap would otherwise cut it anywhere).
  function breakLongNames() {
    document.querySelectorAll("main code").forEach(function (code) {
      if (code.closest("pre") || code.textContent.length < 12) return;
      const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
      const nodes = [];
      for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
      nodes.forEach(function (n) {
        const parts = n.data.split(/(?<=_+(?!_)|::|[a-z](?=[A-Z]))/);
        if (parts.length < 2) return;
        const frag = document.createDocumentFragment();
        parts.forEach(function (p, i) {
          if (i > 0) frag.appendChild(document.createElement("wbr"));
          frag.appendChild(document.createTextNode(p));
        });
        n.replaceWith(frag);
      });
    });
  }

  // Marks every box that scrolls (class `scrolls`) and puts the cue before it.
  function mark() {
    const main = document.querySelector("main");
    if (!main) return;
    main.querySelectorAll("pre > code, .table-wrapper, .figure-scroll").forEach(function (box) {
      const scrolls = box.clientWidth > 0 && box.scrollWidth > box.clientWidth + 1;
      const host = box.matches("pre > code") ? box.parentElement : box;
      const before = host.previousElementSibling;
      const has = before !== null && before.classList.contains("scroll-cue");
      if (scrolls && !has) {
        const cue = document.createElement("div");
        cue.className = "scroll-cue";
        cue.textContent = CUE;
        host.before(cue);
      } else if (!scrolls && has) {
        before.remove();
      }
      box.classList.toggle("scrolls", scrolls);
    });
  }
  window.markScrollCues = mark;

  document.addEventListener("DOMContentLoaded", function () {
    wrapFigures();
    breakLongNames();
    mark();
  });
  window.addEventListener("load", mark);
  window.addEventListener("resize", mark);
  // A folded solution has no width until it is opened.
  document.addEventListener("toggle", mark, true);
})();
