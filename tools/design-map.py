#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make lint: the design document's module map names every source file.

Documentation/design.rst has a section titled "Module map" that names
each .c file of drivers/nvfab/ as ``<path relative to drivers/nvfab/>``.
This fails when a .c file under drivers/nvfab/ is not named there, or
when the section names a .c file that does not exist (it moved or was
removed), so that the map cannot fall behind the tree.

Usage: design-map.py [REPO_ROOT]    exit 0 when the map is complete
"""
import re
import subprocess
import sys

ADORN = re.compile(r'^([=\-~^"\'`#*+<>:.])\1{3,}\s*$')
NAMED = re.compile(r'``([A-Za-z0-9_./-]+\.c)``')


def section(lines, title):
    """The lines of the section headed TITLE, up to the next heading of
    the same or a higher level (reStructuredText underline adornment)."""
    levels = []  # adornment characters in order of first use
    start = level = None
    for i in range(1, len(lines)):
        m = ADORN.match(lines[i])
        if not m or not lines[i - 1].strip() or ADORN.match(lines[i - 1]):
            continue
        # an overline makes "=" over and under one style
        over = i >= 2 and ADORN.match(lines[i - 2]) is not None
        ch = ("o" if over else "u") + m.group(1)
        if ch not in levels:
            levels.append(ch)
        lv = levels.index(ch)
        if start is None:
            if lines[i - 1].strip() == title:
                start, level = i + 1, lv
        elif lv <= level:
            return lines[start:i - 1]
    return lines[start:] if start is not None else None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    doc = f"{root}/Documentation/design.rst"
    with open(doc, encoding="utf-8") as f:
        lines = f.read().splitlines()
    body = section(lines, "Module map")
    if body is None:
        print(f"{doc}: no section titled 'Module map'")
        return 1
    named = set(NAMED.findall("\n".join(body)))
    files = subprocess.run(
        ["git", "-C", root, "ls-files", "drivers/nvfab/*.c"],
        check=True, capture_output=True, text=True).stdout.split()
    have = {f[len("drivers/nvfab/"):] for f in files}
    bad = 0
    for f in sorted(have - named):
        print(f"{doc}: module map does not name drivers/nvfab/{f}")
        bad = 1
    for f in sorted(named - have):
        print(f"{doc}: module map names {f}, which is not a file of "
              "drivers/nvfab/")
        bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
