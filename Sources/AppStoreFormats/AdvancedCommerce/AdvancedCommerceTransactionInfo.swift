/// The Advanced Commerce part of a signed transaction (`advancedCommerceInfo`, Apple's
/// `AdvancedCommerceTransactionInfo`): what the developer's signed request sold, item by item.
public struct AdvancedCommerceTransactionInfo: Codable, Hashable, Sendable {
    /// The purchase's display name and description.
    public var descriptors: AdvancedCommerceDescriptors?
    /// The estimated tax, in milliunits of the currency.
    public var estimatedTax: Int64?
    /// The items bought.
    public var items: [AdvancedCommerceTransactionItem]?
    /// For a subscription: the billing period, an ISO 8601 duration (`P1W`, `P1M`, `P2M`, `P3M`, `P6M`, `P1Y`).
    public var period: String?
    /// The `requestReferenceId` of the developer's request that made the transaction.
    public var requestReferenceId: String?
    /// The developer's tax code for the purchase.
    public var taxCode: String?
    /// The price without tax, in milliunits of the currency.
    public var taxExclusivePrice: Int64?
    /// The tax rate, as a decimal string.
    public var taxRate: String?

    /// Creates information.
    public init(
        descriptors: AdvancedCommerceDescriptors? = nil, estimatedTax: Int64? = nil, items: [AdvancedCommerceTransactionItem]? = nil,
        period: String? = nil, requestReferenceId: String? = nil, taxCode: String? = nil, taxExclusivePrice: Int64? = nil,
        taxRate: String? = nil
    ) {
        self.descriptors = descriptors
        self.estimatedTax = estimatedTax
        self.items = items
        self.period = period
        self.requestReferenceId = requestReferenceId
        self.taxCode = taxCode
        self.taxExclusivePrice = taxExclusivePrice
        self.taxRate = taxRate
    }

    /// The billing periods Apple's Advanced Commerce API accepts for a subscription.
    public static let periods: Set<String> = ["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"]
}
