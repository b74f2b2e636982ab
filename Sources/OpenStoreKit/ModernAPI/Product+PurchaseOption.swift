public import Foundation

extension Product {
    /// A choice the app makes for a purchase: an account token, a quantity, an offer.
    public struct PurchaseOption: Hashable, Sendable {
        enum Kind: Hashable, Sendable {
            case appAccountToken(UUID)
            case quantity(Int)
            case simulatesAskToBuy(Bool)
            case custom(key: String, value: CustomValue)
            case promotionalOffer(offerID: String, signature: SubscriptionOffer.Signature)
            case signedPromotionalOffer(offerID: String, compactJWS: String)
            case winBackOffer(offerID: String)
            case onStorefrontChange(StorefrontChangeHandler)
            case promotionalOfferID(String)
            case codeOffer(referenceName: String)
            case introductoryOfferEligibility(compactJWS: String)
            case billingPlanType(String)
            case purchaseDate(Date, renewalBehavior: SubscriptionRenewalBehavior)
        }

        /// StoreKit Test: what a subscription bought with ``purchaseDate(_:renewalBehavior:)`` does about the periods
        /// that ended between that date and now.
        public enum SubscriptionRenewalBehavior: Hashable, Sendable {
            /// The subscription renewed at the end of every period up to now, a renewal transaction for each.
            case renewUntilNow
            /// The subscription's auto-renew went off at purchase: it expires at the end of its first period.
            case cancelImmediately
        }

        /// A value of a custom option.
        enum CustomValue: Hashable, Sendable {
            case string(String), double(Double), bool(Bool), data(Data)
        }

        /// A storefront-change callback, compared by identity.
        struct StorefrontChangeHandler: Hashable, Sendable {
            let id = UUID()
            let shouldContinue: @Sendable (Storefront) -> Bool
            static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
            func hash(into hasher: inout Hasher) { hasher.combine(id) }
        }

        let kind: Kind

        /// The callback of ``onStorefrontChange(shouldContinuePurchase:)``.
        var storefrontChangeHandler: (@Sendable (Storefront) -> Bool)? {
            if case .onStorefrontChange(let handler) = kind { handler.shouldContinue } else { nil }
        }

        /// The offer of ``promotionalOffer(id:)``, which only `SKTestSession.buyProduct(identifier:options:)` honours.
        package var promotionalOfferIdentifier: String? {
            if case .promotionalOfferID(let id) = kind { id } else { nil }
        }

        /// Ties the purchase to an account of the app's own: the token appears in the transaction as
        /// `appAccountToken` and in the App Store Server API.
        public static func appAccountToken(_ token: UUID) -> PurchaseOption { PurchaseOption(kind: .appAccountToken(token)) }

        /// Buys several units of a consumable (1 to 10).
        public static func quantity(_ quantity: Int) -> PurchaseOption { PurchaseOption(kind: .quantity(quantity)) }

        /// Makes the purchase wait for a parent's approval, as Ask to Buy does, in a test environment.
        public static func simulatesAskToBuyInSandbox(_ simulateAskToBuy: Bool) -> PurchaseOption {
            PurchaseOption(kind: .simulatesAskToBuy(simulateAskToBuy))
        }

        /// An option the App Store passes through without acting on it.
        public static func custom(key: String, value: String) -> PurchaseOption { PurchaseOption(kind: .custom(key: key, value: .string(value))) }
        /// An option the App Store passes through without acting on it.
        public static func custom(key: String, value: Double) -> PurchaseOption { PurchaseOption(kind: .custom(key: key, value: .double(value))) }
        /// An option the App Store passes through without acting on it.
        public static func custom(key: String, value: Bool) -> PurchaseOption { PurchaseOption(kind: .custom(key: key, value: .bool(value))) }
        /// An option the App Store passes through without acting on it.
        public static func custom(key: String, value: Data) -> PurchaseOption { PurchaseOption(kind: .custom(key: key, value: .data(value))) }

        /// Applies a promotional offer your server signed (version 1 signature).
        public static func promotionalOffer(offerID: String, keyID: String, nonce: UUID, signature: Data, timestamp: Int) -> PurchaseOption {
            promotionalOffer(offerID: offerID, signature: SubscriptionOffer.Signature(keyID: keyID, nonce: nonce, timestamp: timestamp, signature: signature))
        }

        /// Applies a promotional offer your server signed (version 1 signature).
        public static func promotionalOffer(offerID: String, signature: Product.SubscriptionOffer.Signature) -> PurchaseOption {
            PurchaseOption(kind: .promotionalOffer(offerID: offerID, signature: signature))
        }

        /// Applies a promotional offer your server signed as a compact JWS (version 2 signature).
        public static func promotionalOffer(_ offerID: String, compactJWS: String) -> [PurchaseOption] {
            [PurchaseOption(kind: .signedPromotionalOffer(offerID: offerID, compactJWS: compactJWS))]
        }

        /// Decides whether the purchase gets the subscription's introductory offer, in place of the App Store's own
        /// check: a compact JWS your server signed with an In-App Purchase key (Apple's
        /// `IntroductoryOfferEligibilitySignatureCreator`), for this app and product, saying `allowIntroductoryOffer`.
        /// The store verifies it as it verifies a signed promotional offer; a purchase whose JWS does not verify
        /// fails with ``Product/PurchaseError/invalidOfferSignature``. It has no effect on a purchase that claims
        /// another offer.
        public static func introductoryOfferEligibility(compactJWS: String) -> PurchaseOption {
            PurchaseOption(kind: .introductoryOfferEligibility(compactJWS: compactJWS))
        }

        /// Applies a win-back offer of the subscription.
        public static func winBackOffer(_ offer: Product.SubscriptionOffer) -> PurchaseOption {
            PurchaseOption(kind: .winBackOffer(offerID: offer.id ?? ""))
        }

        /// Decides whether a purchase continues when the customer's storefront changes while it is made.
        @preconcurrency
        public static func onStorefrontChange(shouldContinuePurchase: @escaping @Sendable (Storefront) -> Bool) -> PurchaseOption {
            PurchaseOption(kind: .onStorefrontChange(StorefrontChangeHandler(shouldContinue: shouldContinuePurchase)))
        }

        /// StoreKit Test: applies a promotional offer by identifier, without a signature, in
        /// `SKTestSession.buyProduct(identifier:options:)`.
        public static func promotionalOffer(id identifier: String) -> PurchaseOption {
            PurchaseOption(kind: .promotionalOfferID(identifier))
        }

        /// StoreKit Test: records the purchase as made at `date`, in the past, so that a test can start with a
        /// subscription bought long ago; `renewalBehavior` decides whether it renewed at the end of each period up to
        /// now. A test store (Sandbox or Xcode) honours it in `SKTestSession.buyProduct(identifier:options:)` and in
        /// ``Product/purchase(options:)``; a Production store refuses the purchase.
        public static func purchaseDate(_ date: Date, renewalBehavior: SubscriptionRenewalBehavior = .renewUntilNow) -> PurchaseOption {
            PurchaseOption(kind: .purchaseDate(date, renewalBehavior: renewalBehavior))
        }

        /// Applies an offer code by its reference name in the configuration (StoreKit Test).
        public static func codeOffer(referenceName: String) -> PurchaseOption {
            PurchaseOption(kind: .codeOffer(referenceName: referenceName))
        }
    }
}
