#!/usr/bin/env python3
"""Renders every page of the built book in headless Chromium and lists what overflows.

For each HTML page of the built book (`mdbook build book` writes book/book), a copy with a
measuring script is loaded at a given width (1280 px by default) and the script reports,
inside the page's main column, every code or output block, table or image whose content
is wider than its box or whose box passes the column's right edge, by how many pixels.
The report goes to stdout, one line per element; the exit status is 1 when anything
overflows, 0 when nothing does, 2 when it cannot run (no Chromium, no built book).

Each SVG figure is also laid out at the size the page shows it, and its text is checked:
no text outside the figure's edge (clipped), no two texts overlapping (rotated labels
included, by their rotated boxes), none shown smaller than --min-font px. For each figure
the report gives the share of its width visible at once (its box, or the column, against
the width it is shown at), and a figure under --min-visible (MIN_VISIBLE, 95 %) fails,
but for the emulator's traces (WIDE_FIGURES).

`.ci/run` runs it after `mdbook build book`: a page that does not fit fails CI.

Needs Chromium (Debian: `apt-get install chromium`).
"""

import argparse
import glob
import html
import json
import os
import shutil
import subprocess
import sys
import tempfile

MEASURE = """
// The corners of an SVG text's box on the page (its transform included: rotated labels).
function corners(svg, t) {
  const b = t.getBBox(), m = t.getScreenCTM();
  return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
    .map(([x, y]) => { const p = svg.createSVGPoint(); p.x = x; p.y = y; const q = p.matrixTransform(m); return [q.x, q.y]; });
}
// How deep two convex quadrilaterals overlap (separating axes; 0 when apart).
function overlap(a, b) {
  let depth = Infinity;
  for (const poly of [a, b]) {
    for (let i = 0; i < 4; i++) {
      const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4];
      let nx = y1 - y2, ny = x2 - x1; const len = Math.hypot(nx, ny) || 1; nx /= len; ny /= len;
      const pa = a.map(([x, y]) => x * nx + y * ny), pb = b.map(([x, y]) => x * nx + y * ny);
      const d = Math.min(Math.max(...pa), Math.max(...pb)) - Math.max(Math.min(...pa), Math.min(...pb));
      if (d <= 0) return 0;
      depth = Math.min(depth, d);
    }
  }
  return depth;
}
// The text of one SVG figure, laid out at the size the page shows it: what is clipped by
// the figure's edge, what overlaps other text, and what is smaller than MIN_FONT px.
function figure(img, out, column) {
  const xhr = new XMLHttpRequest();
  // A chart with a phone variant is a <picture>: the file the screen shows is measured.
  const src = img.currentSrc || img.src;
  xhr.open('GET', src, false);
  xhr.send();
  const svg = document.importNode(new DOMParser().parseFromString(xhr.responseText, 'image/svg+xml').documentElement, true);
  const vb = svg.viewBox.baseVal;
  // A figure not drawn yet (inside a closed <details>, or lazily loaded below the fold)
  // has no box: measure it at the width the page's CSS will give it, its own width where
  // nothing caps it (a phone's figure box scrolls), else at most its container's.
  const natural = parseFloat(svg.getAttribute('width')) || vb.width;
  let shown = img.getBoundingClientRect().width;
  if (!shown) {
    const box = img.closest('.figure-scroll') || img.parentElement;
    shown = getComputedStyle(img).maxWidth === 'none' ? natural : Math.min(natural, (box && box.clientWidth) || column);
  }
  const holder = document.createElement('div');
  holder.style.cssText = 'position:absolute;left:0;top:0;width:' + shown + 'px';
  svg.setAttribute('width', shown);
  svg.setAttribute('height', shown * vb.height / vb.width);
  holder.appendChild(svg);
  document.body.appendChild(holder);
  const scale = shown / vb.width, edge = svg.getBoundingClientRect();
  const name = src.split('/').pop();
  // How much of the figure's width shows at once: the box it scrolls in (or the column)
  // against the width it is shown at.
  const box = img.closest('.figure-scroll') || img.parentElement;
  const visible = Math.min(shown, (box && box.clientWidth) || column, column);
  FIGURES.push({name: name, shown: Math.round(shown), visible: Math.round(visible),
                fraction: Math.min(1, visible / shown)});
  const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim())
    .map(t => ({t, c: corners(svg, t), size: parseFloat(getComputedStyle(t).fontSize) * scale, s: t.textContent.trim().slice(0, 40)}));
  for (const x of texts) {
    const out_by = Math.max(...x.c.map(([px, py]) => Math.max(edge.left - px, px - edge.right, edge.top - py, py - edge.bottom)));
    if (out_by > 1) out.push({tag: 'svg', kind: 'clipped', over: Math.round(out_by), text: name + ': ' + x.s});
    if (x.size < MIN_FONT) out.push({tag: 'svg', kind: 'small text', over: Math.round(x.size * 10) / 10, text: name + ': ' + x.s});
  }
  for (let i = 0; i < texts.length; i++)
    for (let j = i + 1; j < texts.length; j++) {
      const d = overlap(texts[i].c, texts[j].c);
      if (d > 1) out.push({tag: 'svg', kind: 'overlap', over: Math.round(d), text: name + ': ' + texts[i].s + ' / ' + texts[j].s});
    }
  holder.remove();
}
// The text nodes under `el` with their offsets in el.textContent, and a function that
// turns an offset into (node, offset in it).
function locator(el) {
  const nodes = [], w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let at = 0;
  for (let n = w.nextNode(); n; n = w.nextNode()) { nodes.push([n, at]); at += n.data.length; }
  return off => {
    for (let i = nodes.length - 1; i >= 0; i--) if (nodes[i][1] <= off) return [nodes[i][0], Math.min(off - nodes[i][1], nodes[i][0].data.length)];
    return null;
  };
}
// How many lines the text from offset a to b of `el` is drawn on (0: not drawn).
function linesOf(el, at, a, b) {
  const s = at(a), e = at(b);
  if (!s || !e) return 0;
  const r = document.createRange();
  r.setStart(s[0], s[1]); r.setEnd(e[0], e[1]);
  const tops = new Set();
  for (const q of r.getClientRects()) if (q.width > 0 && q.height > 0) tops.add(Math.round(q.top));
  return tops.size;
}
// The box a wide element scrolls in, when it has the visible cue scroll-cue.js puts
// before it (a phone's layout); null otherwise.
function cuedBox(el, right) {
  const box = el.closest('.scrolls');
  if (!box || !['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) return null;
  if (box.getBoundingClientRect().right > right + 1) return null;
  const cue = (box.matches('pre > code') ? box.parentElement : box).previousElementSibling;
  if (!cue || !cue.classList.contains('scroll-cue') || !cue.textContent.trim()) return null;
  const c = cue.getBoundingClientRect();
  return c.height > 0 && c.width > 0 ? box : null;
}
const FIGURES = [];
window.addEventListener('load', () => {
  const main = document.querySelector('main');
  const out = [];
  const stats = {rust_lines: 0, rust_wrapped: 0, scrolling: 0, wrapped: []};
  if (main) {
    // Folded parts (a solution, an answer) are measured as they will be when opened.
    for (const d of main.querySelectorAll('details')) d.open = true;
    if (window.markScrollCues) window.markScrollCues();
    const right = main.getBoundingClientRect().right;
    const boxes = new Set();
    for (const el of main.querySelectorAll('pre, pre > code, table, img')) {
      const r = el.getBoundingClientRect();
      const over = Math.max(el.scrollWidth - el.clientWidth, r.right - right);
      if (over > 1) {
        const box = NARROW ? cuedBox(el, right) : null;
        if (box) { boxes.add(box); continue; }
        const first = (el.innerText || el.getAttribute('src') || '').split('\\n')[0];
        out.push({tag: el.tagName.toLowerCase(), kind: el.className || '', over: Math.round(over),
                  text: first.slice(0, 60)});
      }
    }
    stats.scrolling = boxes.size;
    for (const img of main.querySelectorAll('img')) {
      if ((img.getAttribute('src') || '').endsWith('.svg')) {
        try { figure(img, out, main.clientWidth); } catch (e) { out.push({tag: 'svg', kind: 'unreadable', over: 0, text: img.getAttribute('src') + ': ' + e}); }
      }
    }
    // No word of a name in code is broken across two lines (a long name may end a line
    // between its words: after a `_` or a `::`, or at a camelCase capital).
    for (const code of main.querySelectorAll('code')) {
      const text = code.textContent, at = locator(code);
      for (const m of text.matchAll(/[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])/g)) {
        if (linesOf(code, at, m.index, m.index + m[0].length) > 1)
          out.push({tag: 'code', kind: 'broken word', over: 0, text: m[0].slice(0, 60)});
      }
    }
    // How many lines of included Rust are drawn on more than one line.
    for (const code of main.querySelectorAll('pre > code.language-rust')) {
      const text = code.textContent, at = locator(code);
      let start = 0;
      for (const line of text.split('\\n')) {
        const lead = line.length - line.trimStart().length;
        if (line.trim()) {
          const n = linesOf(code, at, start + lead, start + line.length);
          if (n > 0) {
            stats.rust_lines += 1;
            if (n > 1) { stats.rust_wrapped += 1; stats.wrapped.push(line.trim().slice(0, 70)); }
          }
        }
        start += line.length + 1;
      }
    }
  }
  stats.figures = FIGURES;
  const report = JSON.stringify({found: out, stats: stats});
  // In a frame (a phone's width: see FRAME), the frame's page writes the report.
  if (window.parent !== window) { window.parent.postMessage(report, '*'); return; }
  const pre = document.createElement('pre');
  pre.id = 'layout-report';
  pre.textContent = report;
  document.body.appendChild(pre);
});
"""

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--allow-file-access-from-files", "--disable-sync", "--no-first-run",
                  "--disable-dev-shm-usage", "--virtual-time-budget=3000", "--dump-dom"]

