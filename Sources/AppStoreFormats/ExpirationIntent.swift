/// Why a subscription expired (`expirationIntent`).
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum ExpirationIntent: Int32, Codable, Hashable, Sendable, CaseIterable {
    /// `1`.
    case customerCancelled = 1
    /// `2`.
    case billingError = 2
    /// `3`.
    case customerDidNotConsentToPriceIncrease = 3
    /// `4`.
    case productNotAvailable = 4
    /// `5`.
    case other = 5
}
