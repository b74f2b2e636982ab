/// How a transaction was revoked (`revocationType`).
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum RevocationType: String, Codable, Hashable, Sendable, CaseIterable {
    /// `REFUND_FULL`.
    case refundFull = "REFUND_FULL"
    /// `REFUND_PRORATED`.
    case refundProrated = "REFUND_PRORATED"
    /// `FAMILY_REVOKE`.
    case familyRevoke = "FAMILY_REVOKE"
}
