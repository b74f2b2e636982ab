import AppStoreFormats
import Foundation
import StoreKitConfiguration

/// Advanced Commerce purchases: a purchase of a product that carries the developer's signed request, which prices it
/// item by item and which the transaction repeats as `advancedCommerceInfo`.
extension StoreOperation {
    /// The signed Advanced Commerce request of a purchase, checked: signed with a key the store knows for the app within
    /// 24 hours of the store's clock, and its fields complete and valid.
    ///
    /// - Throws: ``StoreError/invalidAdvancedCommerceRequest`` with Apple's error code and what to fix.
    func verifiedAdvancedCommerceRequest(_ compactJWS: String, bundleID: String) throws -> AdvancedCommerceInAppRequest {
        let claims: AdvancedCommerceInAppClaims
        switch offerVerifier.verifyAdvancedCommerceRequest(compactJWS, bundleID: bundleID, now: now) {
        case .failure(let failure):
            throw Self.refusal(.invalidSignature, "\(failure.message) Sign the request with an In-App Purchase key the store knows (the configuration's subscriptionOffersKeyPair, or one added with StoreEngine.addPromotionalOfferKey), for this app, as Apple's AdvancedCommerceAPIInAppSignatureCreator does.")
        case .success(let value):
            claims = value
        }
        guard let inApp = claims.decodedRequest else {
            throw Self.refusal(.malformedPayload, "The JWS's request claim is not Base64 of a JSON request object.")
        }
        if let error = inApp.validationError() {
            throw Self.refusal(error, "Fix the request's fields as Apple's OneTimeChargeCreateRequest, SubscriptionCreateRequest, SubscriptionModifyInAppRequest or SubscriptionReactivateInAppRequest defines them.")
        }
        return inApp
    }

    /// Checks a purchase's Advanced Commerce request that sells something (``verifiedAdvancedCommerceRequest(_:bundleID:)``)
    /// and prices `record` with it: the request's items and their total price (an item's offer price while it has an
    /// offer), its descriptors and tax code, and for a subscription its billing period.
    ///
    /// - Throws: ``StoreError/invalidAdvancedCommerceRequest`` with Apple's error code and what to fix, when a field or
    ///   the product's kind does not fit; nothing is recorded then.
    func applyAdvancedCommerce(
        _ inApp: AdvancedCommerceInAppRequest, request: PurchaseRequest, product: CatalogProduct, storefront: Storefront, to record: inout TransactionRecord
    ) throws {
        let isSubscription = inApp.operation == AdvancedCommerceInAppRequest.createSubscription
        guard isSubscription == (product.type == .autoRenewable), product.type != .nonRenewable else {
            throw Self.refusal(.productNotEligible, "\(inApp.operation ?? "") needs \(isSubscription ? "an auto-renewable subscription" : "a consumable or non-consumable") product; \(product.id) is \(product.type.rawValue).")
        }
        guard request.quantity == 1 else {
            throw Self.refusal(.invalidAmount, "An Advanced Commerce purchase buys its items once; the purchase asks for quantity \(request.quantity). Buy it with quantity 1.")
        }
        if let code = inApp.storefront, code != storefront.countryCode {
            throw Self.refusal(Storefront.named(code) == nil ? .invalidStorefront : .mismatchedStorefront, "The request is for storefront \(code); the customer's is \(storefront.countryCode).")
        }
        guard inApp.currency == storefront.currency else {
            throw Self.refusal(.invalidCurrency, "The request prices in \(inApp.currency ?? ""); the customer's storefront \(storefront.countryCode) charges \(storefront.currency). Price the request in \(storefront.currency).")
        }
        if let token = inApp.requestInfo?.appAccountToken, let uuid = UUID(uuidString: token) { record.appAccountToken = uuid }
        let total = inApp.totalPrice
        record.unitPrice = Decimal(total) / 1000
        record.amountCharged = record.unitPrice
        var info = AdvancedCommerceTransactionInfo(
            descriptors: inApp.descriptors.map { AdvancedCommerceDescriptors(description: $0.description, displayName: $0.displayName) }, items: inApp.purchasedItems.map { item in
                AdvancedCommerceTransactionItem(sku: item.sku, description: item.description, displayName: item.displayName, offer: item.offer, price: item.offer?.price ?? item.price)
            },
            requestReferenceId: inApp.requestInfo?.requestReferenceId, taxCode: inApp.taxCode, taxExclusivePrice: total
        )
        if isSubscription, let text = inApp.period, let period = SubscriptionPeriod(iso8601: text), let terms = product.subscription {
            if let existing = try storage.subscriptions(accountID: request.accountID, bundleID: request.bundleID)
                .first(where: { $0.groupID == terms.groupID && $0.isActive(at: now) }) {
                throw Self.refusal(.subscriptionAlreadyExists, "The customer's subscription \(existing.id) in group \(terms.groupID) is active. Change it through the Advanced Commerce API, or buy once it lapses.")
            }
            info.period = text
            record.expiresDate = settings.timeRate.endOfPeriod(period, startingAt: now)
            // An item's offer prices this period and, while periods of it remain, the next ones.
            record.advancedCommerceRenewal = AdvancedCommerceRenewalInfo(
                descriptors: inApp.descriptors.map { AdvancedCommerceDescriptors(description: $0.description, displayName: $0.displayName) },
                items: inApp.purchasedItems.map { item in
                    let offer = item.offer.flatMap { offer -> AdvancedCommerceOffer? in
                        guard let count = offer.periodCount, count > 1 else { return nil }
                        return AdvancedCommerceOffer(period: offer.period, periodCount: count - 1, price: offer.price, reason: offer.reason)
                    }
                    return AdvancedCommerceRenewalItem(sku: item.sku, description: item.description, displayName: item.displayName, offer: offer, price: item.price)
                },
                period: text, requestReferenceId: inApp.requestInfo?.requestReferenceId, taxCode: inApp.taxCode
            )
        }
        record.advancedCommerceInfo = info
    }

