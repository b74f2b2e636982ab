#!/usr/bin/env python3
"""Make Advanced Commerce requests with Apple's app-store-server-library 3.1.2 models.

Usage:
  advanced_commerce.py sign KIND --key-file P8 --key-id ID --issuer ID --bundle-id ID --timestamp-ms MS
                            [--currency CODE] [--reference UUID] [--transaction-id ID] [--sku SKU ...] [--spec JSON]
      KIND is one-time-charge, subscription, reactivate or modify. Builds Apple's
      AdvancedCommerceOneTimeChargeCreateRequest, AdvancedCommerceSubscriptionCreateRequest,
      AdvancedCommerceSubscriptionReactivateInAppRequest (of the subscription with transaction ID, renewing the --sku
      items) or AdvancedCommerceSubscriptionModifyInAppRequest (the --spec changes) and signs it with AdvancedCommerceAPIInAppSignatureCreator, its iat
      pinned to MS / 1000. Prints {"jws": "..."}.
  advanced_commerce.py body KIND
      KIND is cancel, revoke, request-refund, change-metadata, change-price or migrate. Prints {"body": {...}}: the
      JSON Apple's model of that endpoint's request unstructures to (the same converter the library signs with).
Exits 3 when the library is not installed.
"""
import argparse
import datetime
import json
import sys
import uuid

try:
    import appstoreserverlibrary.jws_signature_creator as jws_signature_creator
    from appstoreserverlibrary.jws_signature_creator import AdvancedCommerceAPIInAppSignatureCreator
    from appstoreserverlibrary.models.LibraryUtility import _get_cattrs_converter
    from appstoreserverlibrary.models.AdvancedCommerceDescriptors import AdvancedCommerceDescriptors
    from appstoreserverlibrary.models.AdvancedCommerceEffective import AdvancedCommerceEffective
    from appstoreserverlibrary.models.AdvancedCommerceOffer import AdvancedCommerceOffer
    from appstoreserverlibrary.models.AdvancedCommerceOfferPeriod import AdvancedCommerceOfferPeriod
    from appstoreserverlibrary.models.AdvancedCommerceOfferReason import AdvancedCommerceOfferReason
    from appstoreserverlibrary.models.AdvancedCommerceOneTimeChargeCreateRequest import AdvancedCommerceOneTimeChargeCreateRequest
    from appstoreserverlibrary.models.AdvancedCommerceOneTimeChargeItem import AdvancedCommerceOneTimeChargeItem
    from appstoreserverlibrary.models.AdvancedCommercePeriod import AdvancedCommercePeriod
    from appstoreserverlibrary.models.AdvancedCommerceRefundReason import AdvancedCommerceRefundReason
    from appstoreserverlibrary.models.AdvancedCommerceRefundType import AdvancedCommerceRefundType
    from appstoreserverlibrary.models.AdvancedCommerceRequestInfo import AdvancedCommerceRequestInfo
    from appstoreserverlibrary.models.AdvancedCommerceRequestRefundItem import AdvancedCommerceRequestRefundItem
    from appstoreserverlibrary.models.AdvancedCommerceRequestRefundRequest import AdvancedCommerceRequestRefundRequest
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionCancelRequest import AdvancedCommerceSubscriptionCancelRequest
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionChangeMetadataDescriptors import AdvancedCommerceSubscriptionChangeMetadataDescriptors
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionChangeMetadataItem import AdvancedCommerceSubscriptionChangeMetadataItem
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionChangeMetadataRequest import AdvancedCommerceSubscriptionChangeMetadataRequest
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionCreateItem import AdvancedCommerceSubscriptionCreateItem
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionCreateRequest import AdvancedCommerceSubscriptionCreateRequest
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionMigrateDescriptors import AdvancedCommerceSubscriptionMigrateDescriptors
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionMigrateItem import AdvancedCommerceSubscriptionMigrateItem
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionMigrateRequest import AdvancedCommerceSubscriptionMigrateRequest
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionPriceChangeItem import AdvancedCommerceSubscriptionPriceChangeItem
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionPriceChangeRequest import AdvancedCommerceSubscriptionPriceChangeRequest
    from appstoreserverlibrary.models.AdvancedCommerceReason import AdvancedCommerceReason
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionModifyAddItem import AdvancedCommerceSubscriptionModifyAddItem
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionModifyChangeItem import AdvancedCommerceSubscriptionModifyChangeItem
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionModifyDescriptors import AdvancedCommerceSubscriptionModifyDescriptors
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionModifyInAppRequest import AdvancedCommerceSubscriptionModifyInAppRequest
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionModifyPeriodChange import AdvancedCommerceSubscriptionModifyPeriodChange
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionModifyRemoveItem import AdvancedCommerceSubscriptionModifyRemoveItem
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionReactivateInAppRequest import AdvancedCommerceSubscriptionReactivateInAppRequest
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionReactivateItem import AdvancedCommerceSubscriptionReactivateItem
    from appstoreserverlibrary.models.AdvancedCommerceSubscriptionRevokeRequest import AdvancedCommerceSubscriptionRevokeRequest
