// C.5 Simulated errors: SKTestFailure, FailableStoreKitAPI, the StoreKit*API structs and SKTestFailures, checked
// against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

/// Compiles only when `T` is an `SKTestFailure`.
private func requireTestFailure<T: SKTestFailure>(_: T.Type) {}

/// Compiles only when `API`'s `Failure` is exactly `failure`.
private func requireFailure<API: FailableStoreKitAPI>(_: API.Type, _ failure: API.Failure.Type) {}

/// A generic call site, as `setSimulatedError(_:forAPI:)` is one: `.purchase` and the other leading-dot names must
/// resolve here through the constrained static members.
private func kind<API: FailableStoreKitAPI>(of api: API) -> String {
    String(describing: API.Failure.self).components(separatedBy: ".").last ?? ""
}

/// Names every case: a case added to or removed from `SKTestFailures.AppStoreSync` breaks this `switch`.
private func name(_ failure: SKTestFailures.AppStoreSync) -> String {
    switch failure {
    case .generic: "generic"
    }
}

/// Names every case: a case added to or removed from `SKTestFailures.AppTransaction` breaks this `switch`.
private func name(_ failure: SKTestFailures.AppTransaction) -> String {
    switch failure {
    case .generic: "generic"
    }
}

/// Names every case: a case added to or removed from `SKTestFailures.LoadProducts` breaks this `switch`.
private func name(_ failure: SKTestFailures.LoadProducts) -> String {
    switch failure {
    case .generic: "generic"
    }
}

/// Names every case: a case added to or removed from `SKTestFailures.ManageSubscriptions` breaks this `switch`.
private func name(_ failure: SKTestFailures.ManageSubscriptions) -> String {
    switch failure {
    case .generic: "generic"
    }
}

/// Names every case: a case added to or removed from `SKTestFailures.OfferCodeRedeem` breaks this `switch`.
private func name(_ failure: SKTestFailures.OfferCodeRedeem) -> String {
    switch failure {
    case .generic: "generic"
    }
}

/// Names every case: a case added to or removed from `SKTestFailures.Purchase` breaks this `switch`.
private func name(_ failure: SKTestFailures.Purchase) -> String {
    switch failure {
    case .generic: "generic"
    case .purchase: "purchase"
    }
}

/// Names every case: a case added to or removed from `SKTestFailures.RefundRequest` breaks this `switch`.
private func name(_ failure: SKTestFailures.RefundRequest) -> String {
    switch failure {
    case .generic: "generic"
    case .refundRequest: "refundRequest"
    }
}

/// Names every case: a case added to or removed from `SKTestFailures.SubscriptionStatus` breaks this `switch`.
private func name(_ failure: SKTestFailures.SubscriptionStatus) -> String {
    switch failure {
    case .generic: "generic"
    }
}

/// Names every case: a case added to or removed from `SKTestFailures.Verification` breaks this `switch`.
private func name(_ failure: SKTestFailures.Verification) -> String {
    switch failure {
    case .verification: "verification"
    }
}

@Suite("C.5 Simulated errors have Apple's declarations")
struct SimulatedErrorsConformance {
    @Test("C.5 SKTestFailure and FailableStoreKitAPI: the protocols")
    func protocols() {
        // C.5 SKTestFailure — protocol: Equatable, Sendable
        func refinesEquatableAndSendable<T: SKTestFailure>(_: T.Type) {
            requireEquatable(T.self)
            requireSendable(T.self)
        }
        refinesEquatableAndSendable(SKTestFailures.Purchase.self)

        // C.5 FailableStoreKitAPI — protocol: Sendable, primary associated type Failure: SKTestFailure
        func refinesSendable<T: FailableStoreKitAPI>(_: T.Type) {
            requireSendable(T.self)
            requireTestFailure(T.Failure.self)
        }
        refinesSendable(StoreKitPurchaseAPI.self)
        let _: any FailableStoreKitAPI<SKTestFailures.Purchase> = StoreKitPurchaseAPI.purchase
    }

