#!/usr/bin/env python3
"""A backend's code as it runs against Apple, unchanged: Apple's AppStoreServerAPIClient in one of its environments,
and verifyReceipt posted to Apple's sandbox URL with requests. Run where Apple's hosts resolve to a store and its TLS
root is trusted through REQUESTS_CA_BUNDLE.

Usage: apple_hosts_client.py --environment SANDBOX|LOCAL_TESTING --key-file P8 --key-id ID --issuer ID
                             --bundle-id ID --root CERT.der --transaction-id ID [--receipt FILE]

Prints one JSON object: the transaction's payload as SignedDataVerifier decoded it (or the error), the products of
the customer's transaction history, the verifyReceipt status and environment. The verifier expects Sandbox whatever the client's environment: the store signs as Sandbox. Exits 3 when the library is not installed.
"""
import argparse
import base64
import json
import sys

try:
    import requests
    from appstoreserverlibrary.api_client import AppStoreServerAPIClient, APIException, GetTransactionHistoryVersion
    from appstoreserverlibrary.models.TransactionHistoryRequest import TransactionHistoryRequest
    from appstoreserverlibrary.models.Environment import Environment
    from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier
except ImportError as error:  # pragma: no cover - reported to the Swift test
    print(json.dumps({"status": "MISSING_LIBRARY", "error": f"{error}; run: pip install app-store-server-library==3.1.2"}))
    sys.exit(3)


def main():
    parser = argparse.ArgumentParser()
    for name in ["--environment", "--key-file", "--key-id", "--issuer", "--bundle-id", "--root", "--transaction-id"]:
        parser.add_argument(name, required=True)
    parser.add_argument("--receipt")
    args = parser.parse_args()
    environment = Environment[args.environment]
    result = {}

    # As the library's README constructs it: nothing points it anywhere but Apple.
    client = AppStoreServerAPIClient(open(args.key_file, "rb").read(), args.key_id, args.issuer, args.bundle_id, environment)
    verifier = SignedDataVerifier([open(args.root, "rb").read()], False, Environment.SANDBOX, args.bundle_id, None)
    try:
        info = client.get_transaction_info(args.transaction_id)
        payload = verifier.verify_and_decode_signed_transaction(info.signedTransactionInfo)
        result["transaction"] = {"transactionId": payload.transactionId, "productId": payload.productId, "environment": payload.rawEnvironment}
        history = client.get_transaction_history(args.transaction_id, None, TransactionHistoryRequest(), GetTransactionHistoryVersion.V2)
        result["history"] = [verifier.verify_and_decode_signed_transaction(signed).productId for signed in history.signedTransactions]
    except APIException as error:
        result["transaction"] = {"httpStatus": error.http_status_code, "errorCode": error.raw_api_error}
    except Exception as error:  # a TLS or name failure: reported, not raised
        result["transaction"] = {"error": f"{type(error).__name__}: {error}"}

    if args.receipt:
        # What community verifyReceipt clients do: Apple's sandbox URL, hard-coded.
        receipt = base64.b64encode(open(args.receipt, "rb").read()).decode()
        try:
            answer = requests.post("https://sandbox.itunes.apple.com/verifyReceipt", json={"receipt-data": receipt}, timeout=30).json()
            result["verifyReceipt"] = {"status": answer.get("status"), "environment": answer.get("environment")}
        except Exception as error:
            result["verifyReceipt"] = {"error": f"{type(error).__name__}: {error}"}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
