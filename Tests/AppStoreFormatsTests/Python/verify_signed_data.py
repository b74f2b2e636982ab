#!/usr/bin/env python3
"""Verify a JWS with Apple's app-store-server-library, offline, and print the outcome as JSON.

Usage:
  verify_signed_data.py KIND TOKEN_FILE --root CERT.der [--root CERT.der ...] --bundle-id ID
                        [--environment SANDBOX|PRODUCTION|XCODE|LOCAL_TESTING] [--app-apple-id N]

KIND is transaction, renewal-info, app-transaction or notification. Prints
{"status": "OK", "payload": {...}} or {"status": "<VerificationStatus name>", "error": "..."}.
Exits 0 either way; exits 3 when the library is not installed.
"""
import argparse
import enum
import json
import sys

try:
    import attr
    from appstoreserverlibrary.models.Environment import Environment
    from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
except ImportError as error:  # pragma: no cover - reported to the Swift test
    print(json.dumps({"status": "MISSING_LIBRARY",
                      "error": f"{error}; run: pip install app-store-server-library==3.1.2"}))
    sys.exit(3)


def to_json(value):
    if isinstance(value, enum.Enum):
        return value.value
    raise TypeError(f"cannot serialise {type(value)}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["transaction", "renewal-info", "app-transaction", "notification"])
    parser.add_argument("token_file")
    parser.add_argument("--root", action="append", required=True)
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--environment", default="SANDBOX")
    parser.add_argument("--app-apple-id", type=int)
    args = parser.parse_args()

    roots = [open(path, "rb").read() for path in args.root]
    token = open(args.token_file).read().strip()
    verifier = SignedDataVerifier(roots, False, Environment[args.environment], args.bundle_id, args.app_apple_id)
    method = {
        "transaction": verifier.verify_and_decode_signed_transaction,
        "renewal-info": verifier.verify_and_decode_renewal_info,
        "app-transaction": verifier.verify_and_decode_app_transaction,
        "notification": verifier.verify_and_decode_notification,
    }[args.kind]
    try:
        payload = method(token)
    except VerificationException as error:
        print(json.dumps({"status": error.status.name, "error": str(error)}))
        return
    print(json.dumps({"status": "OK", "payload": attr.asdict(payload)}, default=to_json))


if __name__ == "__main__":
    main()