    @Test("C.5 the StoreKit*API structs: initializers, Failure types and leading-dot names")
    func apis() {
        // C.5 StoreKitAppStoreSyncAPI — struct: FailableStoreKitAPI, Failure = SKTestFailures.AppStoreSync
        requireFailure(StoreKitAppStoreSyncAPI.self, SKTestFailures.AppStoreSync.self)
        let _: any FailableStoreKitAPI<SKTestFailures.AppStoreSync> = StoreKitAppStoreSyncAPI()
        // C.5 StoreKitAppStoreSyncAPI.init()
        let _: () -> StoreKitAppStoreSyncAPI = StoreKitAppStoreSyncAPI.init
        // C.5 FailableStoreKitAPI.appStoreSync (where Self == StoreKitAppStoreSyncAPI)
        let _: StoreKitAppStoreSyncAPI = StoreKitAppStoreSyncAPI.appStoreSync
        #expect(kind(of: .appStoreSync) == "AppStoreSync", "C.5 `.appStoreSync` is a StoreKitAppStoreSyncAPI at a generic call site")

        // C.5 StoreKitAppTransactionAPI — struct: FailableStoreKitAPI, Failure = SKTestFailures.AppTransaction
        requireFailure(StoreKitAppTransactionAPI.self, SKTestFailures.AppTransaction.self)
        let _: any FailableStoreKitAPI<SKTestFailures.AppTransaction> = StoreKitAppTransactionAPI()
        // C.5 StoreKitAppTransactionAPI.init()
        let _: () -> StoreKitAppTransactionAPI = StoreKitAppTransactionAPI.init
        // C.5 FailableStoreKitAPI.appTransaction (where Self == StoreKitAppTransactionAPI)
        let _: StoreKitAppTransactionAPI = StoreKitAppTransactionAPI.appTransaction
        #expect(kind(of: .appTransaction) == "AppTransaction", "C.5 `.appTransaction` is a StoreKitAppTransactionAPI at a generic call site")

        // C.5 StoreKitLoadProductsAPI — struct: FailableStoreKitAPI, Failure = SKTestFailures.LoadProducts
        requireFailure(StoreKitLoadProductsAPI.self, SKTestFailures.LoadProducts.self)
        let _: any FailableStoreKitAPI<SKTestFailures.LoadProducts> = StoreKitLoadProductsAPI()
        // C.5 StoreKitLoadProductsAPI.init()
        let _: () -> StoreKitLoadProductsAPI = StoreKitLoadProductsAPI.init
        // C.5 FailableStoreKitAPI.loadProducts (where Self == StoreKitLoadProductsAPI)
        let _: StoreKitLoadProductsAPI = StoreKitLoadProductsAPI.loadProducts
        #expect(kind(of: .loadProducts) == "LoadProducts", "C.5 `.loadProducts` is a StoreKitLoadProductsAPI at a generic call site")

        // C.5 StoreKitManageSubscriptionsAPI — struct: FailableStoreKitAPI, Failure = SKTestFailures.ManageSubscriptions
        requireFailure(StoreKitManageSubscriptionsAPI.self, SKTestFailures.ManageSubscriptions.self)
        let _: any FailableStoreKitAPI<SKTestFailures.ManageSubscriptions> = StoreKitManageSubscriptionsAPI()
        // C.5 StoreKitManageSubscriptionsAPI.init()
        let _: () -> StoreKitManageSubscriptionsAPI = StoreKitManageSubscriptionsAPI.init
        // C.5 FailableStoreKitAPI.manageSubscriptions (where Self == StoreKitManageSubscriptionsAPI)
        let _: StoreKitManageSubscriptionsAPI = StoreKitManageSubscriptionsAPI.manageSubscriptions
        #expect(kind(of: .manageSubscriptions) == "ManageSubscriptions", "C.5 `.manageSubscriptions` is a StoreKitManageSubscriptionsAPI at a generic call site")

        // C.5 StoreKitOfferCodeRedeemAPI — struct: FailableStoreKitAPI, Failure = SKTestFailures.OfferCodeRedeem
        requireFailure(StoreKitOfferCodeRedeemAPI.self, SKTestFailures.OfferCodeRedeem.self)
        let _: any FailableStoreKitAPI<SKTestFailures.OfferCodeRedeem> = StoreKitOfferCodeRedeemAPI()
        // C.5 StoreKitOfferCodeRedeemAPI.init()
        let _: () -> StoreKitOfferCodeRedeemAPI = StoreKitOfferCodeRedeemAPI.init
        // C.5 FailableStoreKitAPI.offerCodeRedeem (where Self == StoreKitOfferCodeRedeemAPI)
        let _: StoreKitOfferCodeRedeemAPI = StoreKitOfferCodeRedeemAPI.offerCodeRedeem
        #expect(kind(of: .offerCodeRedeem) == "OfferCodeRedeem", "C.5 `.offerCodeRedeem` is a StoreKitOfferCodeRedeemAPI at a generic call site")

        // C.5 StoreKitPurchaseAPI — struct: FailableStoreKitAPI, Failure = SKTestFailures.Purchase
        requireFailure(StoreKitPurchaseAPI.self, SKTestFailures.Purchase.self)
        let _: any FailableStoreKitAPI<SKTestFailures.Purchase> = StoreKitPurchaseAPI()
        // C.5 StoreKitPurchaseAPI.init()
        let _: () -> StoreKitPurchaseAPI = StoreKitPurchaseAPI.init
        // C.5 FailableStoreKitAPI.purchase (where Self == StoreKitPurchaseAPI)
        let _: StoreKitPurchaseAPI = StoreKitPurchaseAPI.purchase
        #expect(kind(of: .purchase) == "Purchase", "C.5 `.purchase` is a StoreKitPurchaseAPI at a generic call site")

        // C.5 StoreKitRefundRequestAPI — struct: FailableStoreKitAPI, Failure = SKTestFailures.RefundRequest
        requireFailure(StoreKitRefundRequestAPI.self, SKTestFailures.RefundRequest.self)
        let _: any FailableStoreKitAPI<SKTestFailures.RefundRequest> = StoreKitRefundRequestAPI()
        // C.5 StoreKitRefundRequestAPI.init()
        let _: () -> StoreKitRefundRequestAPI = StoreKitRefundRequestAPI.init
        // C.5 FailableStoreKitAPI.refundRequest (where Self == StoreKitRefundRequestAPI)
        let _: StoreKitRefundRequestAPI = StoreKitRefundRequestAPI.refundRequest
        #expect(kind(of: .refundRequest) == "RefundRequest", "C.5 `.refundRequest` is a StoreKitRefundRequestAPI at a generic call site")

        // C.5 StoreKitSubscriptionStatusAPI — struct: FailableStoreKitAPI, Failure = SKTestFailures.SubscriptionStatus
        requireFailure(StoreKitSubscriptionStatusAPI.self, SKTestFailures.SubscriptionStatus.self)
        let _: any FailableStoreKitAPI<SKTestFailures.SubscriptionStatus> = StoreKitSubscriptionStatusAPI()
        // C.5 StoreKitSubscriptionStatusAPI.init()
        let _: () -> StoreKitSubscriptionStatusAPI = StoreKitSubscriptionStatusAPI.init
        // C.5 FailableStoreKitAPI.subscriptionStatus (where Self == StoreKitSubscriptionStatusAPI)
        let _: StoreKitSubscriptionStatusAPI = StoreKitSubscriptionStatusAPI.subscriptionStatus
        #expect(kind(of: .subscriptionStatus) == "SubscriptionStatus", "C.5 `.subscriptionStatus` is a StoreKitSubscriptionStatusAPI at a generic call site")

        // C.5 StoreKitVerificationAPI — struct: FailableStoreKitAPI, Failure = SKTestFailures.Verification
        requireFailure(StoreKitVerificationAPI.self, SKTestFailures.Verification.self)
        let _: any FailableStoreKitAPI<SKTestFailures.Verification> = StoreKitVerificationAPI()
        // C.5 StoreKitVerificationAPI.init()
        let _: () -> StoreKitVerificationAPI = StoreKitVerificationAPI.init
        // C.5 FailableStoreKitAPI.verification (where Self == StoreKitVerificationAPI)
        let _: StoreKitVerificationAPI = StoreKitVerificationAPI.verification
        #expect(kind(of: .verification) == "Verification", "C.5 `.verification` is a StoreKitVerificationAPI at a generic call site")
    }

