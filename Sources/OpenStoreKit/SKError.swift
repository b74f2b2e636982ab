import AppStoreEngine
public import Foundation

/// The error domain of StoreKit errors: `"SKErrorDomain"`.
public let SKErrorDomain = "SKErrorDomain"

/// A StoreKit error: a failed payment, a product that is not for sale, a restore that failed.
///
/// Compare errors by ``code``, or match them in a `catch` clause with a code: `catch SKError.paymentCancelled`.
///
/// As on Apple platforms, `SKError` is a bridged error (`_BridgedStoredNSError`): an `NSError` of ``SKErrorDomain``
/// casts to it (`error as? SKError`, `catch let error as SKError`, `catch SKError.paymentCancelled`), and
/// `error as NSError` gives an `NSError` of ``SKErrorDomain`` with the code's raw value and the user info. Apple
/// platforms get the cast from the Objective-C runtime; on Linux, `SKError` conforms to `_ObjectiveCBridgeable` with
/// `NSError` as its bridged type, which the Swift runtime consults for `as?`.
public struct SKError: _BridgedStoredNSError, CustomNSError, Hashable, Error, Sendable {
    /// What went wrong. Raw values are Apple's (`SKError.h`).
    public enum Code: Int, Sendable, Equatable, _ErrorCodeProtocol {
        /// The error type whose codes these are, which Foundation's error bridging uses.
        public typealias _ErrorType = SKError

        /// An unknown or unexpected error occurred.
        case unknown = 0
        /// The client is not allowed to issue the request.
        case clientInvalid = 1
        /// The user cancelled the payment request.
        case paymentCancelled = 2
        /// A payment parameter was not recognized by the App Store (an unknown product identifier, a bad quantity).
        case paymentInvalid = 3
        /// The user is not allowed to authorize payments (a restricted account).
        case paymentNotAllowed = 4
        /// The requested product is not available in the store's storefront.
        case storeProductNotAvailable = 5
        /// The user has not allowed access to Cloud service information.
        case cloudServicePermissionDenied = 6
        /// The device could not connect to the network.
        case cloudServiceNetworkConnectionFailed = 7
        /// The user has revoked permission to use this cloud service.
        case cloudServiceRevoked = 8
        /// The user has not yet acknowledged Apple's privacy policy.
        case privacyAcknowledgementRequired = 9
        /// The app is attempting to use `requestData` without the required entitlement.
        case unauthorizedRequestData = 10
        /// The offer identifier is not valid.
        case invalidOfferIdentifier = 11
        /// The signature in a payment discount is not valid.
        case invalidSignature = 12
        /// Parameters are missing in a payment discount.
        case missingOfferParams = 13
        /// The price of the selected offer is not valid (for example, lower than the current base subscription price).
        case invalidOfferPrice = 14
        /// The App Store overlay was cancelled.
        case overlayCancelled = 15
        /// The App Store overlay configuration is not valid.
        case overlayInvalidConfiguration = 16
        /// The App Store overlay timed out.
        case overlayTimeout = 17
        /// The user is not eligible for the subscription offer.
        case ineligibleForOffer = 18
        /// The platform does not support the request.
        case unsupportedPlatform = 19
        /// The App Store overlay was presented in a background scene.
        case overlayPresentedInBackgroundScene = 20
        /// A payment method binding configuration is required.
        case paymentMethodBindingConfigurationRequired = 21
    }

    /// What went wrong.
    public let code: Code
    private let storedUserInfo: UserInfo

