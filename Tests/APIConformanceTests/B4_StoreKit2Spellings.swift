// B.2 and B.4: the StoreKit 2 spellings iOS code still writes — members Apple deprecated but ships, the iOS 18.4
// top-level subscription names, and module-qualified `StoreKit.` names — checked against api-surface.md. The rest of
// StoreKit 2's surface is pinned section by section in B1_Product.swift to B12_StoreKitError.swift.
import Foundation
import OpenStoreKit
import Testing

@Suite("B StoreKit 2 spellings iOS code writes")
struct StoreKit2SpellingsConformance {
    @Test("B.4 Transaction's deprecated members: offerID, offerType, offerPaymentModeStringRepresentation, offerPeriodStringRepresentation, currencyCode, environmentStringRepresentation, reasonStringRepresentation, storefrontCountryCode, revocationTypeStringRepresentation")
    func deprecatedTransactionMembers() {
        // B.4 Transaction.offerID (DEP 17.2)
        let _: KeyPath<Transaction, String?> = \.offerID
        // B.4 Transaction.offerType (DEP 17.2)
        let _: KeyPath<Transaction, Transaction.OfferType?> = \.offerType
        // B.4 Transaction.offerPaymentModeStringRepresentation (DEP 17.2)
        let _: KeyPath<Transaction, String?> = \.offerPaymentModeStringRepresentation
        // B.4 Transaction.offerPeriodStringRepresentation (DEP 18.4)
        let _: KeyPath<Transaction, String?> = \.offerPeriodStringRepresentation
        // B.4 Transaction.currencyCode (DEP 16)
        let _: KeyPath<Transaction, String?> = \.currencyCode
        // B.4 Transaction.environmentStringRepresentation (DEP 16)
        let _: KeyPath<Transaction, String> = \.environmentStringRepresentation
        // B.4 Transaction.reasonStringRepresentation (DEP 17)
        let _: KeyPath<Transaction, String> = \.reasonStringRepresentation
        // B.4 Transaction.storefrontCountryCode (DEP 17)
        let _: KeyPath<Transaction, String> = \.storefrontCountryCode
        // B.4 Transaction.revocationTypeStringRepresentation (DEP 26.4, back-deployed)
        let _: KeyPath<Transaction, String?> = \.revocationTypeStringRepresentation
    }

    @Test("B.2 RenewalInfo's deprecated members: offerID, offerType, offerPaymentModeStringRepresentation, offerPeriodStringRepresentation, currencyCode, environmentStringRepresentation")
    func deprecatedRenewalInfoMembers() {
        typealias RenewalInfo = Product.SubscriptionInfo.RenewalInfo
        // B.2 RenewalInfo.offerID (DEP 18.0)
        let _: KeyPath<RenewalInfo, String?> = \.offerID
        // B.2 RenewalInfo.offerType (DEP 18.0)
        let _: KeyPath<RenewalInfo, Transaction.OfferType?> = \.offerType
        // B.2 RenewalInfo.offerPaymentModeStringRepresentation (DEP 18.0)
        let _: KeyPath<RenewalInfo, String?> = \.offerPaymentModeStringRepresentation
        // B.2 RenewalInfo.offerPeriodStringRepresentation (DEP 18.4)
        let _: KeyPath<RenewalInfo, String?> = \.offerPeriodStringRepresentation
        // B.2 RenewalInfo.currencyCode (DEP 16)
        let _: KeyPath<RenewalInfo, String?> = \.currencyCode
        // B.2 RenewalInfo.environmentStringRepresentation (DEP 16)
        let _: KeyPath<RenewalInfo, String> = \.environmentStringRepresentation
    }

    @Test("B.2 the iOS 18.4 top-level names are the nested types")
    func topLevelSubscriptionNames() {
        // B.2 typealias SubscriptionInfo = Product.SubscriptionInfo (iOS 18.4)
        #expect(SubscriptionInfo.self == Product.SubscriptionInfo.self)
        // B.2 typealias SubscriptionPeriod = Product.SubscriptionPeriod (iOS 18.4)
        #expect(SubscriptionPeriod.self == Product.SubscriptionPeriod.self)
        // B.2 typealias SubscriptionStatus = Product.SubscriptionInfo.Status (iOS 18.4)
        #expect(SubscriptionStatus.self == Product.SubscriptionInfo.Status.self)
        // B.2 typealias SubscriptionRenewalInfo = Product.SubscriptionInfo.RenewalInfo (iOS 18.4)
        #expect(SubscriptionRenewalInfo.self == Product.SubscriptionInfo.RenewalInfo.self)
        // B.2 typealias SubscriptionRenewalState = Product.SubscriptionInfo.RenewalState (iOS 18.4)
        #expect(SubscriptionRenewalState.self == Product.SubscriptionInfo.RenewalState.self)
    }

    @Test("Module-qualified names, as libraries write them: StoreKit.Product, StoreKit.Transaction, StoreKit.SKPaymentQueue…")
    func moduleQualifiedNames() {
        #expect(StoreKit.Product.self == Product.self)
        #expect(StoreKit.Transaction.self == Transaction.self)
        #expect(StoreKit.VerificationResult<StoreKit.Transaction>.self == VerificationResult<Transaction>.self)
        #expect(StoreKit.AppStore.self == AppStore.self)
        #expect(StoreKit.SubscriptionStatus.self == Product.SubscriptionInfo.Status.self)
        #expect(StoreKit.SKPaymentQueue.self == SKPaymentQueue.self)
        #expect(StoreKit.SKError.Code.paymentCancelled == SKError.Code.paymentCancelled)
        let _: (any StoreKit.SKPaymentTransactionObserver)? = nil
    }
}
