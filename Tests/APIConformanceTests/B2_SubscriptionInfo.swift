// B.2 Product.SubscriptionInfo, its Status, RenewalState and RenewalInfo, checked against api-surface.md: each
// declaration's check follows a comment naming it. The members Apple deprecated are in B4_StoreKit2Spellings.swift.
import Foundation
import OpenStoreKit
import Testing

/// Names every case: a case added to or removed from `RenewalInfo.PriceIncreaseStatus` breaks this `switch`.
private func name(_ status: Product.SubscriptionInfo.RenewalInfo.PriceIncreaseStatus) -> String {
    switch status {
    case .noIncreasePending: "noIncreasePending"
    case .pending: "pending"
    case .agreed: "agreed"
    }
}

@Suite("B.2 Product.SubscriptionInfo has Apple's declarations")
struct SubscriptionInfoConformance {
    typealias Info = Product.SubscriptionInfo

    @Test("B.2 Product.SubscriptionInfo: the group, the period, the offers, eligibility and status")
    func subscriptionInfo() {
        // B.2 Product.SubscriptionInfo — struct: Equatable, Hashable, Sendable
        requireHashable(Info.self)
        requireSendable(Info.self)
        // B.2 Product.SubscriptionInfo.subscriptionGroupID
        let _: KeyPath<Info, String> = \.subscriptionGroupID
        // B.2 Product.SubscriptionInfo.groupDisplayName (iOS 16.4)
        let _: KeyPath<Info, String> = \.groupDisplayName
        // B.2 Product.SubscriptionInfo.groupLevel (iOS 16.4)
        let _: KeyPath<Info, Int> = \.groupLevel
        // B.2 Product.SubscriptionInfo.subscriptionPeriod
        let _: KeyPath<Info, Product.SubscriptionPeriod> = \.subscriptionPeriod
        // B.2 Product.SubscriptionInfo.introductoryOffer
        let _: KeyPath<Info, Product.SubscriptionOffer?> = \.introductoryOffer
        // B.2 Product.SubscriptionInfo.promotionalOffers
        let _: KeyPath<Info, [Product.SubscriptionOffer]> = \.promotionalOffers
        // B.2 Product.SubscriptionInfo.winBackOffers (iOS 18)
        let _: KeyPath<Info, [Product.SubscriptionOffer]> = \.winBackOffers
        // B.2 Product.SubscriptionInfo.isEligibleForIntroOffer — get async
        let _: (Info) async -> Bool = { await $0.isEligibleForIntroOffer }
        // B.2 Product.SubscriptionInfo.isEligibleForIntroOffer(for:)
        let _: (String) async -> Bool = Info.isEligibleForIntroOffer(for:)
        // B.2 Product.SubscriptionInfo.status — get async throws
        let _: (Info) async throws -> [Info.Status] = { try await $0.status }
        // B.2 Product.SubscriptionInfo.status(for:)
        let _: (String) async throws -> [Info.Status] = Info.status(for:)
        // B.2 Product.SubscriptionInfo.status(transactionID:) (iOS 18.4)
        let _: (UInt64) async throws -> Info.Status? = Info.status(transactionID:)
    }

    @Test("B.2 Product.SubscriptionInfo.RenewalState: the five states and their App Store numbers")
    func renewalState() {
        typealias State = Info.RenewalState
        // B.2 Product.SubscriptionInfo.RenewalState — RawRepresentable (Int), Hashable, Sendable
        requireRawValue(State.self, Int.self)
        requireHashable(State.self)
        requireSendable(State.self)
        // B.2 Product.SubscriptionInfo.RenewalState.init(rawValue:)
        let _: (Int) -> State = State.init(rawValue:)
        // B.2 Product.SubscriptionInfo.RenewalState.subscribed
        #expect(State.subscribed.rawValue == 1)
        // B.2 Product.SubscriptionInfo.RenewalState.expired
        #expect(State.expired.rawValue == 2)
        // B.2 Product.SubscriptionInfo.RenewalState.inBillingRetryPeriod
        #expect(State.inBillingRetryPeriod.rawValue == 3)
        // B.2 Product.SubscriptionInfo.RenewalState.inGracePeriod
        #expect(State.inGracePeriod.rawValue == 4)
        // B.2 Product.SubscriptionInfo.RenewalState.revoked
        #expect(State.revoked.rawValue == 5)
        // B.2 Product.SubscriptionInfo.RenewalState.localizedDescription (iOS 15.4)
        let _: KeyPath<State, String> = \.localizedDescription
    }

