/// One entry of `_storeKitErrors`: whether a StoreKit API fails on purpose, and with which error.
public struct SimulatedErrorSetting: Sendable, Equatable {
    /// The error Xcode's menu has chosen for an API (`current`): a failure case and a position in its error enum.
    public struct Choice: Sendable, Equatable {
        /// The position of the error in its enum (kept verbatim; the mapping to errors is not documented by Apple).
        public var index: Int
        /// The `SKTestFailures` case: `generic`, `purchase`, `verification` or `refundRequest`.
        public var type: String
        /// Members this library does not model, kept for the round trip.
        public var unknownKeys: [String: ConfigurationJSON]
        var layout = KeyLayout()

        /// Creates a choice.
        public init(index: Int, type: String, unknownKeys: [String: ConfigurationJSON] = [:]) {
            self.index = index
            self.type = type
            self.unknownKeys = unknownKeys
        }
    }

    /// The API's name as Xcode writes it (`"Load Products"`, `"Purchase"`, …); see ``standardNames``.
    public var name: String
    /// Whether the simulated error is on.
    public var enabled: Bool
    /// The chosen error; remembered even while disabled. `nil` when none (Xcode 26 omits the key).
    public var current: Choice?
    /// Members this library does not model, kept for the round trip.
    public var unknownKeys: [String: ConfigurationJSON]
    var layout = KeyLayout()

    /// Creates an entry.
    public init(name: String, enabled: Bool = false, current: Choice? = nil, unknownKeys: [String: ConfigurationJSON] = [:]) {
        self.name = name
        self.enabled = enabled
        self.current = current
        self.unknownKeys = unknownKeys
    }

    /// The nine API names Xcode writes, in Xcode's order.
    public static let standardNames: [String] = [
        "Load Products", "Purchase", "Verification", "App Store Sync", "Subscription Status", "App Transaction",
        "Manage Subscriptions Sheet", "Refund Request Sheet", "Offer Code Redeem Sheet",
    ]
}
