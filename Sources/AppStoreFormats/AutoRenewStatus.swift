/// Whether a subscription renews automatically (`autoRenewStatus`).
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum AutoRenewStatus: Int32, Codable, Hashable, Sendable, CaseIterable {
    /// `0`.
    case off = 0
    /// `1`.
    case on = 1
}
