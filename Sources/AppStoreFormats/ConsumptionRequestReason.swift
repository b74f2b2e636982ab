/// Why a customer asked for a refund of a consumable (`consumptionRequestReason`).
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum ConsumptionRequestReason: String, Codable, Hashable, Sendable, CaseIterable {
    /// `UNINTENDED_PURCHASE`.
    case unintendedPurchase = "UNINTENDED_PURCHASE"
    /// `FULFILLMENT_ISSUE`.
    case fulfillmentIssue = "FULFILLMENT_ISSUE"
    /// `UNSATISFIED_WITH_PURCHASE`.
    case unsatisfiedWithPurchase = "UNSATISFIED_WITH_PURCHASE"
    /// `LEGAL`.
    case legal = "LEGAL"
    /// `OTHER`.
    case other = "OTHER"
}
