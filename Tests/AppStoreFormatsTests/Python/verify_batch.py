#!/usr/bin/env python3
"""Verify many signed items and receipts with Apple's app-store-server-library in one process.

Usage: verify_batch.py BATCH_FILE --root CERT.der [--root ...] --bundle-id ID [--environment SANDBOX|PRODUCTION] [--app-apple-id N]

BATCH_FILE is JSON: [{"kind": "transaction" | "renewal-info" | "app-transaction" | "notification" | "receipt", "data": "..."}].
A receipt's data is base64. Prints one JSON array with, per item, {"status": "OK", "payload": {...}} or
{"status": "<VerificationStatus name>", "error": "..."}; a receipt's payload is {"transactionId": ...}, the
transaction identifier ReceiptUtility extracts. Exits 3 when the library is not installed.
"""
import argparse
import enum
import json
import sys

try:
    import attr
    from appstoreserverlibrary.models.Environment import Environment
    from appstoreserverlibrary.receipt_utility import ReceiptUtility
    from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
except ImportError as error:  # pragma: no cover - reported to the Swift test
    print(json.dumps({"status": "MISSING_LIBRARY", "error": f"{error}; run: pip install app-store-server-library==3.1.2"}))
    sys.exit(3)


def to_json(value):
    if isinstance(value, enum.Enum):
        return value.value
    raise TypeError(f"cannot serialise {type(value)}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("batch_file")
    parser.add_argument("--root", action="append", required=True)
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--environment", default="SANDBOX")
    parser.add_argument("--app-apple-id", type=int)
    args = parser.parse_args()

    roots = [open(path, "rb").read() for path in args.root]
    verifier = SignedDataVerifier(roots, False, Environment[args.environment], args.bundle_id, args.app_apple_id)
    methods = {
        "transaction": verifier.verify_and_decode_signed_transaction,
        "renewal-info": verifier.verify_and_decode_renewal_info,
        "notification": verifier.verify_and_decode_notification,
        "app-transaction": verifier.verify_and_decode_app_transaction,
    }
    results = []
    for item in json.load(open(args.batch_file)):
        if item["kind"] == "receipt":
            try:
                transaction_id = ReceiptUtility().extract_transaction_id_from_app_receipt(item["data"])
                results.append({"status": "OK", "payload": {"transactionId": transaction_id}})
            except Exception as error:  # the library turns every failure into ValueError
                results.append({"status": "RECEIPT_ERROR", "error": f"{type(error).__name__}: {error}"})
            continue
        try:
            payload = methods[item["kind"]](item["data"])
            results.append({"status": "OK", "payload": attr.asdict(payload)})
        except VerificationException as error:
            results.append({"status": error.status.name, "error": str(error)})
    print(json.dumps(results, default=to_json))


if __name__ == "__main__":
    main()