    /// Prices a renewal of an Advanced Commerce subscription with what the subscription renews with, and moves the
    /// subscription's items past the renewal: a scheduled price takes effect, an offer uses up a period.
    func applyAdvancedCommerceRenewal(_ renewal: inout TransactionRecord, of subscription: inout SubscriptionRecord) {
        guard var info = subscription.advancedCommerceInfo else { return }
        let items = info.items ?? []
        let charged = items.map { item -> AdvancedCommerceTransactionItem in
            let price = item.offer?.price ?? item.priceIncreaseInfo?.price ?? item.price
            return AdvancedCommerceTransactionItem(sku: item.sku, description: item.description, displayName: item.displayName, offer: item.offer, price: price)
        }
        let total = charged.reduce(Int64(0)) { $0 + ($1.price ?? 0) }
        renewal.unitPrice = Decimal(total) / 1000
        renewal.amountCharged = renewal.unitPrice
        renewal.advancedCommerceInfo = AdvancedCommerceTransactionInfo(
            descriptors: info.descriptors, items: charged, period: info.period, requestReferenceId: info.requestReferenceId,
            taxCode: info.taxCode, taxExclusivePrice: total
        )
        info.items = items.map { item in
            var next = item
            if let increase = item.priceIncreaseInfo, item.offer == nil {
                next.price = increase.price ?? item.price
                next.priceIncreaseInfo = nil
            }
            if let offer = item.offer {
                let left = (offer.periodCount ?? 1) - 1
                next.offer = left > 0 ? AdvancedCommerceOffer(period: offer.period, periodCount: left, price: offer.price, reason: offer.reason) : nil
            }
            return next
        }
        subscription.advancedCommerceInfo = info
    }

    /// The period an Advanced Commerce subscription renews for, when it has its own.
    static func advancedCommercePeriod(of subscription: SubscriptionRecord) -> SubscriptionPeriod? {
        subscription.advancedCommerceInfo?.period.flatMap(SubscriptionPeriod.init(iso8601:))
    }

    /// A refusal of an Advanced Commerce request, led by Apple's error code.
    static func refusal(_ error: AdvancedCommerceAPIError, _ detail: String) -> StoreError {
        StoreError.invalidAdvancedCommerceRequest("Advanced Commerce error \(error.errorCode) (\(error.errorMessage)) \(detail)")
    }
}