except ImportError as error:  # pragma: no cover - reported to the Swift test
    print(json.dumps({"status": "MISSING_LIBRARY", "error": f"{error}; run: pip install app-store-server-library==3.1.2"}))
    sys.exit(3)


def request_info(reference=None):
    return AdvancedCommerceRequestInfo(requestReferenceId=uuid.UUID(reference) if reference else uuid.uuid4())


def modification(spec, currency, reference, transaction_id):
    """Apple's SubscriptionModifyInAppRequest from a JSON spec in Apple's field names."""
    def change(item):
        item = dict(item)
        item["reason"] = AdvancedCommerceReason(item["reason"])
        item["effective"] = AdvancedCommerceEffective(item["effective"])
        return AdvancedCommerceSubscriptionModifyChangeItem(**item)
    descriptors = spec.get("descriptors")
    period = spec.get("periodChange")
    return AdvancedCommerceSubscriptionModifyInAppRequest(
        requestInfo=request_info(reference), transactionId=transaction_id, retainBillingCycle=spec["retainBillingCycle"],
        currency=currency if spec.get("addItems") or spec.get("changeItems") else None,
        addItems=[AdvancedCommerceSubscriptionModifyAddItem(**item) for item in spec["addItems"]] if "addItems" in spec else None,
        changeItems=[change(item) for item in spec["changeItems"]] if "changeItems" in spec else None,
        removeItems=[AdvancedCommerceSubscriptionModifyRemoveItem(SKU=sku) for sku in spec["removeItems"]] if "removeItems" in spec else None,
        descriptors=AdvancedCommerceSubscriptionModifyDescriptors(
            effective=AdvancedCommerceEffective(descriptors["effective"]), description=descriptors.get("description"),
            displayName=descriptors.get("displayName")) if descriptors else None,
        periodChange=AdvancedCommerceSubscriptionModifyPeriodChange(
            effective=AdvancedCommerceEffective(period["effective"]), period=AdvancedCommercePeriod(period["period"])) if period else None)


def in_app_request(kind, currency, reference, transaction_id=None, skus=None, spec=None):
    if kind == "modify":
        return modification(json.loads(spec), currency, reference, transaction_id)
    if kind == "reactivate":
        return AdvancedCommerceSubscriptionReactivateInAppRequest(
            requestInfo=request_info(reference), transactionId=transaction_id,
            items=[AdvancedCommerceSubscriptionReactivateItem(SKU=sku) for sku in skus] if skus else None)
    if kind == "one-time-charge":
        return AdvancedCommerceOneTimeChargeCreateRequest(
            requestInfo=request_info(reference), currency=currency, taxCode="C003-00-1",
            item=AdvancedCommerceOneTimeChargeItem(SKU="ebook.swift-concurrency", description="A book about Swift concurrency",
                                                   displayName="Swift Concurrency", price=12990))
    return AdvancedCommerceSubscriptionCreateRequest(
        requestInfo=AdvancedCommerceRequestInfo(requestReferenceId=uuid.UUID(reference) if reference else uuid.uuid4(),
                                                appAccountToken=uuid.UUID("7e3fb20b-4cdb-47cc-936d-99d65f608138")),
        currency=currency, taxCode="C003-00-2", period=AdvancedCommercePeriod.P1M,
        descriptors=AdvancedCommerceDescriptors(description="News and sports", displayName="Bundle"),
        items=[
            AdvancedCommerceSubscriptionCreateItem(SKU="news.daily", description="Daily news", displayName="News", price=4990),
            AdvancedCommerceSubscriptionCreateItem(
                SKU="sports.live", description="Live sports", displayName="Sports", price=7990,
                offer=AdvancedCommerceOffer(periodCount=2, price=3990, period=AdvancedCommerceOfferPeriod.P1M,
                                            reason=AdvancedCommerceOfferReason.ACQUISITION)),
        ])


