/// Why the App Store refunded or revoked a transaction (`revocationReason`).
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum RevocationReason: Int32, Codable, Hashable, Sendable, CaseIterable {
    /// `0`.
    case refundedForOtherReason = 0
    /// `1`.
    case refundedDueToIssue = 1
}
