#!/usr/bin/env python3
"""Send Consumption Information for a transaction with Apple's AppStoreServerAPIClient, as an app's server answers a
CONSUMPTION_REQUEST: version 1 (send_consumption_data, ConsumptionRequestV1) and version 2
(send_consumption_information, ConsumptionRequest), then one v2 request without the customer's consent.

Usage: send_consumption.py --base-url URL --key-file P8 --key-id ID --issuer ID --bundle-id ID --transaction-id ID

Prints one JSON object: "v1" and "v2" are "accepted" or Apple's error code, "withoutConsent" the error code the store
answered. Exits 3 when the library is not installed.
"""
import argparse
import json
import sys

try:
    from appstoreserverlibrary.api_client import AppStoreServerAPIClient, APIException
    from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
    from appstoreserverlibrary.models.ConsumptionRequestV1 import ConsumptionRequestV1
    from appstoreserverlibrary.models.ConsumptionStatus import ConsumptionStatus
    from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
    from appstoreserverlibrary.models.DeliveryStatusV1 import DeliveryStatusV1
    from appstoreserverlibrary.models.Environment import Environment
    from appstoreserverlibrary.models.RefundPreference import RefundPreference
except ImportError as error:  # pragma: no cover - reported to the Swift test
    print(json.dumps({"status": "MISSING_LIBRARY", "error": f"{error}; run: pip install app-store-server-library==3.1.2"}))
    sys.exit(3)


def attempt(call):
    try:
        call()
        return "accepted"
    except APIException as error:
        return error.raw_api_error if error.raw_api_error is not None else error.http_status_code


def main():
    parser = argparse.ArgumentParser()
    for name in ["--base-url", "--key-file", "--key-id", "--issuer", "--bundle-id", "--transaction-id"]:
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    client = AppStoreServerAPIClient(open(args.key_file, "rb").read(), args.key_id, args.issuer, args.bundle_id, Environment.SANDBOX)
    client._base_url = args.base_url
    result = {
        "v1": attempt(lambda: client.send_consumption_data(args.transaction_id, ConsumptionRequestV1(
            customerConsented=True, consumptionStatus=ConsumptionStatus.PARTIALLY_CONSUMED, platform=None,
            sampleContentProvided=False, deliveryStatus=DeliveryStatusV1.DELIVERED_AND_WORKING_PROPERLY))),
        "v2": attempt(lambda: client.send_consumption_information(args.transaction_id, ConsumptionRequest(
            customerConsented=True, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED,
            consumptionPercentage=40000, refundPreference=RefundPreference.GRANT_PRORATED))),
        "withoutConsent": attempt(lambda: client.send_consumption_information(args.transaction_id, ConsumptionRequest(
            customerConsented=False, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED))),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
