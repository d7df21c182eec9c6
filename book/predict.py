#!/usr/bin/env python3
"""Ask, then tell: nothing above a Predict box states its answer.

A Predict box is a quote that starts `> **Predict` (`> **Predict the speed:**`, ...); its
answer is folded under it, in the first `<details>` after it. The fold names the answer
the box asks for in a comment, the numbers (and direction words) a reader would guess:

    <details>
    <summary>Answer</summary>
    <!-- answer: 13; 4 requests -->

Each item (separated by `;`) must appear in the fold itself, and must not appear earlier
on the same page outside a fold: in its prose, a table or a quoted run. An item is matched
as written, at word boundaries (`13` does not match `130` or `1.3`), across line breaks. `-` says the box has
nothing to hide: its answer is a function the exercise's test checks. Pages are checked
as generated (book/src); the comment is written in the page's template when it has one.
A chapter's introduction (its index.md) comes before all of its boxes: its figure of every
step's speed (figures/*throughput*.svg) must be in a fold.

    python3 book/predict.py --check    exit 1 and list every box without a named answer,
                                       every item its fold does not say, and every item
                                       stated above its box (CI runs this after the book
                                       is generated)
"""
import argparse
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "book", "src")

BOX = re.compile(r"(?m)^> \*\*Predict[^\n]*(?:\n>[^\n]*)*")
FOLD = re.compile(r"(?ms)^<details>.*?^</details>")
ANSWER = re.compile(r"<!-- answer: (.*?) -->")


def item_re(item):
    """`item` at word boundaries: not inside a longer number or word."""
    words = r"\s+".join(re.escape(w) for w in item.split())
    return re.compile(r"(?<![\w.])" + words + r"(?![\w]|[.,]\d)")


def boxes(text):
    """(line, box, fold or None, text above the box with its folds blanked) for each box of
    a page: the text above keeps its length, so a position in it is one of the page."""
    folds = [(m.start(), m.end()) for m in FOLD.finditer(text)]
    out = []
    for b in BOX.finditer(text):
        if any(s <= b.start() < e for s, e in folds):
            continue  # a box inside a fold is part of an answer
        above = text[:b.start()]
        for s, e in folds:
            if s < b.start():
                above = above[:s] + re.sub(r"[^\n]", " ", above[s:e]) + above[e:]
        fold = next((text[s:e] for s, e in folds if s >= b.end()), None)
        out.append((text.count("\n", 0, b.start()) + 1, b.group(0), fold, above))
    return out


#: A figure of every step's speed (figures/*throughput*.svg).
SPEED_FIGURE = re.compile(r"!\[[^\]]*\]\([^)]*throughput[^)]*\.svg\)")


def problems_of(text, index=False):
    problems = []
    if index:
        # A chapter's introduction comes before every box of its sections: its figure of
        # the steps' speeds must be folded.
        outside = FOLD.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
        for m in SPEED_FIGURE.finditer(outside):
            problems.append((outside.count("\n", 0, m.start()) + 1,
                             "a chapter's introduction shows every step's speed outside a fold"))
    for line, box, fold, above in boxes(text):
        m = ANSWER.search(fold or "")
        if not m:
            problems.append((line, "no `<!-- answer: ... -->` in the fold under the box"))
            continue
        said = ANSWER.sub("", fold)
        for item in [i.strip() for i in m.group(1).split(";")]:
            if item == "-" or not item:
                continue
            if not item_re(item).search(said):
                problems.append((line, f"the answer {item!r} is not in its fold"))
            elif item_re(item).search(above):
                where = above[:item_re(item).search(above).start()].count("\n") + 1
                problems.append((line, f"the answer {item!r} is stated above the box, at line {where}"))
    return problems


#: The checker's own examples: (page, number of problems).
EXAMPLES = [
    ("st.sect is 13.\n\n> **Predict:** how many?\n\n<details>\n<!-- answer: 13 -->\n13.\n</details>\n", 1),
    ("st.sect is 130.\n\n> **Predict:** how many?\n\n<details>\n<!-- answer: 13 -->\n13.\n</details>\n", 0),
    ("<details>\n13\n</details>\n\n> **Predict:** how many?\n\n<details>\n<!-- answer: 13 -->\n13.\n</details>\n", 0),
    ("> **Predict:** how many?\n\n<details>\n13.\n</details>\n", 1),
    ("> **Predict:** how many?\n\n<details>\n<!-- answer: 14 -->\n13.\n</details>\n", 1),
    ("9.9 is 23× faster.\n\n> **Predict the speed:** how much?\n\n<details>\n<!-- answer: 23× -->\n23×\n</details>\n", 1),
]
INDEX_EXAMPLES = [
    ("# Ch\n\n![speed](../figures/ch09-throughput-u8.svg)\n", 1),
    ("# Ch\n\n<details>\n\n![speed](../figures/ch09-throughput-u8.svg)\n\n</details>\n", 0),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", required=True)
    ap.parse_args()
    for page, want in EXAMPLES:
        if len(problems_of(page)) != want:
            sys.exit(f"predict.py self-test: {len(problems_of(page))} problems, not {want}, in {page!r}")
    for page, want in INDEX_EXAMPLES:
        if len(problems_of(page, index=True)) != want:
            sys.exit(f"predict.py self-test: not {want} problems in the index {page!r}")
    found, count = [], 0
    for dirpath, _, files in sorted(os.walk(SRC)):
        for f in sorted(files):
            if f.endswith(".md"):
                path = os.path.join(dirpath, f)
                text = open(path, encoding="utf-8").read()
                count += len(boxes(text))
                for line, what in problems_of(text, index=f == "index.md"):
                    found.append(f"{os.path.relpath(path, ROOT)}:{line}: {what}")
    for p in found:
        print(p, file=sys.stderr)
    if found:
        print(f"predict: {len(found)} problems in {count} Predict boxes: a page states an answer before it asks", file=sys.stderr)
        sys.exit(1)
    print(f"predict: {count} Predict boxes, none answered above itself")


if __name__ == "__main__":
    main()
