#!/usr/bin/env python3
"""Re-flows the comment paragraphs of the book's included regions (`// ANCHOR: ...` to
`// ANCHOR_END`) whose lines pass WIDTH columns, so that the book shows them without
wrapping at 1280 px (book/layout.py allows at most 5 % of included Rust lines to wrap;
the column holds 86 characters of code).

    python3 book/reflow_comments.py 82 solutions/src/ch09.rs kernels/src/ch09.rs ...

Only paragraphs of plain text are re-flowed (not code fences, tables, headings or marker
lines); a list item keeps its hanging indent; no line may begin with what markdown reads
as a block. Stubs and solutions re-flow alike, so they still agree outside the student
regions; after running it, copy kernels/src to crates/learn/pristine and regenerate the
grader's manifest.
"""
import re, sys, textwrap
if len(sys.argv) < 3 or sys.argv[1] in ('-h', '--help'):
    print(__doc__)
    sys.exit(0 if len(sys.argv) > 1 else 2)
WIDTH = int(sys.argv[1]); files = sys.argv[2:]
COM = re.compile(r'^(\s*)(///|//!|//)( ?)(.*)$')
LIST = re.compile(r'^([-*]|\d+\.) ')
def special(text):
    return (not text.strip() or text.startswith(('```', '#', '|', '<')) or 'ANCHOR' in text
            or 'STUDENT-' in text or text.startswith('    '))
for path in files:
    lines = open(path).read().split('\n')
    out, i, depth, fence = [], 0, 0, False
    changed = 0
    while i < len(lines):
        l = lines[i]
        if re.search(r'//\s*ANCHOR:', l): depth += 1
        if re.search(r'//\s*ANCHOR_END:', l): depth = max(0, depth - 1)
        m = COM.match(l)
        if depth == 0 or not m or 'ANCHOR' in l:
            out.append(l); i += 1; continue
        ind, mark, sp, text = m.groups()
        if text.startswith('```'):
            fence = not fence
        if fence or text.startswith('```') or special(text):
            out.append(l); i += 1; continue
        # a paragraph: this line and the next with the same prefix that are plain text
        para = [text]; j = i + 1
        item = LIST.match(text)
        sub = ' ' * len(item.group(0)) if item else ''
        while j < len(lines):
            m2 = COM.match(lines[j])
            if not m2 or m2.group(1) != ind or m2.group(2) != mark or 'ANCHOR' in lines[j]: break
            t = m2.group(4)
            if item:
                if not t.startswith(sub) or not t.strip() or LIST.match(t): break
                t = t[len(sub):]
            elif special(t) or LIST.match(t): break
            para.append(t); j += 1
        prefix = ind + mark + (sp or ' ')
        if max(len(prefix) + len(p) + (len(sub) if k else 0) for k, p in enumerate(para)) <= WIDTH:
            out.extend(lines[i:j]); i = j; continue
        words = ' '.join(p.strip() for p in para)
        wrapped = textwrap.wrap(words, width=WIDTH - len(prefix), subsequent_indent=sub,
                                break_long_words=False, break_on_hyphens=False)
        # A line may not begin with what markdown reads as a block (a list item, a quote,
        # a heading, a table row): its first word goes up to the line before.
        k = 1
        while k < len(wrapped):
            body = wrapped[k][len(sub):]
            if re.match(r'^([-+*>|#]|\d+[.)])( |$)', body):
                first, _, rest = body.partition(' ')
                wrapped[k - 1] += ' ' + first
                wrapped[k] = sub + rest
                if not rest:
                    del wrapped[k]
                    continue
            k += 1
        out.extend(prefix + w for w in wrapped)
        changed += 1
        i = j
    open(path, 'w').write('\n'.join(out))
    print(path, changed, 'paragraphs')
