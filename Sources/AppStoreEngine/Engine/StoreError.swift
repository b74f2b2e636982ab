/// Why the store refused an operation, with a message that says what to do about it.
///
/// Compare errors by ``code``; the message is for people.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as a value to test against.
    public enum Code: String, Sendable, Hashable, Codable {
        /// The product identifier is not in the store's catalog.
        case unknownProduct
        /// The transaction identifier matches no transaction in this store.
        case unknownTransaction
        /// The quantity is below 1 or above the store's limit.
        case invalidQuantity
        /// The account may not make payments (a restricted account).
        case paymentNotAllowed
        /// The storefront code is not one the store knows.
        case unknownStorefront
        /// The operation does not apply to the transaction in its current state.
        case invalidTransactionState
        /// The operation does not apply to this kind of product.
        case invalidProductType
        /// A virtual clock was asked to go back in time.
        case clockCannotGoBack
        /// The store's storage failed; nothing was changed.
        case storageFailure
        /// Signing a transaction or receipt failed.
        case signingFailure
    }

    /// What went wrong.
    public let code: Code
    /// What went wrong and how to fix it, for people.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// Errors are equal when their codes are.
    public static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.code == rhs.code }
}
