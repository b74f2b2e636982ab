import AppStoreFormats
import Foundation
import StoreKitConfiguration

/// Who a customer is to a subscription group, in the words of a `.storekit` offer's `eligibility`.
enum SubscriberCategory: String {
    /// Never subscribed to the group.
    case new
    /// Subscribed now.
    case existing
    /// Subscribed once; the subscription lapsed.
    case expired
}

extension StoreOperation {
    /// The customer's standing in a subscription group.
    func subscriberCategory(accountID: String, bundleID: String, groupID: String) throws -> SubscriberCategory {
        guard let subscription = try storage.subscriptions(accountID: accountID, bundleID: bundleID).first(where: { $0.groupID == groupID }) else {
            return .new
        }
        return subscription.isActive(at: now) ? .existing : .expired
    }

    /// Whether the account may still get an introductory offer in the group: not subscribed now, and no
    /// introductory offer ever redeemed in the group.
    func isEligibleForIntroductoryOffer(accountID: String, bundleID: String, groupID: String) throws -> Bool {
        guard try subscriberCategory(accountID: accountID, bundleID: bundleID, groupID: groupID) != .existing else { return false }
        return try !storage.transactions(matching: TransactionQuery(accountID: accountID, bundleID: bundleID)).contains { record in
            record.subscriptionGroupID == groupID && record.offer?.type == .introductoryOffer
        }
    }

    /// The offer a purchase gets: the one it claims, checked the way the App Store checks it, or else the product's
    /// introductory offer when the account is eligible.
    ///
    /// - Throws: ``StoreError`` `missingOfferParameters`, `invalidOfferIdentifier`, `invalidOfferSignature`,
    ///   `invalidOfferPrice` or `ineligibleForOffer`, with what to fix.
    func offer(for request: PurchaseRequest, product: CatalogProduct) throws -> SubscriptionOffer? {
        guard let terms = product.subscription else {
            guard request.offer == nil else {
                throw StoreError.invalidOfferIdentifier("\(product.id) is not an auto-renewable subscription; only subscriptions have offers. Buy it without one.")
            }
            return nil
        }
        let category = try subscriberCategory(accountID: request.accountID, bundleID: request.bundleID, groupID: terms.groupID)
        guard let redemption = request.offer else {
            let eligible: Bool
            if let compactJWS = request.introductoryOfferEligibility {
                switch offerVerifier.verifyIntroductoryOfferEligibility(compactJWS, bundleID: request.bundleID, productID: product.id, now: now) {
                case .failure(let failure):
                    throw StoreError.invalidOfferSignature("The signed introductory offer eligibility was refused: \(failure.message) Sign it with an In-App Purchase key the store knows (the configuration's subscriptionOffersKeyPair, or one added with StoreEngine.addPromotionalOfferKey), for this app and product.")
                case .success(let claims): eligible = claims.allowIntroductoryOffer
                }
            } else {
                eligible = try isEligibleForIntroductoryOffer(accountID: request.accountID, bundleID: request.bundleID, groupID: terms.groupID)
            }
            guard let introductory = terms.introductoryOffer, eligible else { return nil }
            return SubscriptionOffer(introductory, type: .introductoryOffer, identifier: nil)
        }
        switch redemption {
        case .promotional(let offerID, let keyID, let nonce, let timestamp, let signature):
            guard !offerID.isEmpty, !keyID.isEmpty, !signature.isEmpty else {
                throw StoreError.missingOfferParameters("A promotional offer needs its identifier, key identifier and signature; one is empty. Sign the offer on your server and pass all three.")
            }
            let definition = try promotionalOffer(offerID, of: product)
            let signed = PromotionalOfferSignatureV1(
                bundleID: request.bundleID, keyID: keyID, productID: product.id, offerID: offerID,
                appAccountToken: request.applicationUsername ?? "", nonce: nonce, timestamp: timestamp, signature: signature
            )
            if case .failure(let failure) = offerVerifier.verifyV1(signed, now: now) {
                throw Self.invalidSignature(failure, keyID: keyID)
            }
            let offer = try grant(definition, as: .promotionalOffer, identifier: offerID, of: product, to: category)
            try Self.requireSubscriber(category, forPromotionalOffer: offerID, groupID: terms.groupID)
            return offer
        case .signedPromotional(let compactJWS):
            switch offerVerifier.verifyV2(compactJWS, bundleID: request.bundleID, productID: product.id, now: now) {
            case .failure(let failure):
                throw Self.invalidSignature(failure, keyID: nil)
            case .success(let claims):
                let definition = try promotionalOffer(claims.offerIdentifier, of: product)
                let offer = try grant(definition, as: .promotionalOffer, identifier: claims.offerIdentifier, of: product, to: category)
                try Self.requireSubscriber(category, forPromotionalOffer: claims.offerIdentifier, groupID: terms.groupID)
                return offer
            }
        case .code(let code):
            guard let definition = terms.offerCodes.first(where: { $0.referenceName == code || $0.offerID == code }) else {
                throw StoreError.invalidOfferIdentifier("\(product.id) has no offer code \"\(code)\". Its codes: \(Self.names(terms.offerCodes.compactMap { $0.referenceName ?? $0.offerID })).")
            }
            return try grant(definition, as: .subscriptionOfferCode, identifier: definition.referenceName ?? code, of: product, to: category)
        case .winBack(let offerID):
            guard let definition = terms.winBackOffers.first(where: { $0.offerID == offerID }) else {
                throw StoreError.invalidOfferIdentifier("\(product.id) has no win-back offer \"\(offerID)\". Its win-back offers: \(Self.names(terms.winBackOffers.compactMap(\.offerID))).")
            }
            guard category == .expired else {
                throw StoreError.ineligibleForOffer("Win-back offers are for customers whose subscription lapsed; this account's subscription in group \(terms.groupID) is \(category == .new ? "not there: it never subscribed" : "active").")
            }
            return try grant(definition, as: .winBackOffer, identifier: offerID, of: product, to: category)
        }
    }

