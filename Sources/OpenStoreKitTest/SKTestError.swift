import AppStoreEngine
public import Foundation

/// The error domain of StoreKit Test errors: `"SKTestErrorDomain"`.
public let SKTestErrorDomain = "SKTestErrorDomain"

/// An error from an ``SKTestSession`` control: no such transaction, an action that does not apply to it.
///
/// Compare errors by ``code``; the description says what went wrong.
public struct SKTestError: CustomNSError, Hashable, Error, Sendable {
    /// What went wrong. Raw values are Apple's.
    public enum Code: Int, Sendable, Hashable {
        /// The test environment is not available.
        case serviceUnavailable = 0
        /// The store does not sell a product with this identifier.
        case invalidProductIdentifier = 1
        /// The action does not apply to this kind of product.
        case invalidProductType = 2
        /// The URL is not valid.
        case invalidURL = 3
        /// The configuration file was not found.
        case fileNotFound = 4
        /// There is no subscription for the product.
        case noSubscriptionFound = 5
        /// There is no transaction with this identifier.
        case noTransactionFound = 6
        /// The action does not apply to the transaction in its current state.
        case invalidAction = 7
    }

    /// What went wrong.
    public let code: Code
    /// What went wrong and what to do, for people.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, message: String = "") {
        self.code = code
        self.message = message
    }

    /// `"SKTestErrorDomain"`.
    public static var errorDomain: String { SKTestErrorDomain }
    /// The code's raw value.
    public var errorCode: Int { code.rawValue }
    /// The message as the localized description.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message.isEmpty ? "\(code)" : message] }

    /// Errors are equal when their codes are.
    public static func == (lhs: SKTestError, rhs: SKTestError) -> Bool { lhs.code == rhs.code }
    /// Hashes the code.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The test environment is not available.
    public static var serviceUnavailable: Code { .serviceUnavailable }
    /// The store does not sell a product with this identifier.
    public static var invalidProductIdentifier: Code { .invalidProductIdentifier }
    /// The action does not apply to this kind of product.
    public static var invalidProductType: Code { .invalidProductType }
    /// The URL is not valid.
    public static var invalidURL: Code { .invalidURL }
    /// The configuration file was not found.
    public static var fileNotFound: Code { .fileNotFound }
    /// There is no subscription for the product.
    public static var noSubscriptionFound: Code { .noSubscriptionFound }
    /// There is no transaction with this identifier.
    public static var noTransactionFound: Code { .noTransactionFound }
    /// The action does not apply to the transaction in its current state.
    public static var invalidAction: Code { .invalidAction }
}

/// Lets an `NSError` of ``SKTestErrorDomain`` cast to `SKTestError` (`error as? SKTestError`), as Apple's Foundation
/// bridges it. Linux has no Objective-C runtime to bridge errors: the Swift runtime's `as?` from a class to a value
/// type asks the value type's `_ObjectiveCBridgeable` conformance.
extension SKTestError: _ObjectiveCBridgeable {
    /// The bridged form of the error: an `NSError`.
    public typealias _ObjectiveCType = NSError

    /// The error as an `NSError` of ``SKTestErrorDomain``, with the code's raw value and the message.
    public func _bridgeToObjectiveC() -> NSError {
        NSError(domain: SKTestErrorDomain, code: code.rawValue, userInfo: errorUserInfo)
    }

    /// The error of an `NSError` of ``SKTestErrorDomain``; another domain or an unknown code stops the program.
    public static func _forceBridgeFromObjectiveC(_ source: NSError, result: inout SKTestError?) {
        guard _conditionallyBridgeFromObjectiveC(source, result: &result) else {
            preconditionFailure("Cannot bridge \(source.domain) code \(source.code) to SKTestError.")
        }
    }

    /// The error of an `NSError` of ``SKTestErrorDomain`` with a known code, or `nil` (and `false`).
    public static func _conditionallyBridgeFromObjectiveC(_ source: NSError, result: inout SKTestError?) -> Bool {
        guard source.domain == SKTestErrorDomain, let code = Code(rawValue: source.code) else {
            result = nil
            return false
        }
        result = SKTestError(code, message: source.userInfo[NSLocalizedDescriptionKey] as? String ?? "")
        return true
    }

    /// The error of an `NSError` of ``SKTestErrorDomain``; `nil`, another domain or an unknown code stops the program.
    public static func _unconditionallyBridgeFromObjectiveC(_ source: NSError?) -> SKTestError {
        var result: SKTestError?
        if let source { _forceBridgeFromObjectiveC(source, result: &result) }
        guard let result else { preconditionFailure("Cannot bridge a nil NSError to SKTestError.") }
        return result
    }
}

extension SKTestError.Code {
    /// Matches an error against a code, so that `catch SKTestError.noTransactionFound` works.
    public static func ~= (code: SKTestError.Code, error: any Error) -> Bool {
        (error as? SKTestError)?.code == code
    }
}

extension SKTestError {
    /// The test error for a store refusal, keeping the store's message.
    init(_ error: StoreError) {
        let code: Code = switch error {
        case StoreError.unknownTransaction: .noTransactionFound
        case StoreError.unknownProduct: .invalidProductIdentifier
        case StoreError.invalidProductType: .invalidProductType
        case StoreError.storageFailure: .serviceUnavailable
        default: .invalidAction
        }
        self.init(code, message: error.message)
    }
}
