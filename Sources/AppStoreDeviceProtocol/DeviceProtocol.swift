public import Foundation

/// The device protocol: how an app process's `StoreConnection` talks to `storekit serve` over HTTP.
///
/// Every route lives under `/device/` (and `/t/{tenant}/device/` for a tenant's store); bodies are JSON with the
/// store's own record types. A refusal is an HTTP 4xx or 5xx with a ``DeviceErrorBody``. The server and the client
/// both build their coders here, so the two sides always agree on dates and field names.
public enum DeviceProtocol {
    /// The version of the protocol both sides speak, sent as `OpenStoreKit-Device-Protocol` on every request and answer.
    public static let version = "1"
    /// The header that carries ``version``.
    public static let versionHeader = "OpenStoreKit-Device-Protocol"

    /// How long a long poll of ``Route/changes`` waits for a change by default before it answers with none.
    public static let defaultChangeWait: Duration = .seconds(20)
    /// The longest wait a client may ask a long poll for.
    public static let longestChangeWait: Duration = .seconds(60)

    /// The device protocol's routes, relative to the store's base URL (`http://127.0.0.1:8080/` or
    /// `http://127.0.0.1:8080/t/{tenant}/`).
    public enum Route {
        /// `GET`: the store's `StoreSettings`.
        public static let settings = "device/settings"
        /// `GET ?id=…&id=…`: the `CatalogProduct`s among the identifiers, in catalog order.
        public static let products = "device/products"
        /// `GET ?id=…`: an `Account`, created with the store's storefront on first use.
        public static let account = "device/account"
        /// `POST` a `PurchaseRequest`: the recorded `TransactionRecord`.
        public static let purchases = "device/purchases"
        /// `POST` a ``FinishRequest``: marks a transaction finished on a device; answers `204`.
        public static let finish = "device/finish"
        /// `GET ?account=…&bundle=…&device=…`: the device's unfinished `TransactionRecord`s, oldest first.
        public static let unfinished = "device/unfinished"
        /// `POST` a `TransactionQuery`: the matching `TransactionRecord`s, oldest first.
        public static let transactions = "device/transactions"
        /// `POST` a ``DeviceRequest``: an account's restorable purchases replayed on a device as new transactions.
        public static let restores = "device/restores"
        /// `GET ?account=…&bundle=…`: the promoted purchases waiting for an app; `DELETE ?id=…` removes one.
        public static let purchaseIntents = "device/purchase-intents"
        /// `POST` an ``OfferCodeRequest``: the transaction the redeemed code made.
        public static let offerCodes = "device/offer-codes"
        /// `GET ?account=…&bundle=…`: an account's auto-renewable `SubscriptionRecord`s in an app.
        public static let subscriptions = "device/subscriptions"
        /// `GET ?account=…&bundle=…&device=…&version=…`: the signed app receipt (PKCS#7, `application/pkcs7-mime`).
        public static let receipt = "device/receipt"
        /// `GET ?epoch=…&after=…&wait=…`: a long poll for changes, answered with a ``ChangeBatch``.
        public static let changes = "device/changes"
        /// `GET`: the DER root certificates the store's signatures chain to, base64 in a JSON array.
        public static let rootCertificates = "device/root-certificates"
        /// `POST` a ``SignedTransactionsRequest``: the transactions signed for the device, JWS in a JSON array.
        public static let signedTransactions = "device/signed-transactions"
        /// `POST` a ``SignedRenewalInfoRequest``: subscriptions' renewal info signed for the device, JWS in a JSON array.
        public static let signedRenewalInfo = "device/signed-renewal-info"
        /// `GET ?account=…&bundle=…&device=…&version=…`: the app transaction signed for the device (which runs the app at
        /// `version`), a JSON string.
        public static let appTransaction = "device/app-transaction"
        /// `POST` a ``RefundRequest``: a customer's refund request, approved or declined; answers `{}`.
        public static let refundRequests = "device/refund-requests"
        /// `POST` an ``ExternalPurchaseTokenRequest``: the token, as a JSON array of one `ExternalPurchaseTokenRecord`, or
        /// empty when the store issues none.
        public static let externalPurchaseTokens = "device/external-purchase-tokens"
    }

    /// The encoder both sides use. Dates are Foundation's own number, seconds since 2001-01-01T00:00:00Z, because
    /// it survives the trip exactly: a record the device gets back equals the one the store holds.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .deferredToDate
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// The decoder both sides use; the counterpart of ``makeEncoder()``.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .deferredToDate
        return decoder
    }
}