    /// The product's promotional offer with the identifier.
    private func promotionalOffer(_ offerID: String, of product: CatalogProduct) throws -> OfferDefinition {
        let offers = product.subscription?.promotionalOffers ?? []
        guard let definition = offers.first(where: { $0.offerID == offerID }) else {
            throw StoreError.invalidOfferIdentifier("\(product.id) has no promotional offer \"\(offerID)\". Its promotional offers: \(Self.names(offers.compactMap(\.offerID))).")
        }
        return definition
    }

    /// Refuses a promotional offer to a customer who never subscribed to the group, as the App Store does:
    /// promotional offers are for current and lapsed subscribers.
    private static func requireSubscriber(_ category: SubscriberCategory, forPromotionalOffer offerID: String, groupID: String) throws {
        guard category == .new else { return }
        throw StoreError.ineligibleForOffer("Promotional offer \(offerID) is for current and lapsed subscribers; this account never subscribed to group \(groupID). Offer it after a first purchase, or use an introductory offer or an offer code for new customers.")
    }

    /// The offer a definition grants, once the customer's eligibility and the offer's price check out.
    private func grant(
        _ definition: OfferDefinition, as type: OfferType, identifier: String?, of product: CatalogProduct, to category: SubscriberCategory
    ) throws -> SubscriptionOffer {
        if definition.isEligible == false {
            throw StoreError.ineligibleForOffer("The configuration marks offer \(identifier ?? definition.internalID) of \(product.id) as one the customer is not eligible for (isEligible false).")
        }
        if let eligibility = definition.eligibility, !eligibility.isEmpty, !eligibility.contains(OfferEligibility(rawValue: category.rawValue)) {
            throw StoreError.ineligibleForOffer("Offer \(identifier ?? definition.internalID) of \(product.id) is for \(eligibility.map(\.rawValue).joined(separator: " and ")) customers; this account is \(category.rawValue) to the group.")
        }
        if let price = definition.price, price > product.price {
            throw StoreError.invalidOfferPrice("Offer \(identifier ?? definition.internalID) costs \(price), more than \(product.id)'s own price \(product.price). Lower the offer's displayPrice in the configuration.")
        }
        return SubscriptionOffer(definition, type: type, identifier: identifier)
    }

    private static func invalidSignature(_ failure: PromotionalOfferVerificationFailure, keyID: String?) -> StoreError {
        StoreError.invalidOfferSignature("The promotional offer's signature was refused: \(failure.message) Sign the offer with a key the store knows\(keyID.map { " (this one names key \($0))" } ?? ""): the configuration's subscriptionOffersKeyPair, or one added with StoreEngine.addPromotionalOfferKey.")
    }

    private static func names(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    /// Prices `record` with `offer` for the period that starts at the record's purchase date.
    func apply(_ offer: SubscriptionOffer, to record: inout TransactionRecord) {
        record.offer = offer
        record.unitPrice = offer.price
        record.amountCharged = offer.price
        record.expiresDate = settings.timeRate.endOfPeriod(offer.period, startingAt: record.purchaseDate)
    }
}
