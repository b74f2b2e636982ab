#!/usr/bin/env python3
"""Call a store's App Store Server API with Apple's AppStoreServerAPIClient, and verify what it returns.

Usage: server_api_client.py [--base-url URL] --key-file P8 --key-id ID --issuer ID --bundle-id ID
                            --root CERT.der [--root ...] --transaction-id ID

The client is constructed as the library's README shows (Environment.SANDBOX). With --base-url its base URL is pointed
at the store; without, it is left as Apple's library sets it (https://api.storekit-sandbox.apple.com), for a store
answering at Apple's own address. Prints one JSON object: the transaction info and subscription statuses with every signed payload verified and
decoded by SignedDataVerifier, the error an unknown transaction gets, and the HTTP status a token signed by an unknown
key gets. Exits 3 when the library is not installed.
"""
import argparse
import enum
import json
import sys

try:
    import attr
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from appstoreserverlibrary.api_client import AppStoreServerAPIClient, APIException, GetTransactionHistoryVersion
    from appstoreserverlibrary.models.Environment import Environment
    from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
    from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
    from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
    from appstoreserverlibrary.models.MassExtendRenewalDateRequest import MassExtendRenewalDateRequest
    from appstoreserverlibrary.models.ExtendRenewalDateRequest import ExtendRenewalDateRequest
    from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
    from appstoreserverlibrary.models.UpdateAppAccountTokenRequest import UpdateAppAccountTokenRequest
    from appstoreserverlibrary.models.TransactionHistoryRequest import TransactionHistoryRequest, Order, ProductType
    from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier
except ImportError as error:  # pragma: no cover - reported to the Swift test
    print(json.dumps({"status": "MISSING_LIBRARY", "error": f"{error}; run: pip install app-store-server-library==3.1.2"}))
    sys.exit(3)


def to_json(value):
    if isinstance(value, enum.Enum):
        return value.value
    raise TypeError(f"cannot serialise {type(value)}")


