/// The body of Advanced Commerce's Migrate a Subscription endpoint (`SubscriptionMigrateRequest`): the generic
/// product, descriptors and items an In-App Purchase subscription continues as.
public struct AdvancedCommerceSubscriptionMigrateRequest: Codable, Hashable, Sendable {
    /// One item of the migrated subscription (`SubscriptionMigrateItem`, `SubscriptionMigrateRenewalItem`).
    public struct Item: Codable, Hashable, Sendable {
        /// The developer's SKU for the item.
        public var sku: String?
        /// A description of the item.
        public var description: String?
        /// The item's display name.
        public var displayName: String?

        /// Creates an item.
        public init(sku: String? = nil, description: String? = nil, displayName: String? = nil) {
            self.sku = sku
            self.description = description
            self.displayName = displayName
        }

        enum CodingKeys: String, CodingKey {
            case sku = "SKU"
            case description, displayName
        }
    }

    /// The request's metadata.
    public var requestInfo: AdvancedCommerceRequestInfo?
    /// The subscription's new display name and description.
    public var descriptors: AdvancedCommerceDescriptors?
    /// The items the subscription includes now.
    public var items: [Item]?
    /// The items it renews with, when they differ from ``items``.
    public var renewalItems: [Item]?
    /// The developer's generic auto-renewable product the subscription continues as.
    public var targetProductId: String?
    /// The developer's tax code.
    public var taxCode: String?
    /// The storefront, if given.
    public var storefront: String?

    /// Creates a body.
    public init(
        requestInfo: AdvancedCommerceRequestInfo? = nil, descriptors: AdvancedCommerceDescriptors? = nil, items: [Item]? = nil,
        targetProductId: String? = nil, taxCode: String? = nil
    ) {
        self.requestInfo = requestInfo
        self.descriptors = descriptors
        self.items = items
        self.targetProductId = targetProductId
        self.taxCode = taxCode
    }
}
