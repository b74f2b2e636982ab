/// An item of an Advanced Commerce in-app request: the `item` of a one-time charge, one of the `items` of a new
/// subscription or of a reactivation, or an item a modification adds, changes or removes (Apple's
/// `SubscriptionModifyAddItem`, `SubscriptionModifyChangeItem`, `SubscriptionModifyRemoveItem`).
public struct AdvancedCommerceRequestItem: Codable, Hashable, Sendable {
    /// The developer's product identifier for the item (at most 128 characters).
    public var sku: String?
    /// A description of the item (at most 45 characters).
    public var description: String?
    /// The item's display name (at most 30 characters).
    public var displayName: String?
    /// The item's price, in milliunits of the currency.
    public var price: Int64?
    /// A subscription item's introductory discount, if any.
    public var offer: AdvancedCommerceOffer?
    /// A changed item's SKU before the change.
    public var currentSKU: String?
    /// What an item added or changed now costs for the rest of the current period, in milliunits; the store prorates
    /// the price itself when it is absent.
    public var proratedPrice: Int64?
    /// Why a changed item changes: `UPGRADE`, `DOWNGRADE` or `APPLY_OFFER`.
    public var reason: String?
    /// When a changed item changes: `IMMEDIATELY` or `NEXT_BILL_CYCLE`.
    public var effective: String?

    /// Creates an item.
    public init(sku: String? = nil, description: String? = nil, displayName: String? = nil, price: Int64? = nil, offer: AdvancedCommerceOffer? = nil) {
        self.sku = sku
        self.description = description
        self.displayName = displayName
        self.price = price
        self.offer = offer
    }

    enum CodingKeys: String, CodingKey {
        case sku = "SKU"
        case description, displayName, price, offer, currentSKU, proratedPrice, reason, effective
    }
}
