#!/usr/bin/env python3
"""Extract the TPU-tiled array shapes XLA wrote in a git tree's text files.

Usage: extract.py [--gen GEN] [--sizes] NAME GITDIR REV [PATHSPEC...]

NAME is how the table cites the tree (owner/name@commit); GEN the TPU generation the
source names ("unknown" by default); rows go to stdout.

With --sizes it reads XLA buffer assignments (*-buffer-assignment.txt) instead: each
`value: <…> (size=N,offset=M): SHAPE` line of a single array is one observation of the
bytes XLA allocated for SHAPE, and the rows are dtype, dims, layout, space, size,
count, source, files.

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


VALUE = re.compile(r"^ value: <[^>]*> \(size=([0-9]+),offset=[0-9]+\): (\S+)$", re.M)


def text_files(gitdir, rev, paths, pattern=r":T\("):
    out = subprocess.run(
        ["git", "--git-dir", gitdir, "grep", "-I", "-l", "-E", pattern, rev, "--"] + paths,
        capture_output=True, text=True).stdout
    return [line.split(":", 1)[1] for line in out.splitlines()]


def show(gitdir, rev, path):
    return subprocess.run(["git", "--git-dir", gitdir, "show", f"{rev}:{path}"],
                          capture_output=True, text=True, errors="replace").stdout


def split_space(lay):
    """'2,1,0:T(8,128)S(1)' -> ('2,1,0:T(8,128)', '1'); no S(n) is HBM, 0."""
    sm = re.search(r"S\(([0-9]+)\)", lay)
    if not sm:
        return lay, "0"
    return lay[:sm.start()] + lay[sm.end():], sm.group(1)


def sizes(name, gitdir, rev, paths, gen):
    seen = collections.OrderedDict()
    for path in text_files(gitdir, rev, paths, r"^ value: "):
        for m in VALUE.finditer(show(gitdir, rev, path)):
            size, shape = m.group(1), m.group(2)
            sm = re.fullmatch(r"(\w+)\[([0-9,]*)\](?:\{([^{}]*)\})?", shape)
            if not sm:
                continue  # a tuple: its size is the table of pointers
            lay, space = split_space(sm.group(3) or "")
            rec = seen.setdefault((sm.group(1), sm.group(2), lay, space, size), {"n": 0, "files": []})
            rec["n"] += 1
            if path not in rec["files"]:
                rec["files"].append(path)
    for (dtype, dims, lay, space, size), rec in seen.items():
        print(f"{dtype}\t{dims}\t{lay}\t{gen}\t{space}\t{size}\t{rec['n']}\t{name}\t{' '.join(rec['files'])}")


def main():
    args = sys.argv[1:]
    gen, by_size = "unknown", False
    while args and args[0].startswith("--"):
        if args[0] == "--gen":
            gen, args = args[1], args[2:]
        elif args[0] == "--sizes":
            by_size, args = True, args[1:]
        else:
            sys.exit(f"extract.py: unknown flag {args[0]}")
    name, gitdir, rev, paths = args[0], args[1], args[2], args[3:]
    if by_size:
        sizes(name, gitdir, rev, paths, gen)
        return
    seen = collections.OrderedDict()
    for path in text_files(gitdir, rev, paths):
        for m in SHAPE.finditer(show(gitdir, rev, path)):
            dtype, dims, lay = m.group(1), m.group(2), m.group(3).replace(" ", "")
            if ":" not in lay or "T(" not in lay.split(":", 1)[1]:
                continue
            lay, space = split_space(lay)
            key = (dtype, dims, lay)
            rec = seen.setdefault(key, {"n": 0, "files": [], "spaces": set()})
            rec["n"] += 1
            rec["spaces"].add(space)
            if path not in rec["files"]:
                rec["files"].append(path)
    for (dtype, dims, lay), rec in seen.items():
        spaces = ",".join(sorted(rec["spaces"]))
        paths = " ".join(rec["files"])
        print(f"{dtype}\t{dims}\t{lay}\t{gen}\t{spaces}\t{rec['n']}\t{name}\t{paths}")


if __name__ == "__main__":
    main()
