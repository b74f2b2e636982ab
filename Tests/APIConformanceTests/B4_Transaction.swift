// B.4 Transaction, its sequences, refund requests and nested types, checked against api-surface.md: each
// declaration's check follows a comment naming it. The members Apple deprecated are in B4_StoreKit2Spellings.swift.
import Foundation
import OpenStoreKit
import Testing

/// Names every case: a case added to or removed from `Transaction.RefundRequestStatus` breaks this `switch`.
private func name(_ status: Transaction.RefundRequestStatus) -> String {
    switch status {
    case .success: "success"
    case .userCancelled: "userCancelled"
    }
}

/// Names every case of `Transaction.RefundRequestError`.
private func name(_ error: Transaction.RefundRequestError) -> String {
    switch error {
    case .duplicateRequest: "duplicateRequest"
    case .failed: "failed"
    }
}

@Suite("B.4 Transaction has Apple's declarations")
struct TransactionConformance {
    @Test("B.4 Transaction: identity, dates, purchase details and verification")
    func transaction() {
        // B.4 Transaction — struct: Equatable, Hashable, Sendable, CustomDebugStringConvertible
        requireHashable(Transaction.self)
        requireSendable(Transaction.self)
        requireCustomDebugStringConvertible(Transaction.self)
        // B.4 Transaction.id
        let _: KeyPath<Transaction, UInt64> = \.id
        // B.4 Transaction.originalID
        let _: KeyPath<Transaction, UInt64> = \.originalID
        // B.4 Transaction.webOrderLineItemID
        let _: KeyPath<Transaction, String?> = \.webOrderLineItemID
        // B.4 Transaction.productID
        let _: KeyPath<Transaction, String> = \.productID
        // B.4 Transaction.subscriptionGroupID
        let _: KeyPath<Transaction, String?> = \.subscriptionGroupID
        // B.4 Transaction.appBundleID
        let _: KeyPath<Transaction, String> = \.appBundleID
        // B.4 Transaction.appTransactionID
        let _: KeyPath<Transaction, String> = \.appTransactionID
        // B.4 Transaction.billingPlanType (iOS 26.4)
        let _: KeyPath<Transaction, Product.SubscriptionInfo.BillingPlanType?> = \.billingPlanType
        // B.4 Transaction.commitmentInfo (iOS 26.4)
        let _: KeyPath<Transaction, Transaction.CommitmentInfo?> = \.commitmentInfo
        // B.4 Transaction.revocationType (iOS 26.4)
        let _: KeyPath<Transaction, Transaction.RevocationType?> = \.revocationType
        // B.4 Transaction.CommitmentInfo — struct: Equatable, Hashable, Sendable; expirationDate, billingPeriodNumber,
        // totalBillingPeriods, price
        requireHashable(Transaction.CommitmentInfo.self)
        requireSendable(Transaction.CommitmentInfo.self)
        let _: KeyPath<Transaction.CommitmentInfo, Date> = \.expirationDate
        let _: KeyPath<Transaction.CommitmentInfo, UInt64> = \.billingPeriodNumber
        let _: KeyPath<Transaction.CommitmentInfo, UInt64> = \.totalBillingPeriods
        let _: KeyPath<Transaction.CommitmentInfo, Decimal> = \.price
        // B.4 Transaction.appAccountToken
        let _: KeyPath<Transaction, UUID?> = \.appAccountToken
        // B.4 Transaction.purchaseDate
        let _: KeyPath<Transaction, Date> = \.purchaseDate
        // B.4 Transaction.originalPurchaseDate
        let _: KeyPath<Transaction, Date> = \.originalPurchaseDate
        // B.4 Transaction.expirationDate
        let _: KeyPath<Transaction, Date?> = \.expirationDate
        // B.4 Transaction.signedDate
        let _: KeyPath<Transaction, Date> = \.signedDate
        // B.4 Transaction.revocationDate
        let _: KeyPath<Transaction, Date?> = \.revocationDate
        // B.4 Transaction.revocationReason
        let _: KeyPath<Transaction, Transaction.RevocationReason?> = \.revocationReason
        // B.4 Transaction.productType
        let _: KeyPath<Transaction, Product.ProductType> = \.productType
        // B.4 Transaction.purchasedQuantity
        let _: KeyPath<Transaction, Int> = \.purchasedQuantity
        // B.4 Transaction.isUpgraded
        let _: KeyPath<Transaction, Bool> = \.isUpgraded
        // B.4 Transaction.ownershipType
        let _: KeyPath<Transaction, Transaction.OwnershipType> = \.ownershipType
        // B.4 Transaction.price
        let _: KeyPath<Transaction, Decimal?> = \.price
        // B.4 Transaction.currency (iOS 16)
        let _: KeyPath<Transaction, Locale.Currency?> = \.currency
        // B.4 Transaction.offer (iOS 17.2)
        let _: KeyPath<Transaction, Transaction.Offer?> = \.offer
        // B.4 Transaction.environment (iOS 16)
        let _: KeyPath<Transaction, AppStore.Environment> = \.environment
        // B.4 Transaction.reason (iOS 17)
        let _: KeyPath<Transaction, Transaction.Reason> = \.reason
        // B.4 Transaction.storefront (iOS 17)
        let _: KeyPath<Transaction, Storefront> = \.storefront
        // B.4 Transaction.subscriptionStatus — get async
        let _: (Transaction) async -> Product.SubscriptionInfo.Status? = { await $0.subscriptionStatus }
        // B.4 Transaction.deviceVerification
        let _: KeyPath<Transaction, Data> = \.deviceVerification
        // B.4 Transaction.deviceVerificationNonce
        let _: KeyPath<Transaction, UUID> = \.deviceVerificationNonce
        // B.4 Transaction.jsonRepresentation
        let _: KeyPath<Transaction, Data> = \.jsonRepresentation
        // B.4 Transaction.debugDescription
        let _: KeyPath<Transaction, String> = \.debugDescription
        // B.4 Transaction.finish()
        let _: (Transaction) -> () async -> Void = Transaction.finish
    }

