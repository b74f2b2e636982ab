public import Foundation

/// One item of an Advanced Commerce transaction (`items` of `advancedCommerceInfo` in a signed transaction): the
/// developer's SKU, its descriptors and price, and any refunds of it.
public struct AdvancedCommerceTransactionItem: Codable, Hashable, Sendable {
    /// The developer's product identifier for the item.
    public var sku: String?
    /// A description of the item.
    public var description: String?
    /// The item's display name.
    public var displayName: String?
    /// The offer that priced the item in this period, if any.
    public var offer: AdvancedCommerceOffer?
    /// The item's price in this transaction, in milliunits of the currency.
    public var price: Int64?
    /// The refunds of this item, oldest first.
    public var refunds: [AdvancedCommerceRefund]?
    /// When the App Store revoked the item.
    public var revocationDate: Date?

    /// Creates an item.
    public init(
        sku: String? = nil, description: String? = nil, displayName: String? = nil, offer: AdvancedCommerceOffer? = nil,
        price: Int64? = nil, refunds: [AdvancedCommerceRefund]? = nil, revocationDate: Date? = nil
    ) {
        self.sku = sku
        self.description = description
        self.displayName = displayName
        self.offer = offer
        self.price = price
        self.refunds = refunds
        self.revocationDate = revocationDate
    }

    enum CodingKeys: String, CodingKey {
        case sku = "SKU"
        case description, displayName, offer, price, refunds, revocationDate
    }
}
