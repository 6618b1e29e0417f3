#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Count the results in KTAP (or TAP 13/14) files.
#
#   ktap-summary.py [--counts] [--quiet] FILE...
#
# Only leaf tests count: a result line that closes a block of nested results
# (a KUnit suite, or a parameterised test case) is a parent and is not
# counted itself. A "# SKIP" directive counts as skipped whether the line
# says "ok" or "not ok"; "not ok ... # TODO" counts as skipped too. Results
# a plan announced but that never appeared (a crash mid-run) count as
# failed, as does "Bail out!" and a file that is missing or has neither a
# plan nor a result. "1..0 # SKIP reason" counts as one skipped test.
#
# Default output: one line per file, "FILE: N passed, N failed, N skipped",
# then the name of every failed leaf, indented, with the diagnostic line
# ("# ...") printed just before it, if any, so that a summary says why
# (a log that is gone by the time it is read). With --counts, print only
# the totals over all files as "PASSED FAILED SKIPPED".

import re
import sys

RESULT = re.compile(r'^(?P<indent>\s*)(?P<ok>not ok|ok)\b\s*(?P<num>\d+)?\s*(?:-\s*)?'
                    r'(?P<desc>[^#]*?)\s*(?:#\s*(?P<directive>.*))?$')
PLAN = re.compile(r'^(?P<indent>\s*)1\.\.(?P<n>\d+)\b\s*(?:#\s*(?P<directive>.*))?')
SUBTEST = re.compile(r'^(?P<indent>\s*)#\s*Subtest:\s*(?P<name>.*\S)')
VERSION = re.compile(r'^(?P<indent>\s*)(KTAP|TAP) version \d+')
BAIL = re.compile(r'^\s*Bail out!(?P<why>.*)')
DIAG = re.compile(r'^\s*#\s*(?P<text>\S.*?)\s*$')


def width(indent):
    return len(indent.expandtabs(8))


class Frame:
    """One block of sibling results at one indentation."""

    def __init__(self, indent, plan=None, name=None, failed=0):
        self.indent = indent
        self.failed_before = failed
        self.plan = plan
        self.seen = 0
        self.name = name


class Summary:
    def __init__(self, label):
        self.label = label
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.failures = []

    def fail(self, name):
        self.failed += 1
        self.failures.append(name)


def parse(path):
    s = Summary(path)
    try:
        with open(path, errors='replace') as f:
            lines = f.read().splitlines()
    except OSError as e:
        s.fail('(cannot read file: %s)' % e.strerror)
        return s

    frames = []          # innermost last
    prev_indent = None   # indentation of the previous result line
    any_result = False
    any_plan = False
    pending_name = {}    # indent -> name from "# Subtest:"
    last_diag = None     # the "# ..." line just before this one, if any

    def path_of(indent, desc):
        names = [fr.name for fr in frames if fr.indent <= indent and fr.name]
        return '.'.join(names + [desc or '?'])

    def close(fr):
        if fr.plan is not None and fr.seen < fr.plan:
            missing = fr.plan - fr.seen
            s.failed += missing
            s.failures.append('%s (%d of %d results missing)' %
                              (path_of(fr.indent, fr.name or ('<top>' if fr.indent == 0 else '<subtests>')),
                               missing, fr.plan))

    for line in lines:
        line = line.rstrip('\r')
        m = BAIL.match(line)
        if m:
            s.fail('Bail out!' + m.group('why'))
            continue
        m = VERSION.match(line)
        if m:
            ind = width(m.group('indent'))
            # A new document at the outermost level: close what was open.
            if ind == 0:
                while frames:
                    close(frames.pop())
                prev_indent = None
            continue
        m = SUBTEST.match(line)
        if m:
            pending_name[width(m.group('indent'))] = m.group('name')
            last_diag = None
            continue
        m = DIAG.match(line)
        if m:
            last_diag = m.group('text')
            continue
        diag, last_diag = last_diag, None
        m = PLAN.match(line)
        if m:
            any_plan = True
            ind = width(m.group('indent'))
            # "1..0 # SKIP why": the whole document is skipped; count it
            # once so that the skip shows.
            if (int(m.group('n')) == 0 and
                    (m.group('directive') or '').upper().startswith('SKIP')):
                s.skipped += 1
            while frames and frames[-1].indent >= ind:
                close(frames.pop())
            frames.append(Frame(ind, int(m.group('n')), pending_name.pop(ind, None),
                                s.failed))
            continue
        m = RESULT.match(line)
        if not m:
            continue
        any_result = True
        ind = width(m.group('indent'))
        # Deeper blocks end here: they were this result's subtests.
        parent = prev_indent is not None and prev_indent > ind
        child_failed_before = None
        while frames and frames[-1].indent > ind:
            fr = frames.pop()
            close(fr)
            parent = True
            child_failed_before = fr.failed_before
        if not frames or frames[-1].indent < ind:
            frames.append(Frame(ind, None, pending_name.pop(ind, None), s.failed))
        frames[-1].seen += 1
        prev_indent = ind
        directive = (m.group('directive') or '').strip()
        word = directive.split(None, 1)[0].upper() if directive else ''
        name = path_of(ind, m.group('desc').strip())
        if parent:
            # A parent counts only when it failed although none of its
            # subtests did (a test program that crashed or timed out after
            # printing its own results).
            if (m.group('ok') == 'not ok' and word not in ('SKIP', 'TODO') and
                    child_failed_before is not None and
                    s.failed == child_failed_before):
                s.fail(name + (' # ' + directive if directive else ''))
            continue
        if word == 'SKIP' or (word == 'TODO' and m.group('ok') == 'not ok'):
            s.skipped += 1
        elif m.group('ok') == 'ok':
            s.passed += 1
        else:
            s.fail(name + (' (%s)' % diag[:300] if diag else ''))

    while frames:
        close(frames.pop())
    if not any_result and not any_plan and s.failed == 0:
        s.fail('(no test results in file)')
    return s


def main(argv):
    counts = '--counts' in argv
    quiet = '--quiet' in argv
    files = [a for a in argv if not a.startswith('--')]
    if not files:
        print('usage: ktap-summary.py [--counts] [--quiet] FILE...', file=sys.stderr)
        return 2
    tp = tf = ts = 0
    for path in files:
        s = parse(path)
        tp += s.passed
        tf += s.failed
        ts += s.skipped
        if counts:
            continue
        print('%s: %d passed, %d failed, %d skipped' %
              (s.label, s.passed, s.failed, s.skipped))
        if not quiet:
            for name in s.failures:
                print('    not ok: %s' % name)
    if counts:
        print(tp, tf, ts)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