    @Test("C.5 SKTestFailures: one enum per API, every case with its payload")
    func failures() {
        // C.5 SKTestFailures — enum namespace
        let _: SKTestFailures.Type = SKTestFailures.self

        // C.5 SKTestFailures.AppStoreSync — enum: SKTestFailure
        requireTestFailure(SKTestFailures.AppStoreSync.self)
        // C.5 SKTestFailures.AppStoreSync.generic(StoreKitError)
        let _: (StoreKitError) -> SKTestFailures.AppStoreSync = SKTestFailures.AppStoreSync.generic
        #expect(name(SKTestFailures.AppStoreSync.generic(.unknown)) == "generic")

        // C.5 SKTestFailures.AppTransaction — enum: SKTestFailure
        requireTestFailure(SKTestFailures.AppTransaction.self)
        // C.5 SKTestFailures.AppTransaction.generic(StoreKitError)
        let _: (StoreKitError) -> SKTestFailures.AppTransaction = SKTestFailures.AppTransaction.generic
        #expect(name(SKTestFailures.AppTransaction.generic(.unknown)) == "generic")

        // C.5 SKTestFailures.LoadProducts — enum: SKTestFailure
        requireTestFailure(SKTestFailures.LoadProducts.self)
        // C.5 SKTestFailures.LoadProducts.generic(StoreKitError)
        let _: (StoreKitError) -> SKTestFailures.LoadProducts = SKTestFailures.LoadProducts.generic
        #expect(name(SKTestFailures.LoadProducts.generic(.unknown)) == "generic")

        // C.5 SKTestFailures.ManageSubscriptions — enum: SKTestFailure
        requireTestFailure(SKTestFailures.ManageSubscriptions.self)
        // C.5 SKTestFailures.ManageSubscriptions.generic(StoreKitError)
        let _: (StoreKitError) -> SKTestFailures.ManageSubscriptions = SKTestFailures.ManageSubscriptions.generic
        #expect(name(SKTestFailures.ManageSubscriptions.generic(.unknown)) == "generic")

        // C.5 SKTestFailures.OfferCodeRedeem — enum: SKTestFailure
        requireTestFailure(SKTestFailures.OfferCodeRedeem.self)
        // C.5 SKTestFailures.OfferCodeRedeem.generic(StoreKitError)
        let _: (StoreKitError) -> SKTestFailures.OfferCodeRedeem = SKTestFailures.OfferCodeRedeem.generic
        #expect(name(SKTestFailures.OfferCodeRedeem.generic(.unknown)) == "generic")

        // C.5 SKTestFailures.Purchase — enum: SKTestFailure
        requireTestFailure(SKTestFailures.Purchase.self)
        // C.5 SKTestFailures.Purchase.generic(StoreKitError)
        let _: (StoreKitError) -> SKTestFailures.Purchase = SKTestFailures.Purchase.generic
        // C.5 SKTestFailures.Purchase.purchase(Product.PurchaseError)
        let _: (Product.PurchaseError) -> SKTestFailures.Purchase = SKTestFailures.Purchase.purchase
        #expect(name(SKTestFailures.Purchase.generic(.unknown)) == "generic")

        // C.5 SKTestFailures.RefundRequest — enum: SKTestFailure
        requireTestFailure(SKTestFailures.RefundRequest.self)
        // C.5 SKTestFailures.RefundRequest.generic(StoreKitError)
        let _: (StoreKitError) -> SKTestFailures.RefundRequest = SKTestFailures.RefundRequest.generic
        // C.5 SKTestFailures.RefundRequest.refundRequest(Transaction.RefundRequestError)
        let _: (Transaction.RefundRequestError) -> SKTestFailures.RefundRequest = SKTestFailures.RefundRequest.refundRequest
        #expect(name(SKTestFailures.RefundRequest.generic(.unknown)) == "generic")

        // C.5 SKTestFailures.SubscriptionStatus — enum: SKTestFailure
        requireTestFailure(SKTestFailures.SubscriptionStatus.self)
        // C.5 SKTestFailures.SubscriptionStatus.generic(StoreKitError)
        let _: (StoreKitError) -> SKTestFailures.SubscriptionStatus = SKTestFailures.SubscriptionStatus.generic
        #expect(name(SKTestFailures.SubscriptionStatus.generic(.unknown)) == "generic")

        // C.5 SKTestFailures.Verification — enum: SKTestFailure
        requireTestFailure(SKTestFailures.Verification.self)
        // C.5 SKTestFailures.Verification.verification(VerificationResult<Any>.VerificationError)
        let _: (VerificationResult<Any>.VerificationError) -> SKTestFailures.Verification = SKTestFailures.Verification.verification
        #expect(name(SKTestFailures.Verification.verification(.invalidSignature)) == "verification")
    }
}
