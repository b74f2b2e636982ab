/// The body of Advanced Commerce's Revoke Subscription and Cancel a Subscription endpoints
/// (`SubscriptionRevokeRequest`, `SubscriptionCancelRequest`): cancel needs only ``requestInfo``.
public struct AdvancedCommerceSubscriptionRevokeRequest: Codable, Hashable, Sendable {
    /// The request's metadata.
    public var requestInfo: AdvancedCommerceRequestInfo?
    /// For a revoke: whether the developer accepts the refund's risk (`refundRiskingPreference`).
    public var refundRiskingPreference: Bool?
    /// For a revoke: `FULL` or `PRORATED`.
    public var refundType: String?
    /// For a revoke: why (one of ``AdvancedCommerceRefund/reasons``).
    public var refundReason: String?
    /// The storefront the developer believes the customer is in, if given.
    public var storefront: String?

    /// Creates a body.
    public init(requestInfo: AdvancedCommerceRequestInfo? = nil, refundRiskingPreference: Bool? = nil, refundType: String? = nil, refundReason: String? = nil, storefront: String? = nil) {
        self.requestInfo = requestInfo
        self.refundRiskingPreference = refundRiskingPreference
        self.refundType = refundType
        self.refundReason = refundReason
        self.storefront = storefront
    }
}