def client_for(base_url, signing_key, key_id, issuer, bundle_id):
    client = AppStoreServerAPIClient(signing_key, key_id, issuer, bundle_id, Environment.SANDBOX)
    if base_url is not None:
        client._base_url = base_url
    return client


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url")
    for name in ["--key-file", "--key-id", "--issuer", "--bundle-id", "--transaction-id", "--subscription-product",
                 "--order-id", "--consumable-id"]:
        parser.add_argument(name, required=True)
    parser.add_argument("--root", action="append", required=True)
    args = parser.parse_args()
    verifier = SignedDataVerifier([open(path, "rb").read() for path in args.root], False, Environment.SANDBOX, args.bundle_id, None)
    client = client_for(args.base_url, open(args.key_file, "rb").read(), args.key_id, args.issuer, args.bundle_id)
    result = {}

    info = client.get_transaction_info(args.transaction_id)
    result["transactionInfo"] = attr.asdict(verifier.verify_and_decode_signed_transaction(info.signedTransactionInfo))

    statuses = client.get_all_subscription_statuses(args.transaction_id)
    groups = []
    for group in statuses.data or []:
        items = []
        for item in group.lastTransactions or []:
            items.append({
                "status": item.rawStatus,
                "originalTransactionId": item.originalTransactionId,
                "transaction": attr.asdict(verifier.verify_and_decode_signed_transaction(item.signedTransactionInfo)),
                "renewalInfo": attr.asdict(verifier.verify_and_decode_renewal_info(item.signedRenewalInfo)),
            })
        groups.append({"subscriptionGroupIdentifier": group.subscriptionGroupIdentifier, "lastTransactions": items})
    result["statuses"] = {"environment": statuses.rawEnvironment, "bundleId": statuses.bundleId, "data": groups}

    # A renewal-date extension, then one Apple refuses; an app account token, then one that is not a UUID.
    before = verifier.verify_and_decode_signed_transaction(info.signedTransactionInfo).expiresDate
    extended = client.extend_subscription_renewal_date(args.transaction_id, ExtendRenewalDateRequest(
        extendByDays=30, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier="c7f3a1d2-0000-4000-8000-000000000001"))
    after = verifier.verify_and_decode_signed_transaction(client.get_transaction_info(args.transaction_id).signedTransactionInfo)
    result["extension"] = {"success": extended.success, "effectiveDate": extended.effectiveDate, "before": before, "after": after.expiresDate,
                           "originalTransactionId": extended.originalTransactionId}
    try:
        client.extend_subscription_renewal_date(args.transaction_id, ExtendRenewalDateRequest(
            extendByDays=91, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier="c7f3a1d2-0000-4000-8000-000000000002"))
        result["tooLongExtension"] = "no error"
    except APIException as error:
        result["tooLongExtension"] = error.raw_api_error
    client.set_app_account_token(args.transaction_id, UpdateAppAccountTokenRequest("7e3fb20b-4cdb-47cc-936d-99d65f608138"))
    result["appAccountToken"] = verifier.verify_and_decode_signed_transaction(client.get_transaction_info(args.transaction_id).signedTransactionInfo).appAccountToken
    try:
        client.set_app_account_token(args.transaction_id, UpdateAppAccountTokenRequest("not-a-uuid"))
        result["badAppAccountToken"] = "no error"
    except APIException as error:
        result["badAppAccountToken"] = error.raw_api_error

    # Every active subscriber of a product at once, and the request's status; then an unknown request.
    client.extend_renewal_date_for_all_active_subscribers(MassExtendRenewalDateRequest(
        extendByDays=3, extendReasonCode=ExtendReasonCode.SERVICE_ISSUE_OR_OUTAGE, requestIdentifier="mass-1",
        productId=args.subscription_product))
    mass = client.get_status_of_subscription_renewal_date_extensions("mass-1", args.subscription_product)
    result["massExtension"] = {"complete": mass.complete, "succeededCount": mass.succeededCount, "failedCount": mass.failedCount}
    try:
        client.get_status_of_subscription_renewal_date_extensions("mass-unknown", args.subscription_product)
        result["unknownMassExtension"] = "no error"
    except APIException as error:
        result["unknownMassExtension"] = error.raw_api_error

    app_transaction = verifier.verify_and_decode_app_transaction(client.get_app_transaction_info(args.transaction_id).signedAppTransactionInfo)
    result["appTransaction"] = {"bundleId": app_transaction.bundleId, "appTransactionId": app_transaction.appTransactionId,
                                "receiptType": app_transaction.rawReceiptType}

    # The same customer named by the appTransactionId, where Apple takes "any transactionId, originalTransactionId or
    # appTransactionId"; Get Transaction Info refuses one (4000048).
    app_transaction_id = app_transaction.appTransactionId
    by_app = {}
    for version in [GetTransactionHistoryVersion.V1, GetTransactionHistoryVersion.V2]:
        pages = [client.get_transaction_history(any_id, None, TransactionHistoryRequest(), version) for any_id in [app_transaction_id, args.transaction_id]]
        by_app[f"history{version.value}"] = [[verifier.verify_and_decode_signed_transaction(t).transactionId for t in page.signedTransactions] for page in pages]
    app_statuses = client.get_all_subscription_statuses(app_transaction_id)
    last_transactions = [item for group in app_statuses.data or [] for item in group.lastTransactions or []]
    by_app["statuses"] = [item.originalTransactionId for item in last_transactions]
    by_app["renewalInfoAppTransactionIds"] = [verifier.verify_and_decode_renewal_info(item.signedRenewalInfo).appTransactionId for item in last_transactions]
    by_app["refunds"] = [verifier.verify_and_decode_signed_transaction(t).transactionId for t in client.get_refund_history(app_transaction_id, None).signedTransactions]
    by_app["appTransactionId"] = verifier.verify_and_decode_app_transaction(client.get_app_transaction_info(app_transaction_id).signedAppTransactionInfo).appTransactionId
    try:
        client.get_transaction_info(app_transaction_id)
        by_app["transactionInfo"] = "no error"
    except APIException as error:
        by_app["transactionInfo"] = {"httpStatus": error.http_status_code, "errorCode": error.raw_api_error,
                                     "apiError": error.api_error.name if error.api_error is not None else None}
    result["byAppTransactionId"] = by_app

    client.send_consumption_information(args.transaction_id, ConsumptionRequest(
        customerConsented=True, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED, consumptionPercentage=25000))
    result["consumption"] = "accepted"
    try:
        client.send_consumption_information(args.transaction_id, ConsumptionRequest(
            customerConsented=False, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED))
        result["consumptionWithoutConsent"] = "no error"
    except APIException as error:
        result["consumptionWithoutConsent"] = error.raw_api_error

    order = client.look_up_order_id(args.order_id)
    result["order"] = {"status": order.rawStatus,
                       "transactionIds": [verifier.verify_and_decode_signed_transaction(t).transactionId for t in order.signedTransactions]}
    result["unknownOrder"] = client.look_up_order_id("MNOSUCHORDER").rawStatus
    client.finish_transaction(args.consumable_id)
    result["finished"] = args.consumable_id

    # Transaction history, every page, in both versions; and only the consumables, newest first.
    for version in [GetTransactionHistoryVersion.V1, GetTransactionHistoryVersion.V2]:
        ids, pages, revision = [], 0, None
        while True:
            page = client.get_transaction_history(args.transaction_id, revision, TransactionHistoryRequest(), version)
            ids += [verifier.verify_and_decode_signed_transaction(t).transactionId for t in page.signedTransactions]
            pages += 1
            revision = page.revision
            if not page.hasMore:
                break
        result[f"history{version.value}"] = {"transactionIds": ids, "pages": pages}
    # The revoked filter as this client sends it (Python's True and False).
    for revoked in [True, False]:
        page = client.get_transaction_history(args.transaction_id, None, TransactionHistoryRequest(revoked=revoked), GetTransactionHistoryVersion.V2)
        result[f"revoked{revoked}"] = [verifier.verify_and_decode_signed_transaction(t).transactionId for t in page.signedTransactions]
    # Date windows at the millisecond the payloads carry: each window [purchaseDate of one, purchaseDate of the next)
    # holds exactly the first.
    first_page = client.get_transaction_history(args.transaction_id, None, TransactionHistoryRequest(), GetTransactionHistoryVersion.V2)
    decoded = [verifier.verify_and_decode_signed_transaction(t) for t in first_page.signedTransactions]
    windows = []
    for earlier, later in zip(decoded, decoded[1:]):
        if earlier.purchaseDate == later.purchaseDate:
            continue
        page = client.get_transaction_history(args.transaction_id, None, TransactionHistoryRequest(
            startDate=earlier.purchaseDate, endDate=later.purchaseDate), GetTransactionHistoryVersion.V2)
        found = [verifier.verify_and_decode_signed_transaction(t).transactionId for t in page.signedTransactions]
        windows.append(found == [earlier.transactionId])
    result["dateWindows"] = {"checked": len(windows), "exact": sum(windows)}
    consumables = client.get_transaction_history(args.transaction_id, None, TransactionHistoryRequest(
        productTypes=[ProductType.CONSUMABLE], sort=Order.DESCENDING), GetTransactionHistoryVersion.V2)
    result["consumablesNewestFirst"] = [verifier.verify_and_decode_signed_transaction(t).transactionId for t in consumables.signedTransactions]

    refunds = client.get_refund_history(args.transaction_id, None)
    result["refunds"] = [verifier.verify_and_decode_signed_transaction(t).transactionId for t in refunds.signedTransactions]

    types, token = [], None
    while True:
        page = client.get_notification_history(token, NotificationHistoryRequest(startDate=0, endDate=4102444800000))
        for item in page.notificationHistory:
            decoded = verifier.verify_and_decode_notification(item.signedPayload)
            types.append(decoded.rawNotificationType)
            if decoded.summary is not None:
                summary = decoded.summary
                result["summary"] = {
                    "subtype": decoded.rawSubtype, "requestIdentifier": summary.requestIdentifier, "productId": summary.productId,
                    "bundleId": summary.bundleId, "environment": summary.rawEnvironment, "appAppleId": summary.appAppleId,
                    "storefrontCountryCodes": summary.storefrontCountryCodes, "succeededCount": summary.succeededCount,
                    "failedCount": summary.failedCount,
                }
        token = page.paginationToken
        if not page.hasMore:
            break
    result["notificationHistory"] = types

    try:
        client.request_test_notification()
        result["testNotificationWithoutURL"] = "no error"
    except APIException as error:
        result["testNotificationWithoutURL"] = error.raw_api_error

    try:
        client.get_transaction_info("2999999999999999")
        result["unknownTransaction"] = "no error"
    except APIException as error:
        result["unknownTransaction"] = {"httpStatus": error.http_status_code, "errorCode": error.raw_api_error}

    # A valid token for another app of the same key: Apple answers 401, not the transaction's 404.
    try:
        client_for(args.base_url, open(args.key_file, "rb").read(), args.key_id, args.issuer, "com.example.another.app").get_transaction_info(args.transaction_id)
        result["otherApp"] = "no error"
    except APIException as error:
        result["otherApp"] = {"httpStatus": error.http_status_code, "errorCode": error.raw_api_error}

    stranger_key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    try:
        client_for(args.base_url, stranger_key, args.key_id, args.issuer, args.bundle_id).get_transaction_info(args.transaction_id)
        result["unknownKey"] = "no error"
    except APIException as error:
        result["unknownKey"] = {"httpStatus": error.http_status_code}
    print(json.dumps(result, default=to_json))


if __name__ == "__main__":
    main()
