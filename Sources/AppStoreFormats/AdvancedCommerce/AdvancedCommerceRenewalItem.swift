/// One item an Advanced Commerce subscription renews with (`items` of `advancedCommerceInfo` in signed renewal info).
public struct AdvancedCommerceRenewalItem: Codable, Hashable, Sendable {
    /// The developer's product identifier for the item.
    public var sku: String?
    /// A description of the item.
    public var description: String?
    /// The item's display name.
    public var displayName: String?
    /// The offer that prices the item at the next renewal, if any.
    public var offer: AdvancedCommerceOffer?
    /// The item's price at the next renewal, in milliunits of the currency.
    public var price: Int64?
    /// A price change waiting for a renewal, if any.
    public var priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo?

    /// Creates an item.
    public init(
        sku: String? = nil, description: String? = nil, displayName: String? = nil, offer: AdvancedCommerceOffer? = nil,
        price: Int64? = nil, priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo? = nil
    ) {
        self.sku = sku
        self.description = description
        self.displayName = displayName
        self.offer = offer
        self.price = price
        self.priceIncreaseInfo = priceIncreaseInfo
    }

    enum CodingKeys: String, CodingKey {
        case sku = "SKU"
        case description, displayName, offer, price, priceIncreaseInfo
    }
}
