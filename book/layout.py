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
included, by their rotated boxes), none shown smaller than --min-font px.

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
  xhr.open('GET', img.src, false);
  xhr.send();
  const svg = document.importNode(new DOMParser().parseFromString(xhr.responseText, 'image/svg+xml').documentElement, true);
  const vb = svg.viewBox.baseVal;
  // A figure inside a closed <details> has no box yet: measure it as it will open.
  const shown = img.getBoundingClientRect().width || Math.min(vb.width, column);
  const holder = document.createElement('div');
  holder.style.cssText = 'position:absolute;left:0;top:0;width:' + shown + 'px';
  svg.setAttribute('width', shown);
  svg.setAttribute('height', shown * vb.height / vb.width);
  holder.appendChild(svg);
  document.body.appendChild(holder);
  const scale = shown / vb.width, edge = svg.getBoundingClientRect();
  const name = img.getAttribute('src');
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
window.addEventListener('load', () => {
  const main = document.querySelector('main');
  const out = [];
  if (main) {
    const right = main.getBoundingClientRect().right;
    for (const el of main.querySelectorAll('pre, pre > code, table, img')) {
      const r = el.getBoundingClientRect();
      const over = Math.max(el.scrollWidth - el.clientWidth, r.right - right);
      if (over > 1) {
        const first = (el.innerText || el.getAttribute('src') || '').split('\\n')[0];
        out.push({tag: el.tagName.toLowerCase(), kind: el.className || '', over: Math.round(over),
                  text: first.slice(0, 60)});
      }
    }
    for (const img of main.querySelectorAll('img')) {
      if ((img.getAttribute('src') || '').endsWith('.svg')) {
        try { figure(img, out, main.clientWidth); } catch (e) { out.push({tag: 'svg', kind: 'unreadable', over: 0, text: img.getAttribute('src') + ': ' + e}); }
      }
    }
  }
  const pre = document.createElement('pre');
  pre.id = 'layout-report';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
"""

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--allow-file-access-from-files", "--disable-sync", "--no-first-run",
                  "--disable-dev-shm-usage", "--virtual-time-budget=3000", "--dump-dom"]

#: How many times a page that Chromium returned without the report is loaded.
ATTEMPTS = 3


def measure(chromium, page, width, min_font):
    """The overflowing elements of one page."""
    tmp = page[:-len(".html")] + ".layout-measure.html"
    with open(page) as f:
        text = f.read()
    with open(tmp, "w") as f:
        f.write(text.replace("</body>", f"<script>const MIN_FONT = {min_font};" + MEASURE + "</script></body>"))
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
                                        f"--window-size={width},900", "file://" + tmp],
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


def self_test(chromium):
    """The measurement finds what it must: a page with a too-wide block and a figure with
    overlapping, clipped and tiny text must report each; the same page with a short line
    and without the figure must report nothing."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "figure.svg"), "w") as f:
            f.write(SELF_TEST_SVG)
        bad, good = os.path.join(d, "bad.html"), os.path.join(d, "good.html")
        with open(bad, "w") as f:
            f.write(SELF_TEST_PAGE % ("x" * 200))
        with open(good, "w") as f:
            f.write(SELF_TEST_PAGE.replace('<img src="figure.svg" style="max-width:100%%">', "") % "short")
        found = measure(chromium, bad, 1280, 10.0)
        kinds = sorted({r["kind"] for r in found if r["tag"] == "svg"})
        wide = [r for r in found if r["tag"] != "svg"]
        clean = measure(chromium, good, 1280, 10.0)
    want = ["clipped", "overlap", "small text"]
    if kinds != want or not wide or clean:
        print(f"layout: self-test failed: found {kinds} in the figure (want {want}), "
              f"{len(wide)} wide blocks (want some), {len(clean)} on the clean page (want 0)", file=sys.stderr)
        return 1
    print("layout: self-test ok (a wide block, clipped, overlapping and tiny figure text are reported)",
          file=sys.stderr)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--book", default="book/book", help="the built book [default: book/book]")
    ap.add_argument("--width", type=int, default=1280, help="window width in px [default: 1280]")
    ap.add_argument("--min-font", type=float, default=10.0,
                    help="smallest figure text on the page, px [default: 10]")
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
    total = 0
    for page in pages:
        seen = []
        for r in measure(chromium, os.path.abspath(page), args.width, args.min_font):
            if r in seen:
                continue
            seen.append(r)
            total += 1
            where = os.path.relpath(page, args.book)
            if r['tag'] != 'svg':
                print(f"{where}: {r['tag']} {r['kind']} {r['over']} px too wide: {r['text']}")
            elif r['kind'] == 'small text':
                print(f"{where}: figure text shown at {r['over']} px (< {args.min_font}): {r['text']}")
            else:
                print(f"{where}: figure text {r['kind']} by {r['over']} px: {r['text']}")
    print(f"layout: {total} overflowing elements on {len(pages)} pages at {args.width} px", file=sys.stderr)
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
