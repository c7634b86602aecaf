#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check Documentation/netlink/specs/mrc.yaml against the kernel and our header.

  check_netlink_spec.py SPEC SCHEMA_DIR UAPI_DIR

1. The spec validates against the schema its `protocol` names, taken from
   the kernel's Documentation/netlink/ (Debian's linux-source-6.12): what
   the kernel's own YNL tooling loads.
2. Every C name a YNL code generator derives from the spec (constants,
   enums and their entries, attribute sets with their count and max names,
   commands, multicast groups) exists in uapi/linux/mrc.h with the value the
   spec gives it: a gcc run over _Static_assert()s, so a renamed, missing
   or renumbered constant fails with its name. A ynl-generated client
   therefore compiles against our header and speaks the same numbers.
"""
import os
import subprocess
import sys
import tempfile

import jsonschema
import yaml


def c_upper(s):
    return s.upper().replace("-", "_")


def derived_names(spec):
    """(C name, value or None for an enum type) pairs, as YNL derives them."""
    fam = spec["name"]
    out = []
    for d in spec.get("definitions", []):
        if d["type"] == "const":
            out.append((c_upper(d.get("name-prefix", fam + "-") + d["name"]), d["value"]))
            continue
        out.append(("enum " + c_upper(d.get("enum-name", fam + "-" + d["name"])).lower(), None))
        pfx = d.get("name-prefix", fam + "-" + d["name"] + "-")
        v = d.get("value-start", 0)
        for e in d.get("entries", []):
            name = e if isinstance(e, str) else e["name"]
            if isinstance(e, dict) and "value" in e:
                v = e["value"]
            out.append((c_upper(pfx + name), v if d["type"] == "enum" else 1 << v))
            v += 1
    for a in spec.get("attribute-sets", []):
        if "subset-of" in a:
            continue
        pfx = a.get("name-prefix", fam + "-a-" + a["name"] + "-")
        out.append(("enum " + c_upper(a.get("enum-name", fam + "-" + a["name"])).lower(), None))
        v = 1
        for x in a["attributes"]:
            if "value" in x:
                v = x["value"]
            out.append((c_upper(pfx + x["name"]), v))
            v += 1
        out.append((c_upper(a.get("attr-cnt-name", "__" + pfx + "max")), v))
        out.append((c_upper(a.get("attr-max-name", pfx + "max")), v - 1))
    ops = spec["operations"]
    pfx = ops.get("name-prefix", fam + "-cmd-")
    v = 1
    for o in ops["list"]:
        if "value" in o:
            v = o["value"]
        out.append((c_upper(pfx + o["name"]), v))
        v += 1
    for g in spec.get("mcast-groups", {}).get("list", []):
        out.append((c_upper(g.get("c-define-name", fam + "-mcgrp-" + g["name"])), '"%s"' % g["name"]))
    return out


def check_header(spec, uapi):
    lines = ["#include <linux/mrc.h>", "#include <string.h>"]
    for name, v in derived_names(spec):
        if v is None:
            lines.append("static %s *chk_%s;" % (name, name.split()[1]))
        elif isinstance(v, str):
            lines.append('_Static_assert(sizeof(%s) == sizeof(%s), "%s");' % (name, v, name))
            lines.append("static const char *chk_%s = %s;" % (name, name))
        else:
            lines.append('_Static_assert(%s == %d, "%s: spec says %d");' % (name, v, name, v))
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    try:
        r = subprocess.run(["gcc", "-fsyntax-only", "-Wno-unused-variable", "-I", uapi, path],
                           capture_output=True, text=True)
    finally:
        os.unlink(path)
    errs = [line for line in r.stderr.splitlines() if "error" in line]
    return r.returncode, errs


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    spec_path, schema_dir, uapi = sys.argv[1:]
    with open(spec_path) as f:
        spec = yaml.safe_load(f)
    with open(os.path.join(schema_dir, spec["protocol"] + ".yaml")) as f:
        schema = yaml.safe_load(f)
    bad = 0
    errs = list(jsonschema.Draft7Validator(schema).iter_errors(spec))
    for e in errs:
        print("spec: %s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message))
    bad |= bool(errs)
    rc, cerrs = check_header(spec, uapi)
    for e in cerrs:
        print("spec vs uapi: " + e.split("error: ", 1)[-1])
    bad |= rc != 0
    n = len(derived_names(spec))
    print("lint: netlink spec: %s schema %s, %d names vs uapi/linux/mrc.h %s" % (
        spec["protocol"], "ok" if not errs else "NOT ok", n, "ok" if rc == 0 else "NOT ok"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
