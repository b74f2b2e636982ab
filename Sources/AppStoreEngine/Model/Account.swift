/// An App Store customer (an Apple ID) within one tenant.
public struct Account: Sendable, Hashable, Codable, Identifiable {
    /// The account's name, e.g. `alice@example.com` or `default`.
    public var id: String
    /// The storefront the account buys in (ISO 3166-1 alpha-3).
    public var storefront: String
    /// False for a restricted account (parental controls): `SKPaymentQueue.canMakePayments()` is false.
    public var canMakePayments: Bool
    /// The Family Sharing group the account belongs to, if any. Members share family-shareable purchases.
    public var familyID: String?

    /// Creates an account.
    public init(id: String, storefront: String, canMakePayments: Bool = true, familyID: String? = nil) {
        self.id = id
        self.storefront = storefront
        self.canMakePayments = canMakePayments
        self.familyID = familyID
    }
}
