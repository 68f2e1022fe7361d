#!/usr/bin/env python3
"""Checks the size habits of lib/ and zcav/ (STYLE.md, README Layout).

- No function body longer than 120 lines (from the line of its opening brace to the
  line of its closing brace). Lambdas and local classes count toward the function
  they sit in.
- No source file (.cc or .h) longer than 1,200 lines unless one of its first 40 lines
  says why, in a comment that starts with "// Longer than 1,200 lines:".

Usage: check-sizes.py [ROOT]   (ROOT: the repository, default: this script's parent's parent)
Prints one line per finding ("FILE:LINE: ...") and exits 1 if there is any; 0 and a
one-line summary otherwise.
"""
import os
import re
import sys

MAX_FUNCTION_LINES = 120
MAX_FILE_LINES = 1200
FILE_REASON = "// Longer than 1,200 lines:"

SCOPE_WORD = re.compile(r"\b(namespace|class|struct|union|enum)\b")
EXTERN_C = re.compile(r'\bextern\s+"C"')
# What may stand between a function's parameter list and its body.
FUNCTION_HEAD_END = re.compile(
    r"\)\s*(const|noexcept(\([^)]*\))?|override|final|mutable|&|&&|->[^{;]*|\s)*$"
    r"|\)\s*:.*[)}]$", re.S)


def strip_code(text):
    """The text with comments, string and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]{0,16})\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i + m.end())
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and (text[i - 1].isalnum()) and text[i + 1:i + 2].isalnum():
                out.append(" ")  # digit separator: 1'000'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def long_functions(text):
    """(line, length, name) of each function body over MAX_FUNCTION_LINES lines."""
    code = strip_code(text)
    found = []
    names = {}
    stack = []  # (kind, start line, the head's start before this brace)
    head_start = 0
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            head = code[head_start:i].strip()
            if any(kind == "function" for kind, _, _ in stack):
                kind = "other"
            elif EXTERN_C.search(head) or re.search(r"\bnamespace\b", head):
                kind = "ns"
            elif SCOPE_WORD.search(head) and "(" not in head:
                kind = "other" if re.search(r"\benum\b", head) else "class"
            elif ")" in head and FUNCTION_HEAD_END.search(head):
                kind = "function"
            else:
                kind = "other"
            stack.append((kind, line, head_start))
            if kind == "function":
                names[line] = function_name(head)
            head_start = i + 1
        elif c == "}":
            if stack:
                kind, start, saved = stack.pop()
                if kind == "function" and line - start + 1 > MAX_FUNCTION_LINES:
                    found.append((start, line - start + 1, names[start]))
                inside_function = any(k == "function" for k, _, _ in stack)
                # A brace initializer outside a function (a member's in a constructor's
                # initializer list) belongs to the head that goes on after it.
                head_start = saved if kind == "other" and not inside_function else i + 1
            else:
                head_start = i + 1
        elif c == ";":
            head_start = i + 1
    return found


def function_name(head):
    """The name a function's head declares: 'Planted::Run', or 'a lambda'."""
    m = re.search(r"([A-Za-z_][\w:~]*)\s*\(", head)
    if not m or "[" in head[:m.start()].split("=")[-1]:
        return "a lambda"
    return m.group(1)


def problems_in(root):
    problems, files = [], 0
    for top in ("lib", "zcav"):
        for directory, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith((".cc", ".h")):
                    continue
                path = os.path.join(directory, name)
                rel = os.path.relpath(path, root)
                text = open(path, encoding="utf-8").read()
                files += 1
                count = text.count("\n")
                head = text.splitlines()[:40]
                if count > MAX_FILE_LINES and not any(l.startswith(FILE_REASON) for l in head):
                    problems.append(f"{rel}:1: {count} lines, over {MAX_FILE_LINES} without a reason "
                                    f"('{FILE_REASON} ...' in its first 40 lines)")
                for start, length, function in long_functions(text):
                    problems.append(f"{rel}:{start}: {function} is {length} lines, "
                                    f"over {MAX_FUNCTION_LINES}")
    return problems, files


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems, files = problems_in(root)
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"sizes ok: {files} files, no function over {MAX_FUNCTION_LINES} lines, "
          f"no file over {MAX_FILE_LINES} lines without a reason")
    return 0


if __name__ == "__main__":
    sys.exit(main())