    @Test("B.2 Product.SubscriptionInfo.Status: state, transaction, renewal info, updates and all")
    func status() {
        typealias Status = Info.Status
        // B.2 Product.SubscriptionInfo.Status — struct: Equatable, Hashable, Sendable
        requireHashable(Status.self)
        requireSendable(Status.self)
        // B.2 Product.SubscriptionInfo.Status.state
        let _: KeyPath<Status, Info.RenewalState> = \.state
        // B.2 Product.SubscriptionInfo.Status.transaction
        let _: KeyPath<Status, VerificationResult<Transaction>> = \.transaction
        // B.2 Product.SubscriptionInfo.Status.renewalInfo
        let _: KeyPath<Status, VerificationResult<Info.RenewalInfo>> = \.renewalInfo
        // B.2 Product.SubscriptionInfo.Status.updates
        let _: () -> Status.Statuses = { Status.updates }
        // B.2 Product.SubscriptionInfo.Status.all (iOS 17)
        let _: () -> AsyncStream<(groupID: String, statuses: [Status])> = { Status.all }
        // B.2 Product.SubscriptionInfo.Status.Statuses — AsyncSequence of Status, Sendable
        requireAsyncSequence(Status.Statuses.self, element: Status.self)
        requireSendable(Status.Statuses.self)
    }