    @Test("B.4 Transaction's sequences: updates, all, currentEntitlements, latest, unfinished")
    func sequences() {
        // B.4 Transaction.Transactions — AsyncSequence of VerificationResult<Transaction>, Sendable
        requireAsyncSequence(Transaction.Transactions.self, element: VerificationResult<Transaction>.self)
        requireSendable(Transaction.Transactions.self)
        // B.4 Transaction.updates
        let _: () -> Transaction.Transactions = { Transaction.updates }
        // B.4 Transaction.all
        let _: () -> Transaction.Transactions = { Transaction.all }
        // B.4 Transaction.all(for:) (iOS 18.4)
        let _: (String) -> Transaction.Transactions = Transaction.all(for:)
        // B.4 Transaction.currentEntitlements
        let _: () -> Transaction.Transactions = { Transaction.currentEntitlements }
        // B.4 Transaction.currentEntitlements(for:) (iOS 18.4)
        let _: (String) -> Transaction.Transactions = Transaction.currentEntitlements(for:)
        // B.4 Transaction.currentEntitlement(for:) (deprecated in iOS 18.4)
        let _: (String) async -> VerificationResult<Transaction>? = Transaction.currentEntitlement(for:)
        // B.4 Transaction.latest(for:)
        let _: (String) async -> VerificationResult<Transaction>? = Transaction.latest(for:)
        // B.4 Transaction.unfinished
        let _: () -> Transaction.Transactions = { Transaction.unfinished }
    }

    @Test("B.4 Transaction.beginRefundRequest, RefundRequestStatus and RefundRequestError")
    @MainActor
    func refunds() {
        // B.4 Transaction.beginRefundRequest(for:in:) — @MainActor, async throws
        let _: @MainActor (UInt64, UIWindowScene) async throws -> Transaction.RefundRequestStatus = Transaction.beginRefundRequest(for:in:)
        // B.4 Transaction.beginRefundRequest(in:) — @MainActor, async throws
        let _: @MainActor (Transaction, UIWindowScene) async throws -> Transaction.RefundRequestStatus = {
            try await $0.beginRefundRequest(in: $1)
        }
        // B.4 Transaction.RefundRequestStatus — enum: success, userCancelled
        requireSendable(Transaction.RefundRequestStatus.self)
        #expect([name(.success), name(.userCancelled)] == ["success", "userCancelled"])
        // B.4 Transaction.RefundRequestError — enum: Error, LocalizedError, Sendable: duplicateRequest, failed
        requireLocalizedError(Transaction.RefundRequestError.self)
        requireSendable(Transaction.RefundRequestError.self)
        #expect([name(.duplicateRequest), name(.failed)] == ["duplicateRequest", "failed"])
    }

