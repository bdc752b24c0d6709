#!/usr/bin/env python3
"""Extract the TPU-tiled array shapes XLA wrote in a git tree's text files.

Usage: extract.py NAME GITDIR REV [PATH...]

NAME is how the table cites the tree (owner/name@commit); rows go to stdout.

Every `dtype[dims]{minor_to_major:tiles...}` whose layout has a T(...) tile is one
observation. The output has one row per distinct (dtype, dims, layout) with the
memory spaces it was seen in, how often, and in which files. S(n) is split off the
layout: it names where the buffer lives, not how it is tiled. Dynamic dims (<=N) are
skipped. Only the standard library is used.
"""
import collections
import re
import subprocess
import sys

SHAPE = re.compile(
    r"(?<![A-Za-z0-9_])(pred|[suf](?:2|4|8|16|32|64)|bf16|f8e[0-9a-z]+|c64|c128)"
    r"\[([0-9,]*)\]\{([^{}]*)\}")


def text_files(gitdir, rev, paths):
    out = subprocess.run(
        ["git", "--git-dir", gitdir, "grep", "-I", "-l", "-E", r":T\(", rev, "--"] + paths,
        capture_output=True, text=True).stdout
    return [line.split(":", 1)[1] for line in out.splitlines()]


def main():
    name, gitdir, rev, paths = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    seen = collections.OrderedDict()
    for path in text_files(gitdir, rev, paths):
        text = subprocess.run(["git", "--git-dir", gitdir, "show", f"{rev}:{path}"],
                              capture_output=True, text=True, errors="replace").stdout
        for m in SHAPE.finditer(text):
            dtype, dims, lay = m.group(1), m.group(2), m.group(3).replace(" ", "")
            if ":" not in lay or "T(" not in lay.split(":", 1)[1]:
                continue
            space = ""
            sm = re.search(r"S\(([0-9]+)\)", lay)
            if sm:
                space = sm.group(1)
                lay = lay[:sm.start()] + lay[sm.end():]
            key = (dtype, dims, lay)
            rec = seen.setdefault(key, {"n": 0, "files": [], "spaces": set()})
            rec["n"] += 1
            rec["spaces"].add(space or "0")
            if path not in rec["files"]:
                rec["files"].append(path)
    for (dtype, dims, lay), rec in seen.items():
        spaces = ",".join(sorted(rec["spaces"]))
        paths = " ".join(rec["files"])
        print(f"{dtype}\t{dims}\t{lay}\tunknown\t{spaces}\t{rec['n']}\t{name}\t{paths}")


if __name__ == "__main__":
    main()
