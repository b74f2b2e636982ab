/// The display name and description of an Advanced Commerce subscription or purchase (`descriptors`), as the
/// developer's request gives them and the signed transaction and renewal information repeat them; in a modification
/// (`SubscriptionModifyDescriptors`), with when the new ones apply.
public struct AdvancedCommerceDescriptors: Codable, Hashable, Sendable {
    /// A description of the SKU (at most 45 characters).
    public var description: String?
    /// A product name suitable for display to customers (at most 30 characters).
    public var displayName: String?
    /// A modification's `IMMEDIATELY` or `NEXT_BILL_CYCLE`; absent from what the store signs.
    public var effective: String?

    /// Creates descriptors.
    public init(description: String? = nil, displayName: String? = nil, effective: String? = nil) {
        self.description = description
        self.displayName = displayName
        self.effective = effective
    }
}