    @Test("B.4 Transaction's nested types: OwnershipType, RevocationReason, Reason, OfferType, Offer and their App Store values")
    func nestedTypes() {
        // B.4 Transaction.OwnershipType — RawRepresentable (String), Hashable, Sendable
        requireRawValue(Transaction.OwnershipType.self, String.self)
        requireSendable(Transaction.OwnershipType.self)
        // B.4 Transaction.OwnershipType.init(rawValue:)
        let _: (String) -> Transaction.OwnershipType = Transaction.OwnershipType.init(rawValue:)
        // B.4 Transaction.OwnershipType.purchased
        #expect(Transaction.OwnershipType.purchased.rawValue == "PURCHASED")
        // B.4 Transaction.OwnershipType.familyShared
        #expect(Transaction.OwnershipType.familyShared.rawValue == "FAMILY_SHARED")
        // B.4 Transaction.OwnershipType.localizedDescription
        let _: KeyPath<Transaction.OwnershipType, String> = \.localizedDescription

        // B.4 Transaction.RevocationType (iOS 26.4) — RawRepresentable (String), Hashable, Sendable
        requireRawValue(Transaction.RevocationType.self, String.self)
        requireSendable(Transaction.RevocationType.self)
        requireHashable(Transaction.RevocationType.self)
        // B.4 Transaction.RevocationType.init(rawValue:)
        let _: (String) -> Transaction.RevocationType = Transaction.RevocationType.init(rawValue:)
        // B.4 Transaction.RevocationType.fullRefund, proratedRefund, familyRevocation: the App Store's revocationType values
        #expect(Transaction.RevocationType.fullRefund.rawValue == "REFUND_FULL")
        #expect(Transaction.RevocationType.proratedRefund.rawValue == "REFUND_PRORATED")
        #expect(Transaction.RevocationType.familyRevocation.rawValue == "FAMILY_REVOKE")

        // B.4 Transaction.RevocationReason — RawRepresentable (Int), Hashable, Sendable
        requireRawValue(Transaction.RevocationReason.self, Int.self)
        requireSendable(Transaction.RevocationReason.self)
        // B.4 Transaction.RevocationReason.init(rawValue:)
        let _: (Int) -> Transaction.RevocationReason = Transaction.RevocationReason.init(rawValue:)
        // B.4 Transaction.RevocationReason.developerIssue
        #expect(Transaction.RevocationReason.developerIssue.rawValue == 1)
        // B.4 Transaction.RevocationReason.other
        #expect(Transaction.RevocationReason.other.rawValue == 0)
        // B.4 Transaction.RevocationReason.localizedDescription
        let _: KeyPath<Transaction.RevocationReason, String> = \.localizedDescription

        // B.4 Transaction.Reason (iOS 17) — RawRepresentable (String), Hashable, Sendable
        requireRawValue(Transaction.Reason.self, String.self)
        requireSendable(Transaction.Reason.self)
        // B.4 Transaction.Reason.init(rawValue:)
        let _: (String) -> Transaction.Reason = Transaction.Reason.init(rawValue:)
        // B.4 Transaction.Reason.purchase
        #expect(Transaction.Reason.purchase.rawValue == "PURCHASE")
        // B.4 Transaction.Reason.renewal
        #expect(Transaction.Reason.renewal.rawValue == "RENEWAL")

        // B.4 Transaction.OfferType — RawRepresentable (Int), Hashable, Sendable
        requireRawValue(Transaction.OfferType.self, Int.self)
        requireSendable(Transaction.OfferType.self)
        // B.4 Transaction.OfferType.init(rawValue:)
        let _: (Int) -> Transaction.OfferType = Transaction.OfferType.init(rawValue:)
        // B.4 Transaction.OfferType.introductory
        #expect(Transaction.OfferType.introductory.rawValue == 1)
        // B.4 Transaction.OfferType.promotional
        #expect(Transaction.OfferType.promotional.rawValue == 2)
        // B.4 Transaction.OfferType.code
        #expect(Transaction.OfferType.code.rawValue == 3)
        // B.4 Transaction.OfferType.winBack (iOS 18, back-deployed)
        #expect(Transaction.OfferType.winBack.rawValue == 4)

        // B.4 Transaction.Offer (iOS 17.2) — struct: Hashable, Sendable
        requireHashable(Transaction.Offer.self)
        requireSendable(Transaction.Offer.self)
        // B.4 Transaction.Offer.id
        let _: KeyPath<Transaction.Offer, String?> = \.id
        // B.4 Transaction.Offer.type
        let _: KeyPath<Transaction.Offer, Transaction.OfferType> = \.type
        // B.4 Transaction.Offer.paymentMode
        let _: KeyPath<Transaction.Offer, Transaction.Offer.PaymentMode?> = \.paymentMode
        // B.4 Transaction.Offer.period (iOS 18.4)
        let _: KeyPath<Transaction.Offer, Product.SubscriptionPeriod?> = \.period
        // B.4 Transaction.Offer.PaymentMode — RawRepresentable (String), Hashable, Sendable
        requireRawValue(Transaction.Offer.PaymentMode.self, String.self)
        requireSendable(Transaction.Offer.PaymentMode.self)
        // B.4 Transaction.Offer.PaymentMode.freeTrial
        #expect(Transaction.Offer.PaymentMode.freeTrial.rawValue == "FREE_TRIAL")
        // B.4 Transaction.Offer.PaymentMode.payAsYouGo
        #expect(Transaction.Offer.PaymentMode.payAsYouGo.rawValue == "PAY_AS_YOU_GO")
        // B.4 Transaction.Offer.PaymentMode.payUpFront
        #expect(Transaction.Offer.PaymentMode.payUpFront.rawValue == "PAY_UP_FRONT")
        // B.4 Transaction.Offer.PaymentMode.oneTime (back-deployed, iOS 26 SDK): offers on one-time products
        #expect(Transaction.Offer.PaymentMode.oneTime.rawValue == "ONE_TIME")
    }
}
