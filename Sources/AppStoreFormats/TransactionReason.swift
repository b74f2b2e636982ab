/// Why a transaction happened (`transactionReason`): a customer purchase or an automatic renewal.
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum TransactionReason: String, Codable, Hashable, Sendable, CaseIterable {
    /// `PURCHASE`.
    case purchase = "PURCHASE"
    /// `RENEWAL`.
    case renewal = "RENEWAL"
}
