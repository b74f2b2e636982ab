/// The metadata every Advanced Commerce request carries (`requestInfo`).
public struct AdvancedCommerceRequestInfo: Codable, Hashable, Sendable {
    /// A UUID the developer gives each request; a retry repeats it.
    public var requestReferenceId: String?
    /// A UUID to associate with the transaction (`appAccountToken`), if any.
    public var appAccountToken: String?
    /// The subscription's latest `consistencyToken`, from its renewal information, if the developer passes it.
    public var consistencyToken: String?

    /// Creates request metadata.
    public init(requestReferenceId: String? = nil, appAccountToken: String? = nil, consistencyToken: String? = nil) {
        self.requestReferenceId = requestReferenceId
        self.appAccountToken = appAccountToken
        self.consistencyToken = consistencyToken
    }
}
