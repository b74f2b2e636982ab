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
    /// The apps the account downloaded, each once, in the order it first did; the store records them
    /// (``StoreEngine/recordAppDownload(accountID:bundleID:appVersion:)``), and saving an account keeps them.
    public var appDownloads: [AppDownload]

    /// Creates an account.
    public init(id: String, storefront: String, canMakePayments: Bool = true, familyID: String? = nil, appDownloads: [AppDownload] = []) {
        self.id = id
        self.storefront = storefront
        self.canMakePayments = canMakePayments
        self.familyID = familyID
        self.appDownloads = appDownloads
    }

    /// The account's download of an app, if it has one.
    public func download(of bundleID: String) -> AppDownload? {
        appDownloads.first { $0.bundleID == bundleID }
    }

    private enum CodingKeys: String, CodingKey {
        case id, storefront, canMakePayments, familyID, appDownloads
    }

    /// Reads an account; one stored before downloads were recorded has none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        storefront = try container.decode(String.self, forKey: .storefront)
        canMakePayments = try container.decode(Bool.self, forKey: .canMakePayments)
        familyID = try container.decodeIfPresent(String.self, forKey: .familyID)
        appDownloads = try container.decodeIfPresent([AppDownload].self, forKey: .appDownloads) ?? []
    }

    /// Writes an account; `appDownloads` only when there is one.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(storefront, forKey: .storefront)
        try container.encode(canMakePayments, forKey: .canMakePayments)
        try container.encodeIfPresent(familyID, forKey: .familyID)
        if !appDownloads.isEmpty { try container.encode(appDownloads, forKey: .appDownloads) }
    }
}