#: The least share of a figure's width that shows at once, without scrolling sideways,
#: at any width: 0.95, so a figure shows whole (a few pixels of rounding aside). On a
#: phone the mechanism figures are drawn to be shown 335 px wide, and every chart has a
#: phone variant of that width (crates/figures, `NAME-phone.svg` in a <picture>).
MIN_VISIBLE = 0.95

#: Figures that may show less: the emulator's traces, a timeline of 640 px with a column
#: per warp step, as `--trace` draws them for a student too. They scroll in their box, with
#: the cue, and open alone on a tap; the report still gives their share.
WIDE_FIGURES = ("ch05-trace-5.3.svg", "ch09-trace-9.3.svg")

#: How many times a page that Chromium returned without the report is loaded.
ATTEMPTS = 3


#: Below this window width the book is laid out for a phone: what is wider than the column
#: may scroll in its box, with a visible cue (book/scroll-cue.js); at or above it nothing
#: may scroll.
NARROW_BELOW = 700


#: Headless Chromium keeps its window at least 500 px wide: a narrower width is measured
#: in a frame of that width (its media queries see the frame's width, as a phone's would),
#: whose page passes the report up to this one.
MIN_WINDOW = 500
FRAME = """<!DOCTYPE html><html><body style="margin:0">
<iframe src="%s" style="border:0;width:%dpx;height:900px"></iframe>
<script>window.addEventListener('message', e => { const pre = document.createElement('pre');
pre.id = 'layout-report'; pre.textContent = e.data; document.body.appendChild(pre); });</script>
</body></html>"""


