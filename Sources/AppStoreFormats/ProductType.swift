/// The type of an in-app purchase, as JWS transactions spell it (`type`).
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum ProductType: String, Codable, Hashable, Sendable, CaseIterable {
    /// `Auto-Renewable Subscription`.
    case autoRenewable = "Auto-Renewable Subscription"
    /// `Non-Consumable`.
    case nonConsumable = "Non-Consumable"
    /// `Consumable`.
    case consumable = "Consumable"
    /// `Non-Renewing Subscription`.
    case nonRenewable = "Non-Renewing Subscription"
}

extension ProductType {
    /// The product type as an app receipt writes it (in-app attribute 1707): 0 non-consumable, 1 consumable,
    /// 2 non-renewing subscription, 3 auto-renewable subscription.
    public var receiptValue: Int {
        switch self {
        case .nonConsumable: 0
        case .consumable: 1
        case .nonRenewable: 2
        case .autoRenewable: 3
        }
    }

    /// The product type for a receipt's attribute 1707 value, or nil for an unknown value.
    public init?(receiptValue: Int) {
        guard let type = Self.allCases.first(where: { $0.receiptValue == receiptValue }) else { return nil }
        self = type
    }
}