/// The body of a refusal: the store's error, by kind and with its message.
public struct DeviceErrorBody: Codable, Sendable, Hashable {
    /// The kind of error: a `StoreError` identifier such as `unknownProduct`, or `badRequest` for a request the
    /// server could not read.
    public var error: String
    /// What went wrong and what to do about it.
    public var message: String

    /// Describes a refusal.
    public init(error: String, message: String) {
        self.error = error
        self.message = message
    }

    /// The ``error`` of a request the server could not read (a missing parameter, a body that is not JSON).
    public static let badRequest = "badRequest"
}

/// The body of ``DeviceProtocol/Route/finish``.
public struct FinishRequest: Codable, Sendable, Hashable {
    /// The transaction to finish.
    public var transactionID: UInt64
    /// The device that finishes it.
    public var deviceID: UUID

    /// Describes a finish.
    public init(transactionID: UInt64, deviceID: UUID) {
        self.transactionID = transactionID
        self.deviceID = deviceID
    }
}

/// The body of requests that act for one account's app on one device (``DeviceProtocol/Route/restores``).
public struct DeviceRequest: Codable, Sendable, Hashable {
    /// The customer's account.
    public var accountID: String
    /// The app's bundle identifier.
    public var bundleID: String
    /// The device.
    public var deviceID: UUID

    /// Describes the account, app and device.
    public init(accountID: String, bundleID: String, deviceID: UUID) {
        self.accountID = accountID
        self.bundleID = bundleID
        self.deviceID = deviceID
    }
}

/// The body of ``DeviceProtocol/Route/offerCodes``.
public struct OfferCodeRequest: Codable, Sendable, Hashable {
    /// The code's reference name in the catalog.
    public var code: String
    /// The customer's account.
    public var accountID: String
    /// The app's bundle identifier.
    public var bundleID: String

    /// Describes a redemption.
    public init(code: String, accountID: String, bundleID: String) {
        self.code = code
        self.accountID = accountID
        self.bundleID = bundleID
    }
}

/// The body of ``DeviceProtocol/Route/signedTransactions``.
public struct SignedTransactionsRequest: Codable, Sendable, Hashable {
    /// The completed transactions to sign.
    public var transactionIDs: [UInt64]
    /// The device the signatures are for (its `deviceVerification`).
    public var deviceID: UUID

    /// Describes the request.
    public init(transactionIDs: [UInt64], deviceID: UUID) {
        self.transactionIDs = transactionIDs
        self.deviceID = deviceID
    }
}

/// The body of ``DeviceProtocol/Route/signedRenewalInfo``.
public struct SignedRenewalInfoRequest: Codable, Sendable, Hashable {
    /// The subscriptions, by original transaction identifier.
    public var subscriptionIDs: [UInt64]
    /// The device the signatures are for (its `deviceVerification`).
    public var deviceID: UUID

    /// Describes the request.
    public init(subscriptionIDs: [UInt64], deviceID: UUID) {
        self.subscriptionIDs = subscriptionIDs
        self.deviceID = deviceID
    }
}

/// The body of ``DeviceProtocol/Route/refundRequests``.
public struct RefundRequest: Codable, Sendable, Hashable {
    /// The transaction the customer wants refunded.
    public var transactionID: UInt64
    /// The customer's account.
    public var accountID: String
    /// Whether the App Store approves the request, when it decides at once.
    public var approve: Bool
    /// Why the customer asks, as Apple's `consumptionRequestReason` raw value; `nil` for none given.
    public var reason: String?

    /// Describes the request.
    public init(transactionID: UInt64, accountID: String, approve: Bool, reason: String? = nil) {
        self.transactionID = transactionID
        self.accountID = accountID
        self.approve = approve
        self.reason = reason
    }
}

/// The body of ``DeviceProtocol/Route/externalPurchaseTokens``.
public struct ExternalPurchaseTokenRequest: Codable, Sendable, Hashable {
    /// The customer's account.
    public var accountID: String
    /// The app's bundle identifier.
    public var bundleID: String
    /// A custom link token's type (`ACQUISITION`, `SERVICES`); `nil` for a notice-sheet token.
    public var tokenType: String?

    /// Describes the request.
    public init(accountID: String, bundleID: String, tokenType: String?) {
        self.accountID = accountID
        self.bundleID = bundleID
        self.tokenType = tokenType
    }
}
