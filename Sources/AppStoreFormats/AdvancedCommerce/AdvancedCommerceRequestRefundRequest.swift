/// The body of Advanced Commerce's Request Transaction Refund endpoint (`RequestRefundRequest`): which items of a
/// transaction to refund, how much, and whether to revoke them.
public struct AdvancedCommerceRequestRefundRequest: Codable, Hashable, Sendable {
    /// One item to refund (`RequestRefundItem`).
    public struct Item: Codable, Hashable, Sendable {
        /// The item's SKU in the transaction.
        public var sku: String?
        /// Whether the customer loses the item with the refund.
        public var revoke: Bool?
        /// Why (one of ``AdvancedCommerceRefund/reasons``).
        public var refundReason: String?
        /// `FULL`, `PRORATED` or `CUSTOM`.
        public var refundType: String?
        /// For `CUSTOM`: the amount, in milliunits of the currency.
        public var refundAmount: Int64?

        /// Creates an item.
        public init(sku: String? = nil, revoke: Bool? = nil, refundReason: String? = nil, refundType: String? = nil, refundAmount: Int64? = nil) {
            self.sku = sku
            self.revoke = revoke
            self.refundReason = refundReason
            self.refundType = refundType
            self.refundAmount = refundAmount
        }

        enum CodingKeys: String, CodingKey {
            case sku = "SKU"
            case revoke, refundReason, refundType, refundAmount
        }
    }

    /// The request's metadata.
    public var requestInfo: AdvancedCommerceRequestInfo?
    /// The items to refund.
    public var items: [Item]?
    /// Whether the developer accepts the refund's risk (`refundRiskingPreference`).
    public var refundRiskingPreference: Bool?
    /// The transaction's currency, if given.
    public var currency: String?
    /// The storefront, if given.
    public var storefront: String?

    /// Creates a body.
    public init(requestInfo: AdvancedCommerceRequestInfo? = nil, items: [Item]? = nil, refundRiskingPreference: Bool? = nil) {
        self.requestInfo = requestInfo
        self.items = items
        self.refundRiskingPreference = refundRiskingPreference
    }
}
