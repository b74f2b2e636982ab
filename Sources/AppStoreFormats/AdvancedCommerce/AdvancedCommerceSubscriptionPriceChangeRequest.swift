/// The body of Advanced Commerce's Change Subscription Price endpoint (`SubscriptionPriceChangeRequest`): new prices
/// for items of a subscription, from the next renewal.
public struct AdvancedCommerceSubscriptionPriceChangeRequest: Codable, Hashable, Sendable {
    /// One item's new price (`SubscriptionPriceChangeItem`).
    public struct Item: Codable, Hashable, Sendable {
        /// The item's SKU.
        public var sku: String?
        /// The new price, in milliunits of the currency.
        public var price: Int64?
        /// SKUs whose price changes with this one.
        public var dependentSKUs: [String]?

        /// Creates an item.
        public init(sku: String? = nil, price: Int64? = nil, dependentSKUs: [String]? = nil) {
            self.sku = sku
            self.price = price
            self.dependentSKUs = dependentSKUs
        }

        enum CodingKeys: String, CodingKey {
            case sku = "SKU"
            case price, dependentSKUs
        }
    }

    /// The request's metadata.
    public var requestInfo: AdvancedCommerceRequestInfo?
    /// The items and their new prices.
    public var items: [Item]?
    /// The currency of the prices, if given.
    public var currency: String?
    /// The storefront, if given.
    public var storefront: String?

    /// Creates a body.
    public init(requestInfo: AdvancedCommerceRequestInfo? = nil, items: [Item]? = nil, currency: String? = nil) {
        self.requestInfo = requestInfo
        self.items = items
        self.currency = currency
    }
}
