#!/usr/bin/env python3
"""Ask a store for a test notification with Apple's AppStoreServerAPIClient, then read back its status.

Usage: request_test_notification.py --base-url URL --key-file P8 --key-id ID --issuer ID --bundle-id ID --root CERT.der

Prints {"token": ..., "notificationType": ..., "sendAttempts": [...]} with the status's signedPayload verified by
SignedDataVerifier, or {"errorCode": N} when the store refuses. Exits 3 when the library is not installed.
"""
import argparse
import json
import sys

try:
    from appstoreserverlibrary.api_client import AppStoreServerAPIClient, APIException
    from appstoreserverlibrary.models.Environment import Environment
    from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier
except ImportError as error:  # pragma: no cover - reported to the Swift test
    print(json.dumps({"status": "MISSING_LIBRARY", "error": f"{error}; run: pip install app-store-server-library==3.1.2"}))
    sys.exit(3)


def main():
    parser = argparse.ArgumentParser()
    for name in ["--base-url", "--key-file", "--key-id", "--issuer", "--bundle-id", "--root"]:
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    client = AppStoreServerAPIClient(open(args.key_file, "rb").read(), args.key_id, args.issuer, args.bundle_id, Environment.SANDBOX)
    client._base_url = args.base_url
    verifier = SignedDataVerifier([open(args.root, "rb").read()], False, Environment.SANDBOX, args.bundle_id, None)
    try:
        token = client.request_test_notification().testNotificationToken
        status = client.get_test_notification_status(token)
    except APIException as error:
        print(json.dumps({"errorCode": error.raw_api_error}))
        return
    decoded = verifier.verify_and_decode_notification(status.signedPayload)
    print(json.dumps({
        "token": token,
        "notificationType": decoded.rawNotificationType,
        "notificationUUID": decoded.notificationUUID,
        "sendAttempts": [attempt.rawSendAttemptResult for attempt in status.sendAttempts],
    }))


if __name__ == "__main__":
    main()
