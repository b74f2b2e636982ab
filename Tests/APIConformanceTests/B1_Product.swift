// B.1 Product, Product.ProductType, PurchaseResult, PurchaseError and PurchaseOption, checked against api-surface.md:
// each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// Names every case: a case added to or removed from `Product.PurchaseResult` breaks this `switch`.
private func name(_ result: Product.PurchaseResult) -> String {
    switch result {
    case .success(let verification): "success(\(verification.unsafePayloadValue.id))"
    case .userCancelled: "userCancelled"
    case .pending: "pending"
    }
}

/// Names every case of `Product.PurchaseError`.
private func name(_ error: Product.PurchaseError) -> String {
    switch error {
    case .invalidQuantity: "invalidQuantity"
    case .productUnavailable: "productUnavailable"
    case .purchaseNotAllowed: "purchaseNotAllowed"
    case .ineligibleForOffer: "ineligibleForOffer"
    case .invalidOfferIdentifier: "invalidOfferIdentifier"
    case .invalidOfferPrice: "invalidOfferPrice"
    case .invalidOfferSignature: "invalidOfferSignature"
    case .missingOfferParameters: "missingOfferParameters"
    }
}

@Suite("B.1 Product has Apple's declarations")
struct ProductConformance {
    @Test("B.1 Product: the structure and its properties")
    func product() {
        // B.1 Product — struct: Identifiable (ID = String), Equatable, Hashable, Sendable, CustomDebugStringConvertible
        requireIdentifiable(Product.self, id: String.self)
        requireHashable(Product.self)
        requireSendable(Product.self)
        requireCustomDebugStringConvertible(Product.self)
        // B.1 Product.ID
        #expect(Product.ID.self == String.self)
        // B.1 Product.id
        let _: KeyPath<Product, Product.ID> = \.id
        // B.1 Product.type
        let _: KeyPath<Product, Product.ProductType> = \.type
        // B.1 Product.displayName
        let _: KeyPath<Product, String> = \.displayName
        // B.1 Product.description
        let _: KeyPath<Product, String> = \.description
        // B.1 Product.price
        let _: KeyPath<Product, Decimal> = \.price
        // B.1 Product.displayPrice
        let _: KeyPath<Product, String> = \.displayPrice
        // B.1 Product.isFamilyShareable
        let _: KeyPath<Product, Bool> = \.isFamilyShareable
        // B.1 Product.subscription
        let _: KeyPath<Product, Product.SubscriptionInfo?> = \.subscription
        // B.1 Product.jsonRepresentation
        let _: KeyPath<Product, Data> = \.jsonRepresentation
        // B.1 Product.priceFormatStyle
        let _: KeyPath<Product, Decimal.FormatStyle.Currency> = \.priceFormatStyle
        // B.1 Product.subscriptionPeriodUnitFormatStyle (iOS 16)
        let _: KeyPath<Product, Product.SubscriptionPeriod.Unit.FormatStyle> = \.subscriptionPeriodUnitFormatStyle
        // B.1 Product.debugDescription
        let _: KeyPath<Product, String> = \.debugDescription
    }

    @Test("B.1 Product: loading, buying, and the product's transactions")
    @MainActor
    func productMethods() {
        // B.1 Product.products(for:) — generic over a Collection of String, async throws
        let _: () async throws -> [Product] = { try await Product.products(for: ["com.example.a"]) }
        let _: () async throws -> [Product] = { try await Product.products(for: Set(["com.example.a"])) }
        // B.1 Product.purchase(options:) — @MainActor, options default to []
        let _: @MainActor (Product) -> (Set<Product.PurchaseOption>) async throws -> Product.PurchaseResult = Product.purchase(options:)
        let _: @MainActor (Product) async throws -> Product.PurchaseResult = { try await $0.purchase() }
        // B.1 Product.purchase(confirmIn:options:) with a scene (iOS 17)
        let _: @MainActor (Product, UIWindowScene) async throws -> Product.PurchaseResult = {
            try await $0.purchase(confirmIn: $1, options: [])
        }
        let _: @MainActor (Product, UIWindowScene) async throws -> Product.PurchaseResult = { try await $0.purchase(confirmIn: $1) }
        // B.1 Product.purchase(confirmIn:options:) with a view controller (iOS 18.2)
        let _: @MainActor (Product, UIViewController) async throws -> Product.PurchaseResult = {
            try await $0.purchase(confirmIn: $1, options: [.quantity(1)])
        }
        let _: @MainActor (Product, UIViewController) async throws -> Product.PurchaseResult = { try await $0.purchase(confirmIn: $1) }
        // B.1 Product.purchase(confirmIn:options:) with a window (macOS 15.2)
        let _: @MainActor (Product, NSWindow) async throws -> Product.PurchaseResult = { try await $0.purchase(confirmIn: $1, options: []) }
        // B.1 Product.latestTransaction — get async
        let _: (Product) async -> VerificationResult<Transaction>? = { await $0.latestTransaction }
        // B.1 Product.currentEntitlement — get async (deprecated in iOS 18.4)
        let _: (Product) async -> VerificationResult<Transaction>? = { await $0.currentEntitlement }
        // B.1 Product.currentEntitlements (iOS 18.4)
        let _: KeyPath<Product, Transaction.Transactions> = \.currentEntitlements
    }

