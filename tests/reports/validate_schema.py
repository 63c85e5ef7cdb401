"""Validates JSON files against ampbench's report schema with the jsonschema package.

usage: validate_schema.py SCHEMA FILE...   exit 0 if every file is valid, 1 otherwise (each error
printed as "FILE: path: message"), 2 if the schema itself is not a valid draft 2020-12 schema.
"""
import json
import sys

import jsonschema


def main(argv):
    with open(argv[1]) as handle:
        schema = json.load(handle)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        print(f"{argv[1]}: not a valid draft 2020-12 schema: {error.message}")
        return 2
    validator = jsonschema.Draft202012Validator(schema)
    invalid = False
    for name in argv[2:]:
        with open(name) as handle:
            # Python's json accepts NaN and Infinity; a strict reader must not.
            document = json.load(handle, parse_constant=lambda literal: sys.exit(f"{name}: bare {literal}"))
        for error in validator.iter_errors(document):
            invalid = True
            print(f"{name}: {'/'.join(str(part) for part in error.absolute_path)}: {error.message}")
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
