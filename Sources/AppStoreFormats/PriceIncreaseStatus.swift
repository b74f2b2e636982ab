/// Whether the customer responded to a subscription price increase (`priceIncreaseStatus`).
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum PriceIncreaseStatus: Int32, Codable, Hashable, Sendable, CaseIterable {
    /// `0`.
    case customerHasNotResponded = 0
    /// `1`.
    case customerConsentedOrWasNotifiedWithoutNeedingConsent = 1
}
