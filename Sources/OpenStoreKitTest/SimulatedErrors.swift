public import OpenStoreKit


/// A failure a test can make a StoreKit API report (`SKTestSession.setSimulatedError(_:forAPI:)`).
public protocol SKTestFailure: Equatable, Sendable {}

/// A StoreKit API a test can make fail; its ``Failure`` type lists the errors it can fail with.
public protocol FailableStoreKitAPI<Failure>: Sendable {
    /// The failures this API can simulate.
    associatedtype Failure: SKTestFailure
}

/// `AppStore.sync()`.
public struct StoreKitAppStoreSyncAPI: FailableStoreKitAPI {
    /// The failures it can simulate.
    public typealias Failure = SKTestFailures.AppStoreSync
    /// The API.
    public init() {}
}

/// `AppTransaction.shared` and `AppTransaction.refresh()`.
public struct StoreKitAppTransactionAPI: FailableStoreKitAPI {
    /// The failures it can simulate.
    public typealias Failure = SKTestFailures.AppTransaction
    /// The API.
    public init() {}
}

/// `Product.products(for:)`.
public struct StoreKitLoadProductsAPI: FailableStoreKitAPI {
    /// The failures it can simulate.
    public typealias Failure = SKTestFailures.LoadProducts
    /// The API.
    public init() {}
}

/// `AppStore.showManageSubscriptions(in:)`.
public struct StoreKitManageSubscriptionsAPI: FailableStoreKitAPI {
    /// The failures it can simulate.
    public typealias Failure = SKTestFailures.ManageSubscriptions
    /// The API.
    public init() {}
}

/// `AppStore.presentOfferCodeRedeemSheet(in:)`.
public struct StoreKitOfferCodeRedeemAPI: FailableStoreKitAPI {
    /// The failures it can simulate.
    public typealias Failure = SKTestFailures.OfferCodeRedeem
    /// The API.
    public init() {}
}

/// `Product.purchase(options:)`.
public struct StoreKitPurchaseAPI: FailableStoreKitAPI {
    /// The failures it can simulate.
    public typealias Failure = SKTestFailures.Purchase
    /// The API.
    public init() {}
}

/// `Transaction.beginRefundRequest(for:in:)` and `beginRefundRequest(in:)`.
public struct StoreKitRefundRequestAPI: FailableStoreKitAPI {
    /// The failures it can simulate.
    public typealias Failure = SKTestFailures.RefundRequest
    /// The API.
    public init() {}
}

/// `Product.SubscriptionInfo.status` and `status(for:)`.
public struct StoreKitSubscriptionStatusAPI: FailableStoreKitAPI {
    /// The failures it can simulate.
    public typealias Failure = SKTestFailures.SubscriptionStatus
    /// The API.
    public init() {}
}

/// The verification of signed data: transactions, renewal info and app transactions come back `.unverified`.
public struct StoreKitVerificationAPI: FailableStoreKitAPI {
    /// The failures it can simulate.
    public typealias Failure = SKTestFailures.Verification
    /// The API.
    public init() {}
}

extension FailableStoreKitAPI where Self == StoreKitAppStoreSyncAPI {
    /// `AppStore.sync()`.
    public static var appStoreSync: StoreKitAppStoreSyncAPI { StoreKitAppStoreSyncAPI() }
}

extension FailableStoreKitAPI where Self == StoreKitAppTransactionAPI {
    /// `AppTransaction.shared` and `refresh()`.
    public static var appTransaction: StoreKitAppTransactionAPI { StoreKitAppTransactionAPI() }
}

extension FailableStoreKitAPI where Self == StoreKitLoadProductsAPI {
    /// `Product.products(for:)`.
    public static var loadProducts: StoreKitLoadProductsAPI { StoreKitLoadProductsAPI() }
}

extension FailableStoreKitAPI where Self == StoreKitManageSubscriptionsAPI {
    /// `AppStore.showManageSubscriptions(in:)`.
    public static var manageSubscriptions: StoreKitManageSubscriptionsAPI { StoreKitManageSubscriptionsAPI() }
}

extension FailableStoreKitAPI where Self == StoreKitOfferCodeRedeemAPI {
    /// `AppStore.presentOfferCodeRedeemSheet(in:)`.
    public static var offerCodeRedeem: StoreKitOfferCodeRedeemAPI { StoreKitOfferCodeRedeemAPI() }
}

extension FailableStoreKitAPI where Self == StoreKitPurchaseAPI {
    /// `Product.purchase(options:)`.
    public static var purchase: StoreKitPurchaseAPI { StoreKitPurchaseAPI() }
}

extension FailableStoreKitAPI where Self == StoreKitRefundRequestAPI {
    /// `Transaction.beginRefundRequest`.
    public static var refundRequest: StoreKitRefundRequestAPI { StoreKitRefundRequestAPI() }
}

extension FailableStoreKitAPI where Self == StoreKitSubscriptionStatusAPI {
    /// `Product.SubscriptionInfo.status`.
    public static var subscriptionStatus: StoreKitSubscriptionStatusAPI { StoreKitSubscriptionStatusAPI() }
}

extension FailableStoreKitAPI where Self == StoreKitVerificationAPI {
    /// Verification of signed data.
    public static var verification: StoreKitVerificationAPI { StoreKitVerificationAPI() }
}

/// The failures each ``FailableStoreKitAPI`` can simulate.
public enum SKTestFailures {
    /// Failures of `AppStore.sync()`.
    public enum AppStoreSync: SKTestFailure {
        /// Throws the StoreKit error.
        case generic(StoreKitError)
    }

    /// Failures of `AppTransaction.shared`.
    public enum AppTransaction: SKTestFailure {
        /// Throws the StoreKit error.
        case generic(StoreKitError)
    }

