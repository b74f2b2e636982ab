/// A discount on an Advanced Commerce subscription item (`offer`): a price for a number of periods.
public struct AdvancedCommerceOffer: Codable, Hashable, Sendable {
    /// The offer's period as an ISO 8601 duration: `P3D`, `P1W`, `P2W`, `P1M`, `P2M`, `P3M`, `P6M`, `P9M` or `P1Y`.
    public var period: String?
    /// How many periods the offer lasts (1 to 12).
    public var periodCount: Int?
    /// The offer price, in milliunits of the currency.
    public var price: Int64?
    /// Why the offer is made: `ACQUISITION`, `WIN_BACK` or `RETENTION`.
    public var reason: String?

    /// Creates an offer.
    public init(period: String? = nil, periodCount: Int? = nil, price: Int64? = nil, reason: String? = nil) {
        self.period = period
        self.periodCount = periodCount
        self.price = price
        self.reason = reason
    }

    /// The offer periods Apple's Advanced Commerce API accepts.
    public static let periods: Set<String> = ["P3D", "P1W", "P2W", "P1M", "P2M", "P3M", "P6M", "P9M", "P1Y"]
    /// The offer reasons Apple's Advanced Commerce API accepts.
    public static let reasons: Set<String> = ["ACQUISITION", "WIN_BACK", "RETENTION"]
}
