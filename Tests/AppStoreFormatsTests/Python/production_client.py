#!/usr/bin/env python3
"""Call a store signing as Production with Apple's AppStoreServerAPIClient, and verify what it returns in Production mode.

Usage: production_client.py --base-url URL --key-file P8 --key-id ID --issuer ID --bundle-id ID --app-apple-id N
                            --root CERT.der [--root ...] --transaction-id ID

The verifier is SignedDataVerifier(roots, False, Environment.PRODUCTION, bundle_id, app_apple_id), as a backend in
production constructs it. Prints one JSON object: the appAppleId and environment of the history and statuses
responses, and each signed payload's decoded fields (transaction, renewal info, app transaction). A payload the
verifier refuses is reported with its VerificationStatus. Exits 3 when the library is not installed.
"""
import argparse
import json
import sys

try:
    from appstoreserverlibrary.api_client import AppStoreServerAPIClient, GetTransactionHistoryVersion
    from appstoreserverlibrary.models.Environment import Environment
    from appstoreserverlibrary.models.TransactionHistoryRequest import TransactionHistoryRequest
    from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
except ImportError as error:  # pragma: no cover - reported to the Swift test
    print(json.dumps({"status": "MISSING_LIBRARY", "error": f"{error}; run: pip install app-store-server-library==3.1.2"}))
    sys.exit(3)


def decoded_id(transaction):
    """The transaction's identifier, or the refusal when the verifier refused it."""
    return transaction if isinstance(transaction, dict) else transaction.transactionId


def main():
    parser = argparse.ArgumentParser()
    for name in ["--base-url", "--key-file", "--key-id", "--issuer", "--bundle-id", "--transaction-id"]:
        parser.add_argument(name, required=True)
    parser.add_argument("--app-apple-id", type=int, required=True)
    parser.add_argument("--root", action="append", required=True)
    args = parser.parse_args()
    roots = [open(path, "rb").read() for path in args.root]
    verifier = SignedDataVerifier(roots, False, Environment.PRODUCTION, args.bundle_id, args.app_apple_id)
    client = AppStoreServerAPIClient(open(args.key_file, "rb").read(), args.key_id, args.issuer, args.bundle_id, Environment.PRODUCTION)
    client._base_url = args.base_url

    def verified(method, token):
        try:
            return method(token)
        except VerificationException as error:
            return {"refused": error.status.name}

    result = {}
    transaction = verified(verifier.verify_and_decode_signed_transaction, client.get_transaction_info(args.transaction_id).signedTransactionInfo)
    result["transaction"] = transaction if isinstance(transaction, dict) else {"environment": transaction.rawEnvironment, "transactionId": transaction.transactionId}

    statuses = client.get_all_subscription_statuses(args.transaction_id)
    last = statuses.data[0].lastTransactions[0]
    renewal = verified(verifier.verify_and_decode_renewal_info, last.signedRenewalInfo)
    result["statuses"] = {"appAppleId": statuses.appAppleId, "environment": statuses.rawEnvironment,
                          "renewalInfo": renewal if isinstance(renewal, dict) else {"environment": renewal.rawEnvironment}}

    history = client.get_transaction_history(args.transaction_id, None, TransactionHistoryRequest(), GetTransactionHistoryVersion.V2)
    result["history"] = {"appAppleId": history.appAppleId, "environment": history.rawEnvironment,
                         "transactions": [decoded_id(verified(verifier.verify_and_decode_signed_transaction, t)) for t in history.signedTransactions]}

    app = verified(verifier.verify_and_decode_app_transaction, client.get_app_transaction_info(args.transaction_id).signedAppTransactionInfo)
    result["appTransaction"] = app if isinstance(app, dict) else {
        "appAppleId": app.appAppleId, "receiptType": app.rawReceiptType, "versionExternalIdentifier": app.versionExternalIdentifier,
        "applicationVersion": app.applicationVersion, "originalApplicationVersion": app.originalApplicationVersion,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
