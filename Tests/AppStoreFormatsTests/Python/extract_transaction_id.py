#!/usr/bin/env python3
"""Extract a transaction ID from an app receipt with Apple's ReceiptUtility and print it as JSON.

Usage: extract_transaction_id.py RECEIPT_FILE   (the file holds DER bytes or base64 text)

Prints {"transactionId": "..."} (null when the receipt has no in-app purchase) or {"error": "..."}.
Exits 3 when the library is not installed.
"""
import base64
import json
import sys

try:
    from appstoreserverlibrary.receipt_utility import ReceiptUtility
except ImportError as error:  # pragma: no cover - reported to the Swift test
    print(json.dumps({"error": f"{error}; run: pip install app-store-server-library==3.1.2", "status": "MISSING_LIBRARY"}))
    sys.exit(3)


def main():
    data = open(sys.argv[1], "rb").read()
    if data[:1] == b"\x30":
        text = base64.b64encode(data).decode()
    else:
        text = "".join(data.decode().split())
    try:
        transaction_id = ReceiptUtility().extract_transaction_id_from_app_receipt(text)
    except Exception as error:  # the library turns every failure into ValueError
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
        return
    print(json.dumps({"transactionId": transaction_id}))


if __name__ == "__main__":
    main()
