#!/usr/bin/env python3
"""Renders every page of the built book in headless Chromium and lists what overflows.

For each HTML page of the built book (`mdbook build book` writes book/book), a copy with a
measuring script is loaded at a given width (1280 px by default) and the script reports,
inside the page's main column, every code or output block, table or image whose content
is wider than its box or whose box passes the column's right edge, by how many pixels.
The report goes to stdout, one line per element; the exit status is 1 when anything
overflows, 0 when nothing does, 2 when it cannot run (no Chromium, no built book).

This is the measurement behind the book's layout work (issue: every page readable at
1280 px): it is not yet a CI step, because quoted runs still overflow (they need their
sections' columns, `--columns` of the chapter CLIs).

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

MEASURE = """
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
  }
  const pre = document.createElement('pre');
  pre.id = 'layout-report';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
"""

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run",
                  "--virtual-time-budget=3000", "--dump-dom"]


def measure(chromium, page, width):
    """The overflowing elements of one page."""
    tmp = page[:-len(".html")] + ".layout-measure.html"
    with open(page) as f:
        text = f.read()
    with open(tmp, "w") as f:
        f.write(text.replace("</body>", "<script>" + MEASURE + "</script></body>"))
    try:
        p = subprocess.run([chromium, *CHROMIUM_FLAGS, f"--window-size={width},900", "file://" + tmp],
                           capture_output=True, text=True, timeout=90)
    finally:
        os.remove(tmp)
    start = p.stdout.find('<pre id="layout-report">')
    if start < 0:
        raise RuntimeError(f"{page}: no report from Chromium ({p.stderr.strip()[-300:]})")
    end = p.stdout.find("</pre>", start)
    return json.loads(html.unescape(p.stdout[start + len('<pre id="layout-report">'):end]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--book", default="book/book", help="the built book [default: book/book]")
    ap.add_argument("--width", type=int, default=1280, help="window width in px [default: 1280]")
    ap.add_argument("--chromium", default="chromium", help="the Chromium executable [default: chromium]")
    args = ap.parse_args()
    chromium = shutil.which(args.chromium)
    if not chromium:
        print(f"layout: {args.chromium} not found (Debian: apt-get install chromium)", file=sys.stderr)
        return 2
    pages = sorted(p for p in glob.glob(os.path.join(args.book, "**", "*.html"), recursive=True)
                   if os.path.basename(p) not in ("print.html", "404.html", "toc.html"))
    if not pages:
        print(f"layout: no pages under {args.book} (run `mdbook build book`)", file=sys.stderr)
        return 2
    total = 0
    for page in pages:
        for r in measure(chromium, os.path.abspath(page), args.width):
            total += 1
            print(f"{os.path.relpath(page, args.book)}: {r['tag']} {r['kind']} {r['over']} px too wide: {r['text']}")
    print(f"layout: {total} overflowing elements on {len(pages)} pages at {args.width} px", file=sys.stderr)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