    /// Failures of `Product.products(for:)`.
    public enum LoadProducts: SKTestFailure {
        /// Throws the StoreKit error.
        case generic(StoreKitError)
    }

    /// Failures of `AppStore.showManageSubscriptions(in:)`.
    public enum ManageSubscriptions: SKTestFailure {
        /// Throws the StoreKit error.
        case generic(StoreKitError)
    }

    /// Failures of `AppStore.presentOfferCodeRedeemSheet(in:)`.
    public enum OfferCodeRedeem: SKTestFailure {
        /// Throws the StoreKit error.
        case generic(StoreKitError)
    }

    /// Failures of `Product.purchase(options:)`.
    public enum Purchase: SKTestFailure {
        /// Throws the StoreKit error.
        case generic(StoreKitError)
        /// Throws the purchase error.
        case purchase(Product.PurchaseError)
    }

    /// Failures of `Transaction.beginRefundRequest`.
    public enum RefundRequest: SKTestFailure {
        /// Throws the StoreKit error.
        case generic(StoreKitError)
        /// Throws the refund request error.
        case refundRequest(Transaction.RefundRequestError)
    }

    /// Failures of `Product.SubscriptionInfo.status`.
    public enum SubscriptionStatus: SKTestFailure {
        /// Throws the StoreKit error.
        case generic(StoreKitError)
    }

    /// Failures of verification: signed data comes back `.unverified` with the error.
    public enum Verification: SKTestFailure {
        /// The verification error.
        case verification(VerificationResult<Any>.VerificationError)
    }
}

/// `StoreKitError` is not `Equatable` (it carries `any Error`); failures compare its kind and comparable payloads.
private func sameKind(_ lhs: StoreKitError, _ rhs: StoreKitError) -> Bool { lhs.isSameKind(as: rhs) }

extension SKTestFailures.AppStoreSync {
    /// Failures are equal when their errors are of the same kind.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) { case (.generic(let a), .generic(let b)): sameKind(a, b) }
    }
}

extension SKTestFailures.AppTransaction {
    /// Failures are equal when their errors are of the same kind.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) { case (.generic(let a), .generic(let b)): sameKind(a, b) }
    }
}

extension SKTestFailures.LoadProducts {
    /// Failures are equal when their errors are of the same kind.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) { case (.generic(let a), .generic(let b)): sameKind(a, b) }
    }
}

extension SKTestFailures.ManageSubscriptions {
    /// Failures are equal when their errors are of the same kind.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) { case (.generic(let a), .generic(let b)): sameKind(a, b) }
    }
}

extension SKTestFailures.OfferCodeRedeem {
    /// Failures are equal when their errors are of the same kind.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) { case (.generic(let a), .generic(let b)): sameKind(a, b) }
    }
}

extension SKTestFailures.SubscriptionStatus {
    /// Failures are equal when their errors are of the same kind.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) { case (.generic(let a), .generic(let b)): sameKind(a, b) }
    }
}

extension SKTestFailures.Purchase {
    /// Failures are equal when they are the same case with errors of the same kind.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.generic(let a), .generic(let b)): sameKind(a, b)
        case (.purchase(let a), .purchase(let b)): a == b
        default: false
        }
    }
}

extension SKTestFailures.RefundRequest {
    /// Failures are equal when they are the same case with errors of the same kind.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.generic(let a), .generic(let b)): sameKind(a, b)
        case (.refundRequest(let a), .refundRequest(let b)): a == b
        default: false
        }
    }
}


extension StoreKitDevice.FailableAPI {
    /// The device's name for a failable API.
    init(_ api: any FailableStoreKitAPI) {
        self = switch api {
        case is StoreKitAppStoreSyncAPI: .appStoreSync
        case is StoreKitAppTransactionAPI: .appTransaction
        case is StoreKitLoadProductsAPI: .loadProducts
        case is StoreKitManageSubscriptionsAPI: .manageSubscriptions
        case is StoreKitOfferCodeRedeemAPI: .offerCodeRedeem
        case is StoreKitPurchaseAPI: .purchase
        case is StoreKitRefundRequestAPI: .refundRequest
        case is StoreKitSubscriptionStatusAPI: .subscriptionStatus
        default: .verification
        }
    }
}

extension StoreKitDevice.SimulatedFailure {
    /// What the device does for a test's failure value.
    init(_ failure: any SKTestFailure) {
        switch failure {
        case let failure as SKTestFailures.Purchase:
            switch failure {
            case .generic(let error): self = .generic(error)
            case .purchase(let error): self = .purchase(error)
            }
        case let failure as SKTestFailures.RefundRequest:
            switch failure {
            case .generic(let error): self = .generic(error)
            case .refundRequest(let error): self = .refundRequest(error)
            }
        case let failure as SKTestFailures.Verification:
            switch failure {
            case .verification(let error): self = .verification(error)
            }
        case let failure as SKTestFailures.AppStoreSync:
            switch failure { case .generic(let error): self = .generic(error) }
        case let failure as SKTestFailures.AppTransaction:
            switch failure { case .generic(let error): self = .generic(error) }
        case let failure as SKTestFailures.LoadProducts:
            switch failure { case .generic(let error): self = .generic(error) }
        case let failure as SKTestFailures.ManageSubscriptions:
            switch failure { case .generic(let error): self = .generic(error) }
        case let failure as SKTestFailures.OfferCodeRedeem:
            switch failure { case .generic(let error): self = .generic(error) }
        case let failure as SKTestFailures.SubscriptionStatus:
            switch failure { case .generic(let error): self = .generic(error) }
        default:
            self = .generic(.unknown)
        }
    }
}