def measure(chromium, page, width, min_font):
    """What one page shows wrong, and its statistics: {"found": [...], "stats": {...}}."""
    tmp = page[:-len(".html")] + f".layout-measure-{width}-{os.getpid()}.html"
    with open(page) as f:
        text = f.read()
    with open(tmp, "w") as f:
        f.write(text.replace("</body>", f"<script>const MIN_FONT = {min_font}; const NARROW = {'true' if width < NARROW_BELOW else 'false'};" + MEASURE + "</script></body>"))
    frame = None
    if width < MIN_WINDOW:
        frame = tmp[:-len(".html")] + "-frame.html"
        with open(frame, "w") as f:
            f.write(FRAME % (html.escape(os.path.basename(tmp)), width))
    try:
        # A headless Chromium now and then exits without the page (a renderer lost on a
        # loaded machine: seen once in CI, never here in hundreds of loads): the same page
        # is loaded again, and only a page that never reports is an error. Each load has
        # a profile of its own, so that no load waits on, or reads, another's.
        why = []
        for attempt in range(1, ATTEMPTS + 1):
            try:
                with tempfile.TemporaryDirectory(prefix="layout-chromium-") as profile:
                    p = subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                                        f"--window-size={max(width, MIN_WINDOW)},900", "file://" + (frame or tmp)],
                                       capture_output=True, text=True, timeout=90)
            except subprocess.TimeoutExpired:
                why.append(f"attempt {attempt}: no exit within 90 s")
                continue
            start = p.stdout.find('<pre id="layout-report">')
            if start >= 0:
                end = p.stdout.find("</pre>", start)
                return json.loads(html.unescape(p.stdout[start + len('<pre id="layout-report">'):end]))
            dumped = "a page without the report" if "</html>" in p.stdout else "no page"
            why.append(f"attempt {attempt}: exit {p.returncode}, {dumped}; "
                       f"stderr ends: {p.stderr.strip()[-300:]}")
            if attempt < ATTEMPTS:
                print(f"layout: {os.path.basename(page)}: no report from Chromium "
                      f"(attempt {attempt} of {ATTEMPTS}), loading it again", file=sys.stderr)
    finally:
        os.remove(tmp)
        if frame:
            os.remove(frame)
    raise RuntimeError(f"{page}: no report from Chromium in {ATTEMPTS} attempts:\n  " + "\n  ".join(why))