def server_body(kind):
    info = request_info()
    if kind == "cancel":
        return AdvancedCommerceSubscriptionCancelRequest(requestInfo=info)
    if kind == "revoke":
        return AdvancedCommerceSubscriptionRevokeRequest(
            requestInfo=info, refundRiskingPreference=True, refundType=AdvancedCommerceRefundType.PRORATED,
            refundReason=AdvancedCommerceRefundReason.UNSATISFIED_WITH_PURCHASE)
    if kind == "request-refund":
        return AdvancedCommerceRequestRefundRequest(
            requestInfo=info, refundRiskingPreference=True, items=[AdvancedCommerceRequestRefundItem(
                SKU="ebook.swift-concurrency", revoke=True, refundReason=AdvancedCommerceRefundReason.FULFILLMENT_ISSUE,
                refundType=AdvancedCommerceRefundType.FULL)])
    if kind == "change-metadata":
        return AdvancedCommerceSubscriptionChangeMetadataRequest(
            requestInfo=info,
            descriptors=AdvancedCommerceSubscriptionChangeMetadataDescriptors(displayName="Bundle Plus", effective=AdvancedCommerceEffective.IMMEDIATELY),
            items=[AdvancedCommerceSubscriptionChangeMetadataItem(currentSKU="news.daily", SKU="news.daily.v2", displayName="News+",
                                                                 effective=AdvancedCommerceEffective.NEXT_BILL_CYCLE)])
    if kind == "change-price":
        return AdvancedCommerceSubscriptionPriceChangeRequest(
            requestInfo=info, items=[AdvancedCommerceSubscriptionPriceChangeItem(SKU="news.daily", price=5990)])
    return AdvancedCommerceSubscriptionMigrateRequest(
        requestInfo=info, targetProductId="com.example.generic.migrated", taxCode="C003-00-2",
        descriptors=AdvancedCommerceSubscriptionMigrateDescriptors(description="Everything", displayName="All Access"),
        items=[AdvancedCommerceSubscriptionMigrateItem(SKU="all.access", description="All the content", displayName="All")])


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    sign = sub.add_parser("sign")
    sign.add_argument("kind", choices=["one-time-charge", "subscription", "reactivate", "modify"])
    sign.add_argument("--key-file", required=True)
    sign.add_argument("--key-id", required=True)
    sign.add_argument("--issuer", required=True)
    sign.add_argument("--bundle-id", required=True)
    sign.add_argument("--timestamp-ms", type=int, required=True)
    sign.add_argument("--currency", default="USD")
    sign.add_argument("--reference")
    sign.add_argument("--transaction-id", help="reactivate: the subscription's transaction")
    sign.add_argument("--sku", action="append", help="reactivate: an item that renews again (repeatable; all when absent)")
    sign.add_argument("--spec", help="modify: the changes, as JSON in Apple's field names (retainBillingCycle, addItems, ...)")
    body = sub.add_parser("body")
    body.add_argument("kind", choices=["cancel", "revoke", "request-refund", "change-metadata", "change-price", "migrate"])
    args = parser.parse_args()

    if args.command == "body":
        request = server_body(args.kind)
        print(json.dumps({"body": _get_cattrs_converter(type(request)).unstructure(request)}))
        return

    fixed = datetime.datetime.fromtimestamp(args.timestamp_ms // 1000, datetime.timezone.utc)

    class FixedDatetime(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return fixed

    utc = datetime.timezone

    class FixedDatetimeModule:
        datetime = FixedDatetime
        timezone = utc

    jws_signature_creator.datetime = FixedDatetimeModule
    key = open(args.key_file, "rb").read()
    creator = AdvancedCommerceAPIInAppSignatureCreator(key, args.key_id, args.issuer, args.bundle_id)
    print(json.dumps({"jws": creator.create_signature(in_app_request(args.kind, args.currency, args.reference, args.transaction_id, args.sku, args.spec))}))


if __name__ == "__main__":
    main()
