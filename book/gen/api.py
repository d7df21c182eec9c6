#!/usr/bin/env python3
"""Writes book/src/device-api.md: every function, method and macro a kernel may use, one
line each (its first doc sentence), with the exercise whose reference first uses it.

The list comes from the `gpu` crate itself, read from rustdoc's JSON (the pinned nightly:
`cargo +NIGHTLY rustdoc -p gpu -- -Z unstable-options --output-format json`), so it cannot
drift from the API; the first use comes from the reference solutions' answer regions, in
course order.

    python3 book/gen/api.py            # write the page
    python3 book/gen/api.py --check    # fail when the committed page is not what it writes
    python3 book/gen/api.py --json F   # read rustdoc's JSON from F instead of building it
"""

import argparse
import json
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE = ROOT / "book" / "src" / "device-api.md"

# Host-side constructors a kernel never calls.
NOT_FOR_KERNELS = {"from_raw_parts"}

# The kernel-facing parts of the API, in the order a student meets them: (title, module
# path of free functions, or a type whose methods are listed (with the macro that makes
# its values, for the first use), or "macros"), and one line of why each part exists.
SECTIONS = [
    ("Threads, blocks and grids", "module:thread",
     "Where a thread is: its indices and the grid's shape (CUDA's `threadIdx`, `blockIdx`, `blockDim`, `gridDim`), and the block's barrier."),
    ("Warps", "module:warp",
     "The 32 lanes of a warp: lane ids, masks, votes, matches and shuffles (CUDA's `__ballot_sync`, `__match_any_sync`, `__shfl_*_sync`)."),
    ("Global memory", "type:GlobalSlice",
     "A buffer in the GPU's memory, reached only through these calls (so that the emulator sees every access); the atomics are CUDA's `atomicAdd`, `atomicCAS`, ... on its words (on `u32`, `i32`, `u64` and, for adds, `f32`)."),
    ("Shared memory", "type:SharedArray:shared_array!",
     "A block's static shared array (`shared_array!`)."),
    ("Dynamic shared memory", "type:DynamicShared:dynamic_shared!",
     "A block's shared memory sized at launch (`dynamic_shared!`)."),
    ("Constant memory", "type:ConstantArray:constant!",
     "A table the host sets before a launch, read by every thread (CUDA's `__constant__`)."),
    ("Macros and attributes", "macros",
     "Declaring kernels, shared memory and constant tables, and printing (CUDA's device `printf`), shown to you as kernel output."),
]