    @Test("B.2 Product.SubscriptionInfo.RenewalInfo: every current member, ExpirationReason and PriceIncreaseStatus")
    func renewalInfo() {
        typealias RenewalInfo = Info.RenewalInfo
        // B.2 Product.SubscriptionInfo.RenewalInfo — struct: Equatable, Hashable, Sendable, CustomDebugStringConvertible
        requireHashable(RenewalInfo.self)
        requireSendable(RenewalInfo.self)
        requireCustomDebugStringConvertible(RenewalInfo.self)
        // B.2 RenewalInfo.originalTransactionID
        let _: KeyPath<RenewalInfo, UInt64> = \.originalTransactionID
        // B.2 RenewalInfo.currentProductID
        let _: KeyPath<RenewalInfo, String> = \.currentProductID
        // B.2 RenewalInfo.willAutoRenew
        let _: KeyPath<RenewalInfo, Bool> = \.willAutoRenew
        // B.2 RenewalInfo.autoRenewPreference
        let _: KeyPath<RenewalInfo, String?> = \.autoRenewPreference
        // B.2 RenewalInfo.expirationReason
        let _: KeyPath<RenewalInfo, RenewalInfo.ExpirationReason?> = \.expirationReason
        // B.2 RenewalInfo.isInBillingRetry
        let _: KeyPath<RenewalInfo, Bool> = \.isInBillingRetry
        // B.2 RenewalInfo.gracePeriodExpirationDate
        let _: KeyPath<RenewalInfo, Date?> = \.gracePeriodExpirationDate
        // B.2 RenewalInfo.priceIncreaseStatus
        let _: KeyPath<RenewalInfo, RenewalInfo.PriceIncreaseStatus> = \.priceIncreaseStatus
        // B.2 RenewalInfo.offer (iOS 18)
        let _: KeyPath<RenewalInfo, Transaction.Offer?> = \.offer
        // B.2 RenewalInfo.eligibleWinBackOfferIDs (iOS 18)
        let _: KeyPath<RenewalInfo, [String]> = \.eligibleWinBackOfferIDs
        // B.2 RenewalInfo.environment (iOS 16)
        let _: KeyPath<RenewalInfo, AppStore.Environment> = \.environment
        // B.2 RenewalInfo.signedDate
        let _: KeyPath<RenewalInfo, Date> = \.signedDate
        // B.2 RenewalInfo.deviceVerification
        let _: KeyPath<RenewalInfo, Data> = \.deviceVerification
        // B.2 RenewalInfo.deviceVerificationNonce
        let _: KeyPath<RenewalInfo, UUID> = \.deviceVerificationNonce
        // B.2 RenewalInfo.jsonRepresentation
        let _: KeyPath<RenewalInfo, Data> = \.jsonRepresentation
        // B.2 RenewalInfo.recentSubscriptionStartDate
        let _: KeyPath<RenewalInfo, Date> = \.recentSubscriptionStartDate
        // B.2 RenewalInfo.renewalDate
        let _: KeyPath<RenewalInfo, Date?> = \.renewalDate
        // B.2 RenewalInfo.renewalPrice
        let _: KeyPath<RenewalInfo, Decimal?> = \.renewalPrice
        // B.2 RenewalInfo.currency (iOS 16)
        let _: KeyPath<RenewalInfo, Locale.Currency?> = \.currency
        // B.2 RenewalInfo.appAccountToken
        let _: KeyPath<RenewalInfo, UUID?> = \.appAccountToken
        // B.2 RenewalInfo.appTransactionID
        let _: KeyPath<RenewalInfo, String> = \.appTransactionID
        // B.2 RenewalInfo.debugDescription
        let _: KeyPath<RenewalInfo, String> = \.debugDescription

        typealias Reason = RenewalInfo.ExpirationReason
        // B.2 RenewalInfo.ExpirationReason — RawRepresentable (Int, the JWS expirationIntent), Hashable, Sendable
        requireRawValue(Reason.self, Int.self)
        requireHashable(Reason.self)
        requireSendable(Reason.self)
        // B.2 RenewalInfo.ExpirationReason.init(rawValue:)
        let _: (Int) -> Reason = Reason.init(rawValue:)
        // B.2 RenewalInfo.ExpirationReason.autoRenewDisabled
        #expect(Reason.autoRenewDisabled.rawValue == 1)
        // B.2 RenewalInfo.ExpirationReason.billingError
        #expect(Reason.billingError.rawValue == 2)
        // B.2 RenewalInfo.ExpirationReason.didNotConsentToPriceIncrease
        #expect(Reason.didNotConsentToPriceIncrease.rawValue == 3)
        // B.2 RenewalInfo.ExpirationReason.productUnavailable
        #expect(Reason.productUnavailable.rawValue == 4)
        // B.2 RenewalInfo.ExpirationReason.unknown
        #expect(Reason.unknown.rawValue == 5)
        // B.2 RenewalInfo.ExpirationReason.localizedDescription
        let _: KeyPath<Reason, String> = \.localizedDescription

        // B.2 RenewalInfo.PriceIncreaseStatus — @frozen enum: noIncreasePending, pending, agreed
        requireHashable(RenewalInfo.PriceIncreaseStatus.self)
        requireSendable(RenewalInfo.PriceIncreaseStatus.self)
        #expect([name(.noIncreasePending), name(.pending), name(.agreed)] == ["noIncreasePending", "pending", "agreed"])
    }

