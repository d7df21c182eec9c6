#!/usr/bin/env python3
"""Two limits of the book's pages, checked on the generated pages (book/src).

Words: no section page has more than MAX_WORDS words of prose. A section page is a page
that SUMMARY.md lists under a chapter's heading (`# Chapter ...`), the chapter's own
introduction included; appendices and the front matter are not sections. The prose is the
page's Markdown without its fenced code blocks (``` ... ```), HTML comments and HTML
tags, with a link counted by its text only; the cells of a Markdown table count, the
placeholders `{{#include ...}}` do not. A word is a run of characters between spaces that
holds a letter or a digit ("9.9", "GB/s" and "2.25×" are words; "|", "---" and "×" alone
are not).

Commands: no line of a command a reader may copy is longer than MAX_COMMAND characters,
the width that a phone shows without scrolling: at 390 px the column is 335 px, and
wrap.css gives code there 12 px monospace (7.2 px a character) and 6 px of padding on
each side, room for 44 characters (book/layout.py measures what scrolls as drawn). The lines checked are every line of a ```sh block, and in a
```text block the lines of a command quoted with its prompt (`$ cargo ...`) and its
continuation lines after a `\\`, in a quote (a Predict box) as well. A comment after a
command counts: put it on a line of its own. A longer command is broken with `\\` at a space.

    python3 book/limits.py --check    exit 1 and list every page over MAX_WORDS and every
                                      command line over MAX_COMMAND (CI runs this after
                                      the book is generated)
    python3 book/limits.py            the word count of every section page
"""
import argparse
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "book", "src")
MAX_WORDS = 2500
MAX_COMMAND = 44

FENCE = re.compile(r"(?ms)^```.*?^```[ \t]*$")
COMMENT = re.compile(r"(?s)<!--.*?-->")
TAG = re.compile(r"<[^>\n]+>")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
INCLUDE = re.compile(r"\{\{#include [^}]*\}\}")
WORD = re.compile(r"[A-Za-z0-9]")


def section_pages(summary):
    """The pages SUMMARY.md lists under a `# Chapter` heading, in order."""
    pages, in_chapter = [], False
    for line in summary.split("\n"):
        if line.startswith("# "):
            in_chapter = line.startswith("# Chapter")
            continue
        m = re.search(r"\]\(([^)]+\.md)\)", line)
        if in_chapter and m:
            pages.append(m.group(1))
    return pages


def prose_words(text):
    """The number of words of `text` outside code blocks, comments and tags."""
    for pattern, by in ((FENCE, " "), (COMMENT, " "), (INCLUDE, " "), (TAG, " ")):
        text = pattern.sub(by, text)
    text = LINK.sub(r"\1", text)
    return sum(1 for w in text.split() if WORD.search(w))


def command_lines(text):
    """(line number, line) of each line of a copyable command on the page: ```sh blocks
    whole, and in ```text blocks a `$ ` line and the lines that continue it."""
    out = []
    # A block inside a quote (a Predict box's command) is read without its `> `.
    text = re.sub(r"(?m)^> ?", "", text)
    for m in FENCE.finditer(text):
        block = m.group(0).split("\n")
        first = text.count("\n", 0, m.start()) + 1
        lang = block[0][3:].split(",")[0].strip()
        continued = False
        for k, line in enumerate(block[1:-1], start=1):
            if lang in ("sh", "bash", "shell", "console"):
                out.append((first + k, line))
            elif lang == "text" and (line.startswith("$ ") or continued):
                out.append((first + k, line))
                continued = line.rstrip().endswith("\\")
                continue
            continued = False
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--check", action="store_true")
    args = p.parse_args()
    pages = section_pages(open(os.path.join(SRC, "SUMMARY.md")).read())
    bad = 0
    for rel in pages:
        n = prose_words(open(os.path.join(SRC, rel)).read())
        if n > MAX_WORDS:
            print(f"{rel}: {n} words of prose, more than {MAX_WORDS}: split the section")
            bad += 1
        elif not args.check:
            print(f"{rel}: {n} words")
    long_lines = 0
    for dirpath, _, files in os.walk(SRC):
        for f in sorted(files):
            if not f.endswith(".md"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, SRC)
            for line_no, line in command_lines(open(path).read()):
                if len(line) > MAX_COMMAND:
                    print(f"{rel}:{line_no}: a command line of {len(line)} characters, more than "
                          f"{MAX_COMMAND}: break it with \\ at a space: {line[:60]}")
                    long_lines += 1
    print(f"limits: {len(pages)} section pages, {bad} over {MAX_WORDS} words; "
          f"{long_lines} command lines over {MAX_COMMAND} characters", file=sys.stderr)
    return 1 if (bad or long_lines) and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
