/// The Advanced Commerce part of a subscription's signed renewal information (`advancedCommerceInfo`, Apple's
/// `AdvancedCommerceRenewalInfo`): what the subscription renews with.
public struct AdvancedCommerceRenewalInfo: Codable, Hashable, Sendable {
    /// The value the developer passes back as `consistencyToken` in its next request about the subscription.
    public var consistencyToken: String?
    /// The subscription's display name and description at the next renewal.
    public var descriptors: AdvancedCommerceDescriptors?
    /// The items the subscription renews with.
    public var items: [AdvancedCommerceRenewalItem]?
    /// The billing period, an ISO 8601 duration.
    public var period: String?
    /// The `requestReferenceId` of the latest request that changed the subscription.
    public var requestReferenceId: String?
    /// The developer's tax code for the subscription.
    public var taxCode: String?

    /// Creates renewal information.
    public init(
        consistencyToken: String? = nil, descriptors: AdvancedCommerceDescriptors? = nil, items: [AdvancedCommerceRenewalItem]? = nil,
        period: String? = nil, requestReferenceId: String? = nil, taxCode: String? = nil
    ) {
        self.consistencyToken = consistencyToken
        self.descriptors = descriptors
        self.items = items
        self.period = period
        self.requestReferenceId = requestReferenceId
        self.taxCode = taxCode
    }

    /// What the next renewal charges: the items' prices, each at its scheduled new price when one waits, in
    /// milliunits of the currency.
    public var renewalPrice: Int64 {
        (items ?? []).reduce(0) { $0 + ($1.priceIncreaseInfo?.price ?? $1.price ?? 0) }
    }
}