def rustdoc_json():
    """Builds the `gpu` crate's rustdoc JSON with the pinned nightly; its path."""
    toolchain = subprocess.run(
        ["cargo", "run", "-q", "-p", "ptx-builder", "--", "--print-toolchain"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    target = ROOT / "target" / "rustdoc-json"
    subprocess.run(
        ["cargo", f"+{toolchain}", "rustdoc", "-q", "-p", "gpu", "--target-dir", str(target),
         "--", "-Z", "unstable-options", "--output-format", "json"],
        cwd=ROOT, check=True)
    return target / "doc" / "gpu.json"


def first_sentence(docs):
    text = " ".join((docs or "").strip().split("\n\n")[0].split())
    # Intra-doc links read as their text: [`Dim3`] and [text](target).
    text = re.sub(r"\[(`[^`]+`)\](\([^)]*\))?", r"\1", text)
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    # "[`println!`]: what differs" reads "as `println!`: what differs".
    if re.match(r"`[^`]+`:", text):
        text = "As " + text
    m = re.match(r"(.+?\.)(\s|$)", text)
    return (m.group(1) if m else text).rstrip(".") + "."


class Doc:
    def __init__(self, data):
        self.index = data["index"]
        self.root = self.index[str(data["root"])]

    def item(self, i):
        return self.index[str(i)]

    def kind(self, it):
        return next(iter(it["inner"]))

    def module(self, name):
        for i in self.root["inner"]["module"]["items"]:
            it = self.item(i)
            if self.kind(it) == "module" and it.get("name") == name:
                return it
        raise SystemExit(f"api.py: no module `{name}` in gpu")

    def public(self, it):
        return it.get("visibility") == "public" and not (it.get("name") or "").startswith("_")

    def functions(self, module):
        out = []
        for i in self.module(module)["inner"]["module"]["items"]:
            it = self.item(i)
            if self.kind(it) == "function" and self.public(it) and not hidden(it):
                out.append((f"{module}::{it['name']}()", it["name"], "call", it.get("docs")))
        return out

    def find(self, kind, name):
        for it in self.index.values():
            if it.get("name") == name and self.kind(it) == kind and self.public(it):
                return it
        raise SystemExit(f"api.py: no {kind} `{name}` in gpu")

    def methods(self, type_name):
        ty = self.find("struct", type_name)
        out = []
        for impl_id in ty["inner"]["struct"]["impls"]:
            impl = self.item(impl_id)["inner"]["impl"]
            if impl.get("trait") is not None or impl.get("is_synthetic") or impl.get("blanket_impl"):
                continue
            for i in impl["items"]:
                it = self.item(i)
                if (self.kind(it) == "function" and self.public(it) and not hidden(it)
                        and it["name"] not in NOT_FOR_KERNELS):
                    out.append((f".{it['name']}()", it["name"], "method", it.get("docs")))
        return dedup(out)

    def macros(self):
        out = []
        for i in self.root["inner"]["module"]["items"]:
            it = self.item(i)
            if self.kind(it) == "macro" and not hidden(it):
                out.append((f"{it['name']}!", it["name"], "macro", it.get("docs")))
        for name in ("kernel", "host"):
            out.append((f"#[{name}]", name, "attribute", ATTRIBUTE_DOCS[name]))
        return out


ATTRIBUTE_DOCS = {
    "kernel": "Makes a function a kernel: launchable from the host with a grid and a block, run by every thread.",
    "host": "Makes a plain Rust function (a sequential loop, a prediction) callable by the checks in the sandbox.",
}


def hidden(it):
    """Whether the item is `#[doc(hidden)]` (however this rustdoc writes attributes)."""
    return "hidden" in json.dumps(it.get("attrs", []))


def dedup(items):
    seen, out = set(), []
    for x in items:
        if x[1] not in seen:
            seen.add(x[1])
            out.append(x)
    return out


def exercises_in_order():
    """(id, answer text) of every exercise's reference regions, in course order."""
    order = []
    for chapter in ("ch05", "ch09"):
        text = (ROOT / "solutions" / "src" / f"{chapter}.rs").read_text()
        for m in re.finditer(r"// STUDENT-BEGIN (\S+)\n(.*?)// STUDENT-END", text, re.S):
            order.append((m.group(1), m.group(2)))
    key = lambda e: tuple(int(x) for x in e[0].split("."))
    return sorted(order, key=key)


def first_use(name, how, regions):
    if how == "macro":
        pattern = rf"\b{re.escape(name)}!"
    elif how == "attribute":
        return ""
    elif how == "method":
        pattern = rf"\.{re.escape(name)}\s*[(:<]"
    else:
        pattern = rf"\b{re.escape(name)}\s*[(:<]"
    for ex, text in regions:
        if re.search(pattern, text):
            return ex
    return ""


def page(doc):
    regions = exercises_in_order()
    lines = [
        "# The device API",
        "",
        "<!-- Generated by book/gen/api.py from the gpu crate's rustdoc and the reference",
        "     solutions: do not edit by hand. -->",
        "",
        "Every function, method and macro a kernel may use, one line each, with the exercise",
        "that first needs it. The kernel files import them all (`use gpu::prelude::*;`); the full",
        "documentation, with examples, is `cargo doc -p gpu --open`.",
        "",
    ]
    for title, what, why in SECTIONS:
        kind, _, rest = what.partition(":")
        name, _, marker = rest.partition(":")
        # A type's methods count as used where the region holds one of its values.
        mine = [r for r in regions if marker in r[1]] if marker else regions
        if kind == "module":
            items = doc.functions(name)
        elif kind == "type":
            items = doc.methods(name)
        else:
            items = doc.macros()
        lines += [f"## {title}", "", why, "", "| use | what it does | first in |", "| --- | --- | --- |"]
        for shown, bare, how, docs in items:
            ex = first_use(bare, how, mine)
            what_it_does = first_sentence(docs).replace("|", "\\|")
            lines.append(f"| `{shown}` | {what_it_does} | {ex} |")
        lines.append("")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--json", type=pathlib.Path)
    args = ap.parse_args()
    data = json.loads((args.json or rustdoc_json()).read_text())
    text = page(Doc(data))
    if args.check:
        if not PAGE.is_file() or PAGE.read_text() != text:
            print("book/src/device-api.md is not what book/gen/api.py writes: run "
                  "`python3 book/gen/api.py` and commit it", file=sys.stderr)
            return 1
        print("book/src/device-api.md: current")
        return 0
    PAGE.write_text(text)
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