def screenshot(chromium, page, anchor, width, height, png):
    """A PNG of `page` at `width` x `height`, from the heading `anchor` (an id) on."""
    tmp = page[:-len(".html")] + ".layout-shot.html"
    with open(page) as f:
        text = f.read()
    # Headless Chromium paints nothing after scrolling to a fragment: the copy drops what
    # comes before the heading instead, so that the section starts the screenshot.
    scroll = ("<script>window.addEventListener('load', () => { const e = document.getElementById(%s);"
              " if (e) while (e.previousElementSibling) e.previousElementSibling.remove(); });</script></body>"
              % json.dumps(anchor))
    with open(tmp, "w") as f:
        f.write(text.replace("</body>", scroll))
    try:
        with tempfile.TemporaryDirectory(prefix="layout-chromium-") as profile:
            subprocess.run([chromium, *CHROMIUM_FLAGS[:-1], "--hide-scrollbars", f"--user-data-dir={profile}",
                            f"--window-size={width},{height}", "--screenshot=" + os.path.abspath(png),
                            "file://" + tmp],
                           capture_output=True, text=True, timeout=90, check=True)
    finally:
        os.remove(tmp)


SELF_TEST_SVG = """<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200" viewBox="0 0 400 200"
font-family="sans-serif"><text x="10" y="30" font-size="14">first label</text>
<text x="20" y="34" font-size="14">overlapping label</text>
<text x="380" y="100" font-size="14">clipped at the edge</text>
<text x="10" y="150" font-size="6">tiny</text>
<text x="200" y="190" font-size="14" text-anchor="end" transform="rotate(-35 200 190)">rotated</text></svg>"""
SELF_TEST_PAGE = """<!DOCTYPE html><html><body><main style="width:600px">
<pre><code>%s</code></pre><img src="figure.svg" style="max-width:100%%"></main></body></html>"""