    @Test("B.1 Product.ProductType: the four types, their raw values and descriptions")
    func productType() {
        // B.1 Product.ProductType — RawRepresentable (String), Hashable, Sendable
        requireRawValue(Product.ProductType.self, String.self)
        requireHashable(Product.ProductType.self)
        requireSendable(Product.ProductType.self)
        // B.1 Product.ProductType.init(rawValue:)
        let _: (String) -> Product.ProductType = Product.ProductType.init(rawValue:)
        // B.1 Product.ProductType.rawValue
        let _: KeyPath<Product.ProductType, String> = \.rawValue
        // B.1 Product.ProductType.consumable
        #expect(Product.ProductType.consumable.rawValue == "Consumable")
        // B.1 Product.ProductType.nonConsumable
        #expect(Product.ProductType.nonConsumable.rawValue == "Non-Consumable")
        // B.1 Product.ProductType.nonRenewable
        #expect(Product.ProductType.nonRenewable.rawValue == "Non-Renewing Subscription")
        // B.1 Product.ProductType.autoRenewable
        #expect(Product.ProductType.autoRenewable.rawValue == "Auto-Renewable Subscription")
        // B.1 Product.ProductType.localizedDescription (iOS 15.4)
        let _: KeyPath<Product.ProductType, String> = \.localizedDescription
    }

    @Test("B.1 Product.PurchaseResult and Product.PurchaseError: every case")
    func purchaseResultAndError() {
        // B.1 Product.PurchaseResult — enum: success(VerificationResult<Transaction>), userCancelled, pending
        requireSendable(Product.PurchaseResult.self)
        let _: (VerificationResult<Transaction>) -> Product.PurchaseResult = Product.PurchaseResult.success
        #expect(name(.userCancelled) == "userCancelled" && name(.pending) == "pending")
        // B.1 Product.PurchaseError — enum: Error, LocalizedError, Sendable, Hashable
        requireLocalizedError(Product.PurchaseError.self)
        requireSendable(Product.PurchaseError.self)
        requireHashable(Product.PurchaseError.self)
        let errors: [Product.PurchaseError] = [
            .invalidQuantity, .productUnavailable, .purchaseNotAllowed, .ineligibleForOffer, .invalidOfferIdentifier,
            .invalidOfferPrice, .invalidOfferSignature, .missingOfferParameters,
        ]
        #expect(Set(errors.map(name)).count == 8)
        #expect(errors.allSatisfy { $0.errorDescription?.isEmpty == false }, "each says what went wrong")
    }

    @Test("B.1 Product.PurchaseOption: every factory with Apple's labels and types")
    func purchaseOptions() {
        typealias Option = Product.PurchaseOption
        // B.1 Product.PurchaseOption — struct: Hashable, Sendable
        requireHashable(Option.self)
        requireSendable(Option.self)
        // B.1 Product.PurchaseOption.appAccountToken(_:)
        let _: (UUID) -> Option = Option.appAccountToken(_:)
        // B.1 Product.PurchaseOption.quantity(_:)
        let _: (Int) -> Option = Option.quantity(_:)
        // B.1 Product.PurchaseOption.simulatesAskToBuyInSandbox(_:)
        let _: (Bool) -> Option = Option.simulatesAskToBuyInSandbox(_:)
        // B.1 Product.PurchaseOption.custom(key:value:) — String, Double, Bool and Data values
        let _: (String, String) -> Option = Option.custom(key:value:)
        let _: (String, Double) -> Option = Option.custom(key:value:)
        let _: (String, Bool) -> Option = Option.custom(key:value:)
        let _: (String, Data) -> Option = Option.custom(key:value:)
        // B.1 Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)
        let _: (String, String, UUID, Data, Int) -> Option = Option.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)
        // B.1 Product.PurchaseOption.promotionalOffer(offerID:signature:) (iOS 17.4)
        let _: (String, Product.SubscriptionOffer.Signature) -> Option = Option.promotionalOffer(offerID:signature:)
        // B.1 Product.PurchaseOption.promotionalOffer(_:compactJWS:) — an array of options
        let _: (String, String) -> [Option] = Option.promotionalOffer(_:compactJWS:)
        // B.1 Product.PurchaseOption.introductoryOfferEligibility(compactJWS:) (back-deployed, iOS 18.4 SDK)
        let _: (String) -> Option = Option.introductoryOfferEligibility(compactJWS:)
        // B.1 Product.PurchaseOption.winBackOffer(_:) (iOS 18)
        let _: (Product.SubscriptionOffer) -> Option = Option.winBackOffer(_:)
        // B.1 Product.PurchaseOption.billingPlanType(_:) (iOS 26.4)
        let _: (Product.SubscriptionInfo.BillingPlanType) -> Option = Option.billingPlanType(_:)
        // B.1 Product.PurchaseOption.onStorefrontChange(shouldContinuePurchase:)
        let _: Option = .onStorefrontChange { storefront in storefront.countryCode == "USA" }
        // B.1 Product.PurchaseOption.promotionalOffer(id:) (StoreKit Test, iOS 17)
        let _: (String) -> Option = Option.promotionalOffer(id:)
        // B.1 Product.PurchaseOption.codeOffer(referenceName:) (StoreKit Test, iOS 17)
        let _: (String) -> Option = Option.codeOffer(referenceName:)
        // B.1 Product.PurchaseOption.purchaseDate(_:renewalBehavior:) (StoreKit Test, iOS 17), renewing up to now by default
        let _: (Date, Option.SubscriptionRenewalBehavior) -> Option = Option.purchaseDate(_:renewalBehavior:)
        let _: Option = .purchaseDate(Date())
        // B.1 Product.PurchaseOption.SubscriptionRenewalBehavior (StoreKit Test, iOS 17): its two cases
        switch Option.SubscriptionRenewalBehavior.renewUntilNow {
        case .renewUntilNow, .cancelImmediately: break
        }
        requireSendable(Option.SubscriptionRenewalBehavior.self)
        requireHashable(Option.SubscriptionRenewalBehavior.self)
        // Options are values: the same option twice is one element of the set.
        let token = UUID()
        #expect(Set<Option>([.appAccountToken(token), .appAccountToken(token), .quantity(2)]).count == 2)
    }
}
