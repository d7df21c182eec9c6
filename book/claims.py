#!/usr/bin/env python3
"""Claims the book's pages must make one way.

Which GPUs: the course's PTX is built for `sm_70`, so it runs on every NVIDIA GPU of
compute capability 7.0 or later (README.md, "Which GPUs"). A page that says the course,
its kernels or a reader's GPU targets, needs or is built for another compute capability
(`sm_90`, "9.0 or newer") contradicts it. Statements about one GPU ("the H100 is sm_90",
"ptxas for sm_90", "modelled on an NVIDIA H100, sm_90") are not claims of what the course
targets and pass.

    python3 book/claims.py --check    exit 1 and list every such sentence of book/src and
                                      of the README
                                      (CI runs this after the book is generated)
"""
import argparse
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "book", "src")

#: The course's one target: `sm_70`, compute capability 7.0.
TARGET = "7.0"

_CC = r"(?:sm_(?P<sm>\d{2,3})a?|compute capability (?:of )?(?P<cc>\d+\.\d))"
#: Sentences that say what the course targets or needs: (pattern, what it catches).
CLAIMS = [
    # "the course targets sm_90", "the kernels are built for sm_90", "you need compute capability 9.0"
    (re.compile(r"\b(?:course|kernels?|PTX|exercises?|book|you|your GPU|the GPU|a GPU)\b[^.;:]{0,60}?"
                r"\b(?:targets?|targeting|builds? for|built for|compiles? for|compiled for|needs?|requires?)\b"
                r"[^.;:]{0,30}?" + _CC, re.I), "the course targets or needs"),
    # "compute capability 9.0 or newer", "sm_90 and up"
    (re.compile(_CC + r"\s+(?:or|and)\s+(?:newer|later|up|above|higher|more)\b", re.I), "X or newer"),
    # "an NVIDIA GPU of compute capability 9.0"
    (re.compile(r"\bGPU (?:of|with) (?:a )?" + _CC, re.I), "a GPU of compute capability X"),
]


def cc_of(m):
    """The compute capability a match names, as 'M.m'."""
    if m.group("sm"):
        s = m.group("sm")
        return f"{s[:-1]}.{s[-1]}"
    return m.group("cc")


def prose(text):
    """The page's prose: fenced code blocks dropped, links replaced by their text, inline
    code unwrapped, each paragraph on one line."""
    text = re.sub(r"(?ms)^```.*?^```[^\n]*$", "", text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.replace("`", "")
    text = re.sub(r"(?m)^\s*>\s?", "", text)
    units = []
    for p in re.split(r"\n\s*\n", text):
        if p.lstrip().startswith("|"):  # a table: each row on its own
            units += [row for row in p.split("\n") if row.strip()]
        elif p.strip():
            units.append(" ".join(p.split()))
    return units


def wrong_claims(text):
    """(sentence, what) for each claim of `text` that names a target other than TARGET."""
    found = []
    for para in prose(text):
        for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z`*(])", para):
            for pattern, what in CLAIMS:
                for m in pattern.finditer(sentence):
                    if cc_of(m) != TARGET:
                        found.append((sentence, what))
                        break
    return found


#: The checker's own examples: (text, flagged?).
EXAMPLES = [
    ("The course targets `sm_90`, and the emulator reports itself as a 9.0 device.", True),
    ("| run the kernels | an NVIDIA GPU of [compute capability](glossary.md#c) 9.0 or newer |", True),
    ("The course builds for `sm_90`, so every atomic is available.", True),
    ("Your GPU needs compute capability 8.0.", True),
    ("The course targets `sm_70`: its PTX runs on compute capability 7.0 or newer.", False),
    ("The H100 is sm_90.", False),
    ("device: SIMT emulator (modelled on an NVIDIA H100, sm_90), 132 SMs", False),
    ("In the SASS (`ptxas` of CUDA 13.0 for `sm_90`, a note), every load is one instruction.", False),
    ("the driver compiles `sm_70` PTX for the GPU it runs on, an H100's `sm_90` too.", False),
    ("Up to Pascal (compute capability 6.x), the 32 lanes of a warp shared one program counter.", False),
]


def self_test():
    bad = [(t, want) for t, want in EXAMPLES if bool(wrong_claims(t)) != want]
    for t, want in bad:
        print(f"claims.py self-test: {'missed' if want else 'flagged'}: {t}", file=sys.stderr)
    return not bad


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", required=True)
    ap.parse_args()
    if not self_test():
        sys.exit(1)
    problems = []
    paths = [os.path.join(ROOT, "README.md")]
    for dirpath, _, files in sorted(os.walk(SRC)):
        paths += [os.path.join(dirpath, f) for f in sorted(files) if f.endswith(".md")]
    for path in paths:
        for sentence, what in wrong_claims(open(path, encoding="utf-8").read()):
            problems.append(f"{os.path.relpath(path, ROOT)}: {what}, not {TARGET} (sm_70): {sentence}")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"claims: {len(problems)} sentences say the course targets a compute capability other than "
              f"{TARGET}; it builds for sm_70 (README.md, 'Which GPUs')", file=sys.stderr)
        sys.exit(1)
    print(f"claims: every page says the course targets compute capability {TARGET} (sm_70) where it says one")


if __name__ == "__main__":
    main()
