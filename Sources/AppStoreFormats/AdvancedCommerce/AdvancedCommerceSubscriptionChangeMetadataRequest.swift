/// The body of Advanced Commerce's Change Subscription Metadata endpoint (`SubscriptionChangeMetadataRequest`): new
/// descriptors, item SKUs, names and descriptions, and tax code, each effective now or at the next renewal.
public struct AdvancedCommerceSubscriptionChangeMetadataRequest: Codable, Hashable, Sendable {
    /// New descriptors for the subscription (`SubscriptionChangeMetadataDescriptors`).
    public struct Descriptors: Codable, Hashable, Sendable {
        /// The new description, if it changes.
        public var description: String?
        /// The new display name, if it changes.
        public var displayName: String?
        /// `IMMEDIATELY` or `NEXT_BILL_CYCLE`.
        public var effective: String?

        /// Creates new descriptors.
        public init(description: String? = nil, displayName: String? = nil, effective: String? = nil) {
            self.description = description
            self.displayName = displayName
            self.effective = effective
        }
    }

    /// New metadata for one item (`SubscriptionChangeMetadataItem`).
    public struct Item: Codable, Hashable, Sendable {
        /// The item's SKU now.
        public var currentSKU: String?
        /// Its new SKU, if it changes.
        public var sku: String?
        /// Its new description, if it changes.
        public var description: String?
        /// Its new display name, if it changes.
        public var displayName: String?
        /// `IMMEDIATELY` or `NEXT_BILL_CYCLE`.
        public var effective: String?

        /// Creates new item metadata.
        public init(currentSKU: String? = nil, sku: String? = nil, description: String? = nil, displayName: String? = nil, effective: String? = nil) {
            self.currentSKU = currentSKU
            self.sku = sku
            self.description = description
            self.displayName = displayName
            self.effective = effective
        }

        enum CodingKeys: String, CodingKey {
            case currentSKU
            case sku = "SKU"
            case description, displayName, effective
        }
    }

    /// The request's metadata.
    public var requestInfo: AdvancedCommerceRequestInfo?
    /// New descriptors, if they change.
    public var descriptors: Descriptors?
    /// New item metadata.
    public var items: [Item]?
    /// A new tax code, from the next renewal.
    public var taxCode: String?
    /// The storefront, if given.
    public var storefront: String?

    /// Creates a body.
    public init(requestInfo: AdvancedCommerceRequestInfo? = nil, descriptors: Descriptors? = nil, items: [Item]? = nil, taxCode: String? = nil) {
        self.requestInfo = requestInfo
        self.descriptors = descriptors
        self.items = items
        self.taxCode = taxCode
    }

    /// `effective` for a change that applies now.
    public static let immediately = "IMMEDIATELY"
    /// `effective` for a change that applies from the next renewal.
    public static let nextBillCycle = "NEXT_BILL_CYCLE"
}
