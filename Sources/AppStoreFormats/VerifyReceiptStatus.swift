/// The `status` of a `verifyReceipt` response: 0 when the receipt is valid, otherwise Apple's 21000-series code.
///
/// `verifyReceipt` answers HTTP 200 even when it rejects a receipt; this code says what happened. Any number
/// decodes, so codes this type does not name survive a round trip.
public struct VerifyReceiptStatus: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    /// The numeric code.
    public let rawValue: Int

    /// Wraps a numeric code.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// 0: the receipt is valid.
    public static let valid = Self(rawValue: 0)
    /// 21000: the request was not a POST, or its body was not readable JSON.
    public static let malformedRequest = Self(rawValue: 21000)
    /// 21002: `receipt-data` is missing or is not a receipt (or the service had a temporary issue).
    public static let malformedReceiptData = Self(rawValue: 21002)
    /// 21003: the receipt's signature does not lead to a trusted root.
    public static let notAuthenticated = Self(rawValue: 21003)
    /// 21004: the `password` does not match the app's shared secret.
    public static let sharedSecretMismatch = Self(rawValue: 21004)
    /// 21005: the receipt server is unavailable.
    public static let serverUnavailable = Self(rawValue: 21005)
    /// 21006: the receipt is valid but its subscription expired (iOS 6-style transaction receipts only).
    public static let subscriptionExpired = Self(rawValue: 21006)
    /// 21007: a sandbox receipt was sent to the production path; send it to the sandbox path.
    public static let sandboxReceiptOnProduction = Self(rawValue: 21007)
    /// 21008: a production receipt was sent to the sandbox path; send it to the production path.
    public static let productionReceiptOnSandbox = Self(rawValue: 21008)
    /// 21009: an internal data access error; try again later.
    public static let internalDataAccessError = Self(rawValue: 21009)
    /// 21010: the account the receipt belongs to is not found or was deleted.
    public static let accountNotFound = Self(rawValue: 21010)

    /// Decodes the bare number.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int.self)
    }

    /// Encodes the bare number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The number, e.g. `21002`.
    public var description: String { String(rawValue) }
}
