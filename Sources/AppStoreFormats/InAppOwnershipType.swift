/// Whether the customer bought the product or has it through Family Sharing (`inAppOwnershipType`).
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum InAppOwnershipType: String, Codable, Hashable, Sendable, CaseIterable {
    /// `FAMILY_SHARED`.
    case familyShared = "FAMILY_SHARED"
    /// `PURCHASED`.
    case purchased = "PURCHASED"
}