#: A phone's page: a wide table in a scrolling box with no cue, a name broken across two
#: lines, and a Rust block of one short and one wrapped line.
SELF_TEST_NARROW = """<!DOCTYPE html><html><body><main style="width:360px">
<div class="table-wrapper scrolls" style="overflow-x:auto"><table><tr><td>%s</td></tr></table></div>
<p style="width:120px"><code style="overflow-wrap:anywhere">%s</code></p>
<pre><code class="language-rust" style="white-space:pre-wrap">fn short() {}
%s</code></pre></main></body></html>"""
CUE = '<div class="scroll-cue">scroll sideways</div>'


def self_test(chromium):
    """The measurement finds what it must: a page with a too-wide block and a figure with
    overlapping, clipped and tiny text must report each; the same page with a short line
    and without the figure must report nothing. On a phone, a table that scrolls with no
    cue and a name broken mid-word are reported, one of the two Rust lines is counted as
    wrapped, and the same page with the cue and a short name reports nothing."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "figure.svg"), "w") as f:
            f.write(SELF_TEST_SVG)
        bad, good = os.path.join(d, "bad.html"), os.path.join(d, "good.html")
        with open(bad, "w") as f:
            f.write(SELF_TEST_PAGE % ("x" * 200))
        with open(good, "w") as f:
            f.write(SELF_TEST_PAGE.replace('<img src="figure.svg" style="max-width:100%%">', "") % "short")
        narrow_bad, narrow_good = os.path.join(d, "narrow-bad.html"), os.path.join(d, "narrow-good.html")
        words = " ".join(["word"] * 40)
        with open(narrow_bad, "w") as f:
            f.write(SELF_TEST_NARROW % ("w" * 300, "averylongidentifiernamethatbreaks", "// " + words))
        with open(narrow_good, "w") as f:
            f.write((SELF_TEST_NARROW % ("w" * 300, "short", "fn also_short() {}"))
                    .replace('<div class="table-wrapper', CUE + '<div class="table-wrapper'))
        found = measure(chromium, bad, 1280, 10.0)["found"]
        kinds = sorted({r["kind"] for r in found if r["tag"] == "svg"})
        wide = [r for r in found if r["tag"] != "svg"]
        clean = measure(chromium, good, 1280, 10.0)["found"]
        nb = measure(chromium, narrow_bad, 390, 10.0)
        ng = measure(chromium, narrow_good, 390, 10.0)
    nb_kinds = sorted({r["tag"] + " " + r["kind"] for r in nb["found"]})
    want = ["clipped", "overlap", "small text"]
    want_nb = ["code broken word", "table "]
    ok = (kinds == want and wide and not clean and nb_kinds == want_nb
          and (nb["stats"]["rust_lines"], nb["stats"]["rust_wrapped"]) == (2, 1)
          and not ng["found"] and ng["stats"]["scrolling"] == 1 and ng["stats"]["rust_wrapped"] == 0)
    if not ok:
        print(f"layout: self-test failed: found {kinds} in the figure (want {want}), "
              f"{len(wide)} wide blocks (want some), {len(clean)} on the clean page (want 0); "
              f"on a phone {nb_kinds} (want {want_nb}), stats {nb['stats']} (want 1 of 2 Rust lines "
              f"wrapped), on the clean phone page {ng['found']} and {ng['stats']} (want nothing, "
              f"one box scrolling with its cue)", file=sys.stderr)
        return 1
    print("layout: self-test ok (a wide block, clipped, overlapping and tiny figure text are reported; "
          "on a phone a table scrolling without a cue and a broken name are reported, wrapped Rust "
          "lines are counted)", file=sys.stderr)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--book", default="book/book", help="the built book [default: book/book]")
    ap.add_argument("--width", type=int, default=1280, help="window width in px [default: 1280]")
    ap.add_argument("--min-font", type=float, default=10.0,
                    help="smallest figure text on the page, px [default: 10]")
    ap.add_argument("--min-visible", type=float, default=MIN_VISIBLE,
                    help="least share of a figure's width shown at once, without scrolling "
                         f"[default: {MIN_VISIBLE}]")
    ap.add_argument("--max-wrapped", type=float, default=5.0,
                    help="most included Rust lines that may wrap, %% of them [default: 5]")
    ap.add_argument("--list-wrapped", action="store_true",
                    help="list every included Rust line that wraps")
    ap.add_argument("--chromium", default="chromium", help="the Chromium executable [default: chromium]")
    ap.add_argument("--screenshot", action="append", default=[], metavar="PAGE#ID=PNG",
                    help="also write a PNG of PAGE (relative to --book) from the heading ID on, "
                         "1400 px tall (repeatable)")
    ap.add_argument("--self-test", action="store_true",
                    help="check that the measurement reports a known bad page, then exit")
    args = ap.parse_args()
    chromium = shutil.which(args.chromium)
    if not chromium:
        print(f"layout: {args.chromium} not found (Debian: apt-get install chromium)", file=sys.stderr)
        return 2
    if args.self_test:
        return self_test(chromium)
    pages = sorted(p for p in glob.glob(os.path.join(args.book, "**", "*.html"), recursive=True)
                   if os.path.basename(p) not in ("print.html", "404.html", "toc.html"))
    if not pages:
        print(f"layout: no pages under {args.book} (run `mdbook build book`)", file=sys.stderr)
        return 2
    total, lines, wrapped, scrolling = 0, 0, 0, 0
    figures = {}
    for page in pages:
        seen = []
        where = os.path.relpath(page, args.book)
        report = measure(chromium, os.path.abspath(page), args.width, args.min_font)
        stats = report["stats"]
        lines, wrapped, scrolling = lines + stats["rust_lines"], wrapped + stats["rust_wrapped"], scrolling + stats["scrolling"]
        for fig in stats.get("figures", []):
            share = fig["fraction"]
            figures.setdefault(fig["name"], []).append((where, share, fig["shown"], fig["visible"]))
            if share < args.min_visible and fig["name"] not in WIDE_FIGURES:
                total += 1
                print(f"{where}: figure {fig['name']} shows {100 * share:.0f} % of its width at once "
                      f"({fig['visible']} of {fig['shown']} px; at least {100 * args.min_visible:.0f} %)")
        if args.list_wrapped:
            for line in stats["wrapped"]:
                print(f"{where}: wraps: {line}")
        for r in report["found"]:
            if r in seen:
                continue
            seen.append(r)
            total += 1
            if r['kind'] == 'broken word':
                print(f"{where}: a name in code is broken across two lines: {r['text']}")
            elif r['tag'] != 'svg':
                print(f"{where}: {r['tag']} {r['kind']} {r['over']} px too wide: {r['text']}")
            elif r['kind'] == 'small text':
                print(f"{where}: figure text shown at {r['over']} px (< {args.min_font}): {r['text']}")
            else:
                print(f"{where}: figure text {r['kind']} by {r['over']} px: {r['text']}")
    for name, seen_at in sorted(figures.items()):
        least = min(seen_at, key=lambda s: s[1])
        print(f"layout: figure {name}: {100 * least[1]:.0f} % of its width visible at once "
              f"({least[3]} of {least[2]} px, {least[0]})"
              + (" (a trace: may scroll)" if name in WIDE_FIGURES else ""), file=sys.stderr)
    share = 100.0 * wrapped / lines if lines else 0.0
    print(f"layout: {total} overflowing or broken elements on {len(pages)} pages at {args.width} px; "
          f"{scrolling} boxes scroll sideways, each with its cue; {wrapped} of {lines} included Rust "
          f"lines wrap ({share:.1f} %, at most {args.max_wrapped:g} %)", file=sys.stderr)
    if share > args.max_wrapped:
        total += 1
        print(f"layout: {share:.1f} % of the included Rust lines wrap (--list-wrapped names them)")
    for shot in args.screenshot:
        target, _, png = shot.partition("=")
        page, _, anchor = target.partition("#")
        screenshot(chromium, os.path.abspath(os.path.join(args.book, page)), anchor, args.width, 1400, png)
        print(f"layout: wrote {png}", file=sys.stderr)
    return 1 if total else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as e:
        print(f"layout: {e}", file=sys.stderr)
        sys.exit(2)