    @Test("B.2 Monthly billing with a 12-month commitment: pricingTerms, BillingPlanType, CommitmentInfo, RenewalInfo's commitment (iOS 26.4)")
    func billingPlans() {
        // B.2 Product.SubscriptionInfo.pricingTerms (iOS 26.4)
        let _: KeyPath<Info, [Info.PricingTerms]> = \.pricingTerms
        // B.2 Product.SubscriptionInfo.BillingPlanType — struct: RawRepresentable (String), Hashable, Sendable
        requireRawValue(Info.BillingPlanType.self, String.self)
        requireHashable(Info.BillingPlanType.self)
        requireSendable(Info.BillingPlanType.self)
        // B.2 Product.SubscriptionInfo.BillingPlanType.init(rawValue:), .rawValue
        let _: (String) -> Info.BillingPlanType = Info.BillingPlanType.init(rawValue:)
        let _: KeyPath<Info.BillingPlanType, String> = \.rawValue
        // B.2 Product.SubscriptionInfo.BillingPlanType.monthly, .upFront
        let plans: [Info.BillingPlanType] = [.monthly, .upFront]
        #expect(Set(plans).count == 2)
        // B.2 Product.SubscriptionInfo.BillingPeriod — typealias of Product.SubscriptionPeriod
        let _: Info.BillingPeriod.Type = Product.SubscriptionPeriod.self
        // B.2 Product.SubscriptionInfo.CommitmentInfo — struct: Equatable, Hashable, Sendable; price, displayPrice, period
        requireHashable(Info.CommitmentInfo.self)
        requireSendable(Info.CommitmentInfo.self)
        let _: KeyPath<Info.CommitmentInfo, Decimal> = \.price
        let _: KeyPath<Info.CommitmentInfo, String> = \.displayPrice
        let _: KeyPath<Info.CommitmentInfo, Product.SubscriptionPeriod> = \.period
        // B.2 Product.SubscriptionInfo.PricingTerms — struct: Equatable, Hashable, Sendable
        typealias Terms = Info.PricingTerms
        requireHashable(Terms.self)
        requireSendable(Terms.self)
        // B.2 PricingTerms.billingPlanType, billingPrice, billingDisplayPrice, billingPeriod, commitmentInfo, subscriptionOffers
        let _: KeyPath<Terms, Info.BillingPlanType> = \.billingPlanType
        let _: KeyPath<Terms, Decimal> = \.billingPrice
        let _: KeyPath<Terms, String> = \.billingDisplayPrice
        let _: KeyPath<Terms, Info.BillingPeriod> = \.billingPeriod
        let _: KeyPath<Terms, Info.CommitmentInfo> = \.commitmentInfo
        let _: KeyPath<Terms, [Product.SubscriptionOffer]> = \.subscriptionOffers
        // B.2 PricingTerms.subscript(offers:)
        let _: (Terms, Product.SubscriptionOffer.OfferType) -> [Product.SubscriptionOffer] = { $0[offers: $1] }
        // B.2 Product.SubscriptionInfo.RenewalInfo.renewalBillingPlanType, .commitmentInfo (iOS 26.4)
        typealias RenewalInfo = Info.RenewalInfo
        let _: KeyPath<RenewalInfo, Info.BillingPlanType?> = \.renewalBillingPlanType
        let _: KeyPath<RenewalInfo, RenewalInfo.CommitmentInfo?> = \.commitmentInfo
        // B.2 RenewalInfo.CommitmentInfo — struct: Equatable, Hashable, Sendable; renewalDate, renewalPrice,
        // willAutoRenew, autoRenewPreference, renewalBillingPlanType
        requireHashable(RenewalInfo.CommitmentInfo.self)
        requireSendable(RenewalInfo.CommitmentInfo.self)
        let _: KeyPath<RenewalInfo.CommitmentInfo, Date> = \.renewalDate
        let _: KeyPath<RenewalInfo.CommitmentInfo, Decimal> = \.renewalPrice
        let _: KeyPath<RenewalInfo.CommitmentInfo, Bool> = \.willAutoRenew
        let _: KeyPath<RenewalInfo.CommitmentInfo, String> = \.autoRenewPreference
        let _: KeyPath<RenewalInfo.CommitmentInfo, Info.BillingPlanType> = \.renewalBillingPlanType
    }
}
