#!/usr/bin/env python3
"""The glossary's terms are linked where the book first uses them.

The book's pages are read in SUMMARY.md's order; for each term of the glossary
(book/src/glossary.md, `### term {#id}`), its first use in prose (not in a code block, a
heading, a placeholder or another link's text) must be a link to `glossary.md#id`.

    python3 book/glossary.py --check    exit 1 and list every term whose first use is not
                                        linked (CI runs this after the book is generated)
    python3 book/glossary.py --apply    link each first use: in the page's template under
                                        book/gen/ when it has one, else in book/src; then
                                        regenerate the pages (book/gen/regenerate.sh)
"""
import argparse
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "book", "src")
GEN = os.path.join(ROOT, "book", "gen")

#: Each glossary anchor and the forms of its term in prose (regular expressions, matched
#: at word boundaries, case as written). A form in backticks matches a whole code span.
TERMS = {
    "thread": [r"threads?"], "kernel": [r"kernels?"], "block": [r"blocks?"],
    "grid": [r"grids?"], "launch": [r"launch(?:es|ed)?"], "warp": [r"warps?"],
    "lane": [r"lanes?"], "sm": [r"SMs?"], "smsp": [r"SMSPs?", r"sub-partitions?", r"`smsp__\w+(?:\.\w+)?`"],
    "simt": [r"SIMT"], "spmd": [r"SPMD"], "divergence": [r"divergen(?:ce|t)"],
    "simt-efficiency": [r"SIMT efficiency"], "active-mask": [r"active mask"],
    "barrier": [r"barriers?"], "warp-collective": [r"(?:warp )?collectives?"],
    "resident": [r"resident"], "occupancy": [r"occupancy"], "wave": [r"waves?"],
    "latency-hiding": [r"latency hiding"], "grid-stride-loop": [r"grid-stride loops?"],
    "compute-capability": [r"compute capability"], "global-memory": [r"global memory"],
    "shared-memory": [r"shared memory"], "register": [r"registers?"], "l2": [r"L2"],
    "cold-l2": [r"cold L2"], "sector": [r"sectors?"], "coalescing": [r"coalesc(?:ing|ed|e)"],
    "bank": [r"banks?"], "bank-conflict": [r"bank conflicts?"],
    "vector-load": [r"16-byte loads?", r"vector loads?"], "read-bandwidth": [r"read bandwidth"],
    "atomic": [r"atomics?"], "data-race": [r"data races?", r"races?"],
    "serialization": [r"seriali[sz]ation"], "privatization": [r"privati[sz]ation"],
    "coarsening": [r"coarsening"], "aggregation": [r"aggregation"],
    "cas": [r"compare-and-swap"], "ptx": [r"PTX"], "ptxas": [r"ptxas", r"`ptxas`"],
    "sass": [r"SASS"], "atoms": [r"ATOMS", r"`ATOMS(?:\.POPC\.INC)?`"],
    "atom": [r"`ATOM(?:\.[A-Z0-9]+)*`"], "red": [r"REDG", r"`REDG?`"],
    "cuda-event": [r"CUDA events?", r"event-timed"], "nsight-compute": [r"Nsight Compute"],
    "wavefront": [r"wavefronts?"], "stall-reasons": [r"long scoreboard", r"stall(?:s|ed)?"],
    "mio": [r"MIO"], "pipe": [r"pipes?"],
    "compute-sanitizer": [r"compute-sanitizer", r"`compute-sanitizer`"], "cub": [r"CUB"],
    "constant-memory": [r"constant memory"], "ldc": [r"U?LDC", r"`U?LDC(?:\.64)?`"],
    "uniform-register": [r"uniform registers?"], "cuda-stream": [r"CUDA streams?"],
    "shfl-down": [r"`shfl\.down`"], "parallel-reduction": [r"parallel reductions?"],
    "reduction-tree": [r"reduction trees?"], "dram": [r"DRAM"], "l1": [r"L1"], "local-memory": [r"local memory"], "littles-law": [r"Little's law"],
}

#: What is not prose: a placeholder, a link (text and target), an HTML tag, a code span.
PROTECTED = re.compile(r"@@.*?@@|!?\[[^\]]*\]\([^)]*\)|<[^>]+>|`[^`]*`")


def pages():
    """(summary path, file to read, file to edit) in reading order, the glossary left out."""
    for line in open(os.path.join(SRC, "SUMMARY.md")):
        m = re.search(r"\]\(([^)]+\.md)\)", line)
        if not m or m.group(1) == "glossary.md":
            continue
        rel = m.group(1)
        template = os.path.join(GEN, rel)
        yield rel, os.path.join(SRC, rel), template if os.path.exists(template) else os.path.join(SRC, rel)