    /// Creates an error with a code and optional `NSError`-style user info.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        storedUserInfo = UserInfo(userInfo)
    }

    /// The `NSError` the error wraps when it is of another domain than ``SKErrorDomain``; `nil` for StoreKit's own.
    private var foreign: ForeignError?

    /// The StoreKit error an `NSError` stands for, as Foundation's bridging makes it.
    ///
    /// An unknown code becomes ``Code/unknown``. An error of another domain is wrapped whole, as Apple's bridged
    /// `SKError` wraps it: its code is read as a StoreKit code and ``_nsError`` is the error given. (Casting such an
    /// error with `as? SKError` still answers `nil`, as on Apple platforms.)
    public init(_nsError error: NSError) {
        self.init(Code(rawValue: error.code) ?? .unknown, userInfo: error.userInfo)
        if error.domain != SKErrorDomain { foreign = ForeignError(error: error) }
    }

    /// The user info, as on an `NSError`: at least a localized description saying what happened.
    public var userInfo: [String: Any] { errorUserInfo }

    /// The error as an `NSError`, as Apple's bridged `SKError` exposes it: of ``SKErrorDomain``, or the error of another
    /// domain it wraps.
    public var _nsError: NSError {
        foreign?.error ?? NSError(domain: SKErrorDomain, code: code.rawValue, userInfo: errorUserInfo)
    }

    /// `"SKErrorDomain"`.
    public static var errorDomain: String { SKErrorDomain }

    /// `"SKErrorDomain"`: the domain Foundation's error bridging matches an `NSError` against.
    public static var _nsErrorDomain: String { SKErrorDomain }

    /// The code's raw value.
    public var errorCode: Int { code.rawValue }

    /// The user info: at least a localized description saying what happened.
    public var errorUserInfo: [String: Any] {
        var info = storedUserInfo.values
        if info[NSLocalizedDescriptionKey] == nil { info[NSLocalizedDescriptionKey] = code.defaultDescription }
        return info
    }

    /// Errors are equal when their codes are.
    public static func == (lhs: SKError, rhs: SKError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// An `NSError` is immutable, so sharing one between threads is safe.
    private struct ForeignError: @unchecked Sendable {
        let error: NSError
    }

    /// `userInfo` is set once in `init` and never mutated, so sharing it between threads is safe.
    private struct UserInfo: @unchecked Sendable {
        let values: [String: Any]
        init(_ values: [String: Any]) { self.values = values }
    }
}

extension SKError {
    /// An unknown or unexpected error occurred.
    public static var unknown: SKError.Code { .unknown }
    /// The client is not allowed to issue the request.
    public static var clientInvalid: SKError.Code { .clientInvalid }
    /// The user cancelled the payment request.
    public static var paymentCancelled: SKError.Code { .paymentCancelled }
    /// A payment parameter was not recognized by the App Store.
    public static var paymentInvalid: SKError.Code { .paymentInvalid }
    /// The user is not allowed to authorize payments.
    public static var paymentNotAllowed: SKError.Code { .paymentNotAllowed }
    /// The requested product is not available in the store.
    public static var storeProductNotAvailable: SKError.Code { .storeProductNotAvailable }
    /// The user has not allowed access to Cloud service information.
    public static var cloudServicePermissionDenied: SKError.Code { .cloudServicePermissionDenied }
    /// The device could not connect to the network.
    public static var cloudServiceNetworkConnectionFailed: SKError.Code { .cloudServiceNetworkConnectionFailed }
    /// The user has revoked permission to use this cloud service.
    public static var cloudServiceRevoked: SKError.Code { .cloudServiceRevoked }
    /// The user has not yet acknowledged Apple's privacy policy.
    public static var privacyAcknowledgementRequired: SKError.Code { .privacyAcknowledgementRequired }
    /// The app is attempting to use `requestData` without the required entitlement.
    public static var unauthorizedRequestData: SKError.Code { .unauthorizedRequestData }
    /// The offer identifier is not valid.
    public static var invalidOfferIdentifier: SKError.Code { .invalidOfferIdentifier }
    /// The signature in a payment discount is not valid.
    public static var invalidSignature: SKError.Code { .invalidSignature }
    /// Parameters are missing in a payment discount.
    public static var missingOfferParams: SKError.Code { .missingOfferParams }
    /// The price of the selected offer is not valid.
    public static var invalidOfferPrice: SKError.Code { .invalidOfferPrice }
    /// The App Store overlay was cancelled.
    public static var overlayCancelled: SKError.Code { .overlayCancelled }
    /// The App Store overlay configuration is not valid.
    public static var overlayInvalidConfiguration: SKError.Code { .overlayInvalidConfiguration }
    /// The App Store overlay timed out.
    public static var overlayTimeout: SKError.Code { .overlayTimeout }
    /// The user is not eligible for the subscription offer.
    public static var ineligibleForOffer: SKError.Code { .ineligibleForOffer }
    /// The platform does not support the request.
    public static var unsupportedPlatform: SKError.Code { .unsupportedPlatform }
    /// The App Store overlay was presented in a background scene.
    public static var overlayPresentedInBackgroundScene: SKError.Code { .overlayPresentedInBackgroundScene }
    /// A payment method binding configuration is required.
    public static var paymentMethodBindingConfigurationRequired: SKError.Code { .paymentMethodBindingConfigurationRequired }
}

