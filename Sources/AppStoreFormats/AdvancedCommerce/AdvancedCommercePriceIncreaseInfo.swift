/// A price change of an Advanced Commerce subscription item that takes effect at a renewal (`priceIncreaseInfo`).
public struct AdvancedCommercePriceIncreaseInfo: Codable, Hashable, Sendable {
    /// The SKUs whose price changes with this one.
    public var dependentSKUs: [String]?
    /// The new price, in milliunits of the currency.
    public var price: Int64?
    /// Where the change stands: `SCHEDULED`, `PENDING` or `ACCEPTED`.
    public var status: String?

    /// Creates price increase information.
    public init(dependentSKUs: [String]? = nil, price: Int64? = nil, status: String? = nil) {
        self.dependentSKUs = dependentSKUs
        self.price = price
        self.status = status
    }
}