def glossary_ids():
    text = open(os.path.join(SRC, "glossary.md")).read()
    return re.findall(r"^### .*\{#([a-z0-9-]+)\}$", text, flags=re.M)


def prose_lines(text):
    """(index, line) of the lines that are prose: outside fenced code, not headings."""
    fence = False
    for i, line in enumerate(text.split("\n")):
        stripped = line.lstrip("> ").lstrip()
        if stripped.startswith("```"):
            fence = not fence
            continue
        if fence or stripped.startswith("#") or stripped.startswith("{{#") or stripped.startswith("@@check"):
            continue
        yield i, line


def find(line, forms):
    """The first use of a form in `line`: (start, end, is_code_span) or None. A plain form is
    looked for outside protected spans (and inside the text of a link to the glossary); a
    backticked form is a whole code span."""
    best = None
    for form in forms:
        if form.startswith("`"):
            for m in re.finditer(form, line):
                best = min(best or (m.start(), m.end(), True), (m.start(), m.end(), True))
            continue
        pat = re.compile(r"(?<![\w./#-])" + form + r"(?![\w-])")
        pos = 0
        for p in list(PROTECTED.finditer(line)) + [None]:
            end = p.start() if p else len(line)
            m = pat.search(line, pos, end)
            if m:
                best = min(best or (m.start(), m.end(), False), (m.start(), m.end(), False))
                break
            if p is None:
                break
            # a glossary link's text is searched: that is the term's use, linked
            if p.group(0).startswith("[") and "glossary.md#" in p.group(0):
                inner = p.group(0)[1:p.group(0).index("](")]
                m = pat.search(inner)
                if m:
                    at = p.start() + 1 + m.start()
                    best = min(best or (at, at + len(m.group(0)), False), (at, at + len(m.group(0)), False))
                    break
            pos = p.end()
    return best


def link_target(rel, anchor):
    up = "../" * rel.count("/")
    return f"{up}glossary.md#{anchor}"


def linked_at(line, start, anchor):
    """Whether the text at `start` is inside a link to the glossary's `anchor`."""
    for m in re.finditer(r"\[([^\]]*)\]\(([^)]*)\)", line):
        if m.start() <= start < m.end():
            return m.group(2).endswith("glossary.md#" + anchor)
    return False


def first_uses(read):
    """{anchor: (rel, file, line index, start, end, code)} of each term's first use."""
    ids = set(glossary_ids())
    found = {}
    for rel, built, template in pages():
        path = built if read == "built" else template
        text = open(path).read()
        for i, line in prose_lines(text):
            for anchor, forms in TERMS.items():
                if anchor in found or anchor not in ids:
                    continue
                hit = find(line, forms)
                if hit:
                    found[anchor] = (rel, path, i, *hit)
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--apply", action="store_true")
    args = ap.parse_args()
    ids = glossary_ids()
    missing = [a for a in TERMS if a not in ids] + [a for a in ids if a not in TERMS]
    if missing:
        print(f"glossary: terms without an entry or entries without forms: {missing}", file=sys.stderr)
        return 1
    if args.apply:
        # One term at a time, reading again after each link (a link moves the text).
        for anchor in TERMS:
            uses = first_uses("template")
            if anchor not in uses:
                continue
            rel, path, i, start, end, code = uses[anchor]
            lines = open(path).read().split("\n")
            if linked_at(lines[i], start, anchor) or any(
                    m.start() <= start < m.end() for m in re.finditer(r"\[[^\]]*\]\([^)]*\)", lines[i])):
                continue
            word = lines[i][start:end]
            lines[i] = lines[i][:start] + f"[{word}]({link_target(rel, anchor)})" + lines[i][end:]
            open(path, "w").write("\n".join(lines))
            print(f"glossary: linked {anchor!r} in {os.path.relpath(path, ROOT)}:{i + 1}: {word}")
        return 0
    uses = first_uses("built")
    bad = [(a, u) for a, u in uses.items() if not linked_at(open(u[1]).read().split("\n")[u[2]], u[3], a)]
    for anchor, (rel, path, i, start, end, code) in bad:
        line = open(path).read().split("\n")[i]
        print(f"{rel}:{i + 1}: the first use of glossary term '{anchor}' is not linked: {line[start:end]!r}")
    unused = [a for a in TERMS if a not in uses]
    print(f"glossary: {len(uses) - len(bad)} of {len(uses)} terms linked at their first use"
          + (f"; never used: {unused}" if unused else ""), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
