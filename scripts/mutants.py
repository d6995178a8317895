#!/usr/bin/env python3
"""Write operator mutants of a C file: for each function, one mutant per
rule of RULES, replacing the rule's first match in the function's body.

usage: mutants.py FILE.c OUTDIR    (prints how many it wrote)

Each mutant is OUTDIR/mNNN_FUNCTION.c, the whole file with one change; some
do not compile (a '*' in a declaration), and some are equivalent to the
original (w <= 0 for w < 0 where only w * h is used): a campaign checks
FUNCTION of FILE.c against each mutant and reads every `equivalent` by hand.
"""
import os
import re
import sys

RULES = [
    (r'(?<![+=<>!&|])\+(?![+=])', '-'),
    (r'(?<![-=<>!&|])-(?![-=>])', '+'),
    (r'<(?![<=])', '<='),
    (r'>(?![>=])', '>='),
    (r'<=', '<'),
    (r'>=', '>'),
    (r'==', '!='),
    (r'!=', '=='),
    (r'\b1\b', '2'),
    (r'\b0\b', '1'),
    (r'&&', '||'),
    (r'\*(?!=)', '+'),
]


def functions(src):
    """(name, start, end) of each top-level function definition."""
    for m in re.finditer(r'^[a-zA-Z][^;{}()]*?\b([a-z_0-9]+)\s*\([^;{}]*\)\s*\{', src, re.M):
        depth = 0
        for i in range(m.end() - 1, len(src)):
            if src[i] == '{':
                depth += 1
            elif src[i] == '}':
                depth -= 1
                if depth == 0:
                    yield m.group(1), m.start(), i + 1
                    break


def main():
    path, out = sys.argv[1], sys.argv[2]
    src = open(path).read()
    os.makedirs(out, exist_ok=True)
    n = 0
    for name, start, end in functions(src):
        body = src[start:end]
        head = body.index('{')
        for pat, rep in RULES:
            m = re.search(pat, body[head:])
            if not m:
                continue
            a, b = head + m.start(), head + m.end()
            with open(os.path.join(out, 'm%03d_%s.c' % (n, name)), 'w') as f:
                f.write(src[:start] + body[:a] + rep + body[b:] + src[end:])
            n += 1
    print(n)


if __name__ == '__main__':
    main()
