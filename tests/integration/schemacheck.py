#!/usr/bin/env python3
"""schemacheck.py - check jailrun's JSON output against docs/schema/.

Usage: schemacheck.py SCHEMA [--lines] FILE...
  each FILE is one JSON document, or with --lines one per non-empty line
  (an audit log). Prints one line per document; exits 1 if any fails.

The python module jsonschema is not always installed (and there is no
network to install it), so this carries a small validator for the part of
JSON Schema (draft 2020-12) that docs/schema uses: type, required,
properties, additionalProperties, enum, items, pattern and oneOf, plus the
annotations $schema, $id, title and description. A schema that uses any
other keyword is refused, not half-checked. Where jsonschema is
installed, every document is checked by it too and both must agree, so
the small validator is itself checked against the reference one.
"""
import json
import re
import sys

KNOWN = {"type", "required", "properties", "additionalProperties", "enum",
         "items", "pattern", "oneOf"}
ANNOTATIONS = {"$schema", "$id", "title", "description"}


def type_ok(value, name):
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    raise ValueError("unknown type %r in the schema" % name)


def check_keywords(schema, where):
    """Refuse a schema that uses a keyword this validator does not do."""
    if isinstance(schema, bool):
        return
    for key in schema:
        if key not in KNOWN and key not in ANNOTATIONS:
            raise ValueError("%s: the schema uses %r, which schemacheck.py "
                             "does not implement" % (where or "/", key))
    for key, sub in schema.get("properties", {}).items():
        check_keywords(sub, where + "/properties/" + key)
    for key in ("additionalProperties", "items"):
        if key in schema:
            check_keywords(schema[key], where + "/" + key)
    for i, sub in enumerate(schema.get("oneOf", [])):
        check_keywords(sub, "%s/oneOf/%d" % (where, i))


def validate(value, schema, path="$"):
    """Return the list of errors of @value against @schema."""
    if schema is True:
        return []
    if schema is False:
        return ["%s: not allowed here" % path]
    errors = []
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) \
            else [schema["type"]]
        if not any(type_ok(value, n) for n in names):
            return ["%s: %r is not of type %s" % (path, value, names)]
    if "enum" in schema and not any(
            type(value) is type(e) and value == e for e in schema["enum"]):
        errors.append("%s: %r is not one of %r" % (path, value, schema["enum"]))
    if "pattern" in schema and isinstance(value, str) and \
            not re.search(schema["pattern"], value):
        errors.append("%s: %r does not match %r" % (path, value,
                                                     schema["pattern"]))
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errors.append("%s: %r is required" % (path, key))
        for key, sub in value.items():
            if key in props:
                errors += validate(sub, props[key], "%s.%s" % (path, key))
            elif "additionalProperties" in schema:
                errors += validate(sub, schema["additionalProperties"],
                                   "%s.%s" % (path, key))
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            errors += validate(item, schema["items"], "%s[%d]" % (path, i))
    if "oneOf" in schema:
        matched = [i for i, sub in enumerate(schema["oneOf"])
                   if not validate(value, sub, path)]
        if len(matched) != 1:
            why = [validate(value, sub, path) for sub in schema["oneOf"]]
            errors.append("%s: matches %d of oneOf's schemas, not 1 (%s)"
                          % (path, len(matched), why))
    return errors


def reference_validator(schema):
    try:
        import jsonschema
    except ImportError:
        return None
    return jsonschema.Draft202012Validator(schema)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    schema = json.load(open(argv[1]))
    check_keywords(schema, "")
    lines = argv[2] == "--lines"
    files = argv[3:] if lines else argv[2:]
    ref = reference_validator(schema)
    failed = 0
    for name in files:
        text = open(name).read()
        docs = [l for l in text.splitlines() if l.strip()] if lines else [text]
        if not docs:
            print("FAIL %s: no document" % name)
            failed += 1
        for n, doc in enumerate(docs, 1):
            where = "%s:%d" % (name, n) if lines else name
            try:
                value = json.loads(doc)
            except ValueError as e:
                print("FAIL %s: not JSON: %s" % (where, e))
                failed += 1
                continue
            errors = validate(value, schema)
            if ref is not None:
                ref_ok = ref.is_valid(value)
                if ref_ok == bool(errors):
                    errors.append("schemacheck.py and jsonschema disagree "
                                  "(jsonschema says %s)" %
                                  ("valid" if ref_ok else "invalid"))
            if errors:
                print("FAIL %s: %s" % (where, "; ".join(errors)))
                failed += 1
            else:
                print("ok %s" % where)
    print("checked with schemacheck.py%s" %
          (" and jsonschema" if ref is not None else
           " only (no jsonschema module)"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main(sys.argv)
