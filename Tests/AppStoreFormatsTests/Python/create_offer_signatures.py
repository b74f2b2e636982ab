#!/usr/bin/env python3
"""Create promotional offer signatures with Apple's app-store-server-library at a fixed time.

Usage: create_offer_signatures.py KEY_PEM KEY_ID BUNDLE_ID PRODUCT_ID OFFER_ID APP_ACCOUNT_TOKEN NONCE TIMESTAMP_MS

Prints {"v1": "<base64 DER signature>", "v2": "<compact JWS>"}. The V2 token's iat is TIMESTAMP_MS / 1000
(the library reads the clock, so it is pinned here). Exits 3 when the library is not installed.
"""
import datetime
import json
import sys
import uuid

try:
    import appstoreserverlibrary.jws_signature_creator as jws_signature_creator
    from appstoreserverlibrary.jws_signature_creator import PromotionalOfferV2SignatureCreator
    from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator
except ImportError as error:  # pragma: no cover - reported to the Swift test
    print(json.dumps({"status": "MISSING_LIBRARY",
                      "error": f"{error}; run: pip install app-store-server-library==3.1.2"}))
    sys.exit(3)


def main():
    key_file, key_id, bundle_id, product_id, offer_id, token, nonce, timestamp = sys.argv[1:9]
    key = open(key_file, "rb").read()
    fixed = datetime.datetime.fromtimestamp(int(timestamp) // 1000, datetime.timezone.utc)

    class FixedDatetime(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return fixed

    timezone = datetime.timezone

    class FixedDatetimeModule:
        datetime = FixedDatetime

    FixedDatetimeModule.timezone = timezone

    jws_signature_creator.datetime = FixedDatetimeModule
    v1 = PromotionalOfferSignatureCreator(key, key_id, bundle_id).create_signature(
        product_id, offer_id, token, uuid.UUID(nonce), int(timestamp))
    v2 = PromotionalOfferV2SignatureCreator(key, key_id, "57246542-96fe-1a63-e053-0824d011072a", bundle_id).create_signature(
        product_id, offer_id, None)
    print(json.dumps({"v1": v1, "v2": v2}))


if __name__ == "__main__":
    main()
