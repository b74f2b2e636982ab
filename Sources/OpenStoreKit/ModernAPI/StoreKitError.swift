public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An error the StoreKit 2 API throws when the App Store cannot answer, or the customer cancelled.
public enum StoreKitError: Error, LocalizedError, Sendable {
    /// An unknown error occurred.
    case unknown
    /// The customer cancelled.
    case userCancelled
    /// The device could not reach the App Store.
    case networkError(URLError)
    /// A system error occurred; the associated error says which.
    case systemError(any Error)
    /// The product is not available in the customer's storefront.
    case notAvailableInStorefront
    /// The app is not entitled to the request.
    case notEntitled
    /// The request is not supported.
    case unsupported

    /// What went wrong.
    public var errorDescription: String? {
        switch self {
        case .unknown: "An unknown App Store error occurred."
        case .userCancelled: "The customer cancelled."
        case .networkError(let error): "The App Store could not be reached: \(error.localizedDescription)"
        case .systemError(let error): "\(error)"
        case .notAvailableInStorefront: "The product is not available in the customer's storefront."
        case .notEntitled: "The app is not entitled to this request."
        case .unsupported: "This request is not supported."
        }
    }

    /// Why it went wrong, where the store said.
    public var failureReason: String? {
        switch self {
        case .networkError: "The store did not answer."
        case .systemError: "The App Store refused the request."
        default: nil
        }
    }

    /// What to do about it.
    public var recoverySuggestion: String? {
        switch self {
        case .networkError: "Check that the store the app talks to (OPENSTOREKIT_SERVER, OPENSTOREKIT_CONFIG or an SKTestSession) is running, and try again."
        default: nil
        }
    }

    /// Whether two errors are of the same kind, with equal payloads where those can be compared: what a simulated
    /// error and the error an API threw are compared by.
    package func isSameKind(as other: StoreKitError) -> Bool {
        switch (self, other) {
        case (.unknown, .unknown), (.userCancelled, .userCancelled), (.notAvailableInStorefront, .notAvailableInStorefront),
             (.notEntitled, .notEntitled), (.unsupported, .unsupported):
            true
        case (.networkError(let lhs), .networkError(let rhs)): lhs.code == rhs.code
        case (.systemError(let lhs), .systemError(let rhs)): String(reflecting: lhs) == String(reflecting: rhs)
        default: false
        }
    }
}
