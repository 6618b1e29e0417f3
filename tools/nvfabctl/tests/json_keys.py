#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that nvfabctl's JSON has every member nvme-cli's has.

  json_keys.py FIXTURE OURS

FIXTURE is nvme-cli's output (tests/fixtures/), OURS nvfabctl's. Both are
reduced to a schema: an object's members (the union over the elements of
each array) and each value's JSON types. Every member path of FIXTURE must
exist in OURS, with the same kind of container; a scalar of ours is null
or of a type nvme-cli prints there. Members of ours that nvme-cli lacks
are nvfab's additions and are fine. An array that is empty in OURS but not
in FIXTURE cannot be checked and fails. Prints one line per problem; exit
status 0 when there is none.
"""
import json
import sys


def kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def schema(v, into=None):
    """Fold value v into schema into: {"types", "members", "items"}."""
    s = into if into is not None else {"types": set(), "members": {},
                                       "items": None}
    s["types"].add(kind(v))
    if isinstance(v, dict):
        for k, x in v.items():
            s["members"][k] = schema(x, s["members"].get(k))
    elif isinstance(v, list):
        for x in v:
            s["items"] = schema(x, s["items"])
    return s


def check(fx, ours, path, problems):
    ftypes = fx["types"] - {"null"}
    otypes = ours["types"] - {"null"}
    if otypes - ftypes and ftypes:
        problems.append("%s: ours is %s, nvme-cli's %s" %
                        (path, "/".join(sorted(otypes)),
                         "/".join(sorted(ftypes))))
        return
    for k, sub in fx["members"].items():
        if k not in ours["members"]:
            problems.append("%s: member %r missing" % (path, k))
        else:
            check(sub, ours["members"][k], "%s.%s" % (path, k), problems)
    if fx["items"] is not None:
        if ours["items"] is None:
            if "array" in otypes:
                problems.append("%s: array empty in ours, cannot compare"
                                % path)
        else:
            check(fx["items"], ours["items"], path + "[]", problems)


def main():
    if len(sys.argv) != 3:
        print("usage: json_keys.py FIXTURE OURS", file=sys.stderr)
        return 2
    docs = []
    for name in sys.argv[1:]:
        try:
            with open(name) as f:
                docs.append(json.load(f))
        except (OSError, ValueError) as e:
            print("%s: %s" % (name, e))
            return 1
    problems = []
    check(schema(docs[0]), schema(docs[1]), "$", problems)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
