/// Why the store refused an operation, with a message that says what to do about it.
///
/// Compare with the static members (`error == .unknownProduct`, or `case .unknownProduct` in a `switch`);
/// equality ignores ``message``, which carries the details. Nothing is recorded when an operation throws.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: String, Hashable, Sendable {
        case unknownProduct
        case unknownTransaction
        case unknownNotification
        case invalidQuantity
        case paymentNotAllowed
        case unknownStorefront
        case invalidTransactionState
        case invalidProductType
        case clockCannotGoBack
        case storageFailure
        case signingFailure
        case clockCannotMove
        case invalidOfferIdentifier
        case invalidOfferSignature
        case missingOfferParameters
        case invalidOfferPrice
        case ineligibleForOffer
        case storeUnreachable
        case idempotencyKeyReused
        case apiKeyExists
        case invalidRefundDecision
        case invalidAdvancedCommerceRequest
    }

    private let code: Code

    /// What went wrong and how to fix it, for people.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The product identifier is not in the store's catalog.
    public static let unknownProduct = StoreError(.unknownProduct, "The product is not in the store's catalog.")
    /// The transaction identifier matches no transaction in this store.
    public static let unknownTransaction = StoreError(.unknownTransaction, "No such transaction in this store.")
    /// The notification identifier matches no notification in this store's outbox.
    public static let unknownNotification = StoreError(.unknownNotification, "No such notification in this store's outbox.")
    /// The quantity is below 1 or above the store's limit, or above 1 for a product that is not a consumable.
    public static let invalidQuantity = StoreError(.invalidQuantity, "The quantity is not allowed.")
    /// The account may not make payments (a restricted account).
    public static let paymentNotAllowed = StoreError(.paymentNotAllowed, "The account may not make payments.")
    /// The storefront code is not one the store knows.
    public static let unknownStorefront = StoreError(.unknownStorefront, "The storefront is not an App Store storefront.")
    /// The operation does not apply to the transaction in its current state.
    public static let invalidTransactionState = StoreError(.invalidTransactionState, "The transaction's state does not allow this.")
    /// The operation does not apply to this kind of product.
    public static let invalidProductType = StoreError(.invalidProductType, "The product's type does not allow this.")
    /// A virtual clock was asked to go back in time.
    public static let clockCannotGoBack = StoreError(.clockCannotGoBack, "A virtual clock only moves forward.")
    /// The store's storage failed; nothing was changed.
    public static let storageFailure = StoreError(.storageFailure, "The store's storage failed; nothing was changed.")
    /// Signing a transaction or receipt failed.
    public static let signingFailure = StoreError(.signingFailure, "Signing failed.")
    /// The store runs on a clock that cannot be moved, such as the bare ``SystemClock``.
    public static let clockCannotMove = StoreError(.clockCannotMove, "The store's clock cannot be moved.")

    /// The product has no offer with the identifier, or the offer code is unknown (`SKError.invalidOfferIdentifier`).
    public static let invalidOfferIdentifier = StoreError(.invalidOfferIdentifier, "The product has no such offer.")
    /// A promotional offer's signature does not verify, names an unknown key or is older than 24 hours
    /// (`SKError.invalidSignature`).
    public static let invalidOfferSignature = StoreError(.invalidOfferSignature, "The offer's signature is not valid.")
    /// A promotional offer lacks its identifier, key identifier or signature (`SKError.missingOfferParams`).
    public static let missingOfferParameters = StoreError(.missingOfferParameters, "The offer's parameters are incomplete.")
    /// The offer's price is above the product's (`SKError.invalidOfferPrice`).
    public static let invalidOfferPrice = StoreError(.invalidOfferPrice, "The offer's price is not valid.")
    /// The customer may not redeem the offer (`SKError.ineligibleForOffer`).
    public static let ineligibleForOffer = StoreError(.ineligibleForOffer, "The customer is not eligible for the offer.")
    /// A store behind a network connection (`storekit serve`) did not answer, or answered something that is not
    /// the device protocol. Nothing is known to have changed; the device tries again at its next look.
    public static let storeUnreachable = StoreError(.storeUnreachable, "The store could not be reached.")
    /// A purchase request repeats an idempotency key the account used for another purchase (another product or
    /// quantity). A key names one purchase; send a new key for a new one.
    public static let idempotencyKeyReused = StoreError(.idempotencyKeyReused, "The idempotency key was used for another purchase.")
    /// An App Store Server API key with the identifier is already stored: key identifiers are unique across a storage.
    public static let apiKeyExists = StoreError(.apiKeyExists, "An API key with this identifier already exists.")
    /// A refund decision the App Store cannot make: a prorated refund's percentage outside 1…100000 milli-percent.
    public static let invalidRefundDecision = StoreError(.invalidRefundDecision, "The refund decision is not valid.")
    /// A purchase's signed Advanced Commerce request was refused: its signature, its fields, or what it asks of the
    /// product. The message starts with Apple's error code and says what to fix.
    public static let invalidAdvancedCommerceRequest = StoreError(.invalidAdvancedCommerceRequest, "The Advanced Commerce request is not valid.")

    /// The kind of error as a stable name (`unknownProduct`): what the device protocol sends, with the ``message``,
    /// so a remote store's errors compare equal to the static members here.
    public var identifier: String { code.rawValue }

    /// The error a remote store sent as ``identifier`` and ``message``; `nil` for an identifier this version does not
    /// know.
    package init?(identifier: String, message: String) {
        guard let code = Code(rawValue: identifier) else { return nil }
        self.init(code, message)
    }

    package static func unknownProduct(_ message: String) -> StoreError { StoreError(.unknownProduct, message) }
    package static func unknownTransaction(_ message: String) -> StoreError { StoreError(.unknownTransaction, message) }
    package static func unknownNotification(_ message: String) -> StoreError { StoreError(.unknownNotification, message) }
    package static func invalidQuantity(_ message: String) -> StoreError { StoreError(.invalidQuantity, message) }
    package static func paymentNotAllowed(_ message: String) -> StoreError { StoreError(.paymentNotAllowed, message) }
    package static func unknownStorefront(_ message: String) -> StoreError { StoreError(.unknownStorefront, message) }
    package static func invalidTransactionState(_ message: String) -> StoreError { StoreError(.invalidTransactionState, message) }
    package static func invalidProductType(_ message: String) -> StoreError { StoreError(.invalidProductType, message) }
    package static func clockCannotGoBack(_ message: String) -> StoreError { StoreError(.clockCannotGoBack, message) }
    package static func storageFailure(_ message: String) -> StoreError { StoreError(.storageFailure, message) }
    package static func signingFailure(_ message: String) -> StoreError { StoreError(.signingFailure, message) }
    package static func clockCannotMove(_ message: String) -> StoreError { StoreError(.clockCannotMove, message) }
    package static func invalidOfferIdentifier(_ message: String) -> StoreError { StoreError(.invalidOfferIdentifier, message) }
    package static func invalidOfferSignature(_ message: String) -> StoreError { StoreError(.invalidOfferSignature, message) }
    package static func missingOfferParameters(_ message: String) -> StoreError { StoreError(.missingOfferParameters, message) }
    package static func invalidOfferPrice(_ message: String) -> StoreError { StoreError(.invalidOfferPrice, message) }
    package static func ineligibleForOffer(_ message: String) -> StoreError { StoreError(.ineligibleForOffer, message) }
    package static func storeUnreachable(_ message: String) -> StoreError { StoreError(.storeUnreachable, message) }
    package static func idempotencyKeyReused(_ message: String) -> StoreError { StoreError(.idempotencyKeyReused, message) }
    package static func invalidRefundDecision(_ message: String) -> StoreError { StoreError(.invalidRefundDecision, message) }
    package static func apiKeyExists(_ message: String) -> StoreError { StoreError(.apiKeyExists, message) }
    package static func invalidAdvancedCommerceRequest(_ message: String) -> StoreError { StoreError(.invalidAdvancedCommerceRequest, message) }

    /// ``apiKeyExists`` for the key identifier, saying what to do: every storage's message.
    package static func duplicateAPIKey(_ keyID: String) -> StoreError {
        .apiKeyExists("An API key with ID \(keyID) is already stored. Key IDs are unique across the storage: make a new key, or use the existing one.")
    }

    /// The message.
    public var description: String { message }

    /// Errors are equal when they are of the same kind, whatever their messages.
    public static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.code == rhs.code }

    /// Hashes the kind of error.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