/// Lets `NSError` cast to `SKError` on Linux, where no Objective-C runtime bridges errors: the Swift runtime's
/// `as?` from a class to a value type asks the value type's `_ObjectiveCBridgeable` conformance.
extension SKError: _ObjectiveCBridgeable {
    /// The bridged form of the error: an `NSError`.
    public typealias _ObjectiveCType = NSError

    /// The error as an `NSError` of ``SKErrorDomain``.
    public func _bridgeToObjectiveC() -> NSError { _nsError }

    /// The StoreKit error of an `NSError` of ``SKErrorDomain``; another domain stops the program, as `as!` does.
    public static func _forceBridgeFromObjectiveC(_ source: NSError, result: inout SKError?) {
        precondition(source.domain == SKErrorDomain, "Cannot cast an NSError of \(source.domain) to SKError: use as? SKError.")
        result = SKError(_nsError: source)
    }

    /// The StoreKit error of an `NSError` of ``SKErrorDomain``, or `nil` (and `false`) for another domain.
    public static func _conditionallyBridgeFromObjectiveC(_ source: NSError, result: inout SKError?) -> Bool {
        result = source.domain == SKErrorDomain ? SKError(_nsError: source) : nil
        return result != nil
    }

    /// The StoreKit error of an `NSError`; `nil` stops the program.
    public static func _unconditionallyBridgeFromObjectiveC(_ source: NSError?) -> SKError {
        guard let source else { preconditionFailure("Cannot bridge a nil NSError to SKError.") }
        return SKError(_nsError: source)
    }
}

extension SKError.Code {
    /// Matches an error against a code, so that `catch SKError.paymentCancelled` works.
    public static func ~= (code: SKError.Code, error: any Error) -> Bool {
        (error as? SKError)?.code == code
    }

    /// A sentence for people, used when an error carries no description of its own.
    var defaultDescription: String {
        switch self {
        case .unknown: "An unknown error occurred."
        case .clientInvalid: "The client is not allowed to issue the request."
        case .paymentCancelled: "The payment was cancelled."
        case .paymentInvalid: "The App Store did not recognize a parameter of the payment."
        case .paymentNotAllowed: "This account is not allowed to make payments."
        case .storeProductNotAvailable: "The product is not available in this storefront."
        case .cloudServicePermissionDenied: "Access to cloud service information was denied."
        case .cloudServiceNetworkConnectionFailed: "Could not connect to the network."
        case .cloudServiceRevoked: "Permission to use this cloud service was revoked."
        case .privacyAcknowledgementRequired: "The user has not acknowledged Apple's privacy policy."
        case .unauthorizedRequestData: "The app may not set requestData on a payment."
        case .invalidOfferIdentifier: "The offer identifier is not valid."
        case .invalidSignature: "The payment discount's signature is not valid."
        case .missingOfferParams: "The payment discount is missing parameters."
        case .invalidOfferPrice: "The offer's price is not valid."
        case .overlayCancelled: "The App Store overlay was cancelled."
        case .overlayInvalidConfiguration: "The App Store overlay configuration is not valid."
        case .overlayTimeout: "The App Store overlay timed out."
        case .ineligibleForOffer: "The user is not eligible for this offer."
        case .unsupportedPlatform: "This platform does not support the request."
        case .overlayPresentedInBackgroundScene: "The App Store overlay was presented in a background scene."
        case .paymentMethodBindingConfigurationRequired: "A payment method binding configuration is required."
        }
    }
}

extension SKError {
    /// The StoreKit error for a store refusal, keeping the store's message as the description.
    init(_ storeError: StoreError, purchase: Bool = false) {
        let code: Code = switch storeError {
        case StoreError.unknownProduct: purchase ? .paymentInvalid : .storeProductNotAvailable
        case StoreError.invalidQuantity: .paymentInvalid
        case StoreError.paymentNotAllowed: .paymentNotAllowed
        case StoreError.unknownStorefront: .storeProductNotAvailable
        case StoreError.invalidOfferIdentifier: .invalidOfferIdentifier
        case StoreError.invalidOfferSignature: .invalidSignature
        case StoreError.missingOfferParameters: .missingOfferParams
        case StoreError.invalidOfferPrice: .invalidOfferPrice
        case StoreError.ineligibleForOffer: .ineligibleForOffer
        case StoreError.storeUnreachable: .cloudServiceNetworkConnectionFailed
        default: .unknown
        }
        self.init(code, userInfo: [NSLocalizedDescriptionKey: storeError.message])
    }
}
