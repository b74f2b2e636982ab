/// A subscription group (an entry of `subscriptionGroups`): auto-renewable subscriptions a customer can hold
/// only one of at a time, ranked by level.
public struct SubscriptionGroupDefinition: Sendable, Equatable {
    /// The group's id, referenced by each subscription's `subscriptionGroupID` (`Product.SubscriptionInfo.subscriptionGroupID`).
    public var id: String
    /// The group's reference name.
    public var name: String
    /// The group's display name per locale; often empty.
    public var localizations: [Localization]
    /// The group's subscriptions, in file order.
    public var subscriptions: [SubscriptionDefinition]
    /// Members this library does not model, kept for the round trip.
    public var unknownKeys: [String: ConfigurationJSON]
    var layout = KeyLayout()

    /// Creates a group.
    public init(
        id: String, name: String, localizations: [Localization] = [], subscriptions: [SubscriptionDefinition] = [],
        unknownKeys: [String: ConfigurationJSON] = [:]
    ) {
        self.id = id
        self.name = name
        self.localizations = localizations
        self.subscriptions = subscriptions
        self.unknownKeys = unknownKeys
    }

    /// The distinct levels used in the group, highest service level (1) first.
    public var levels: [Int] {
        Array(Set(subscriptions.map(\.groupLevel))).sorted()
    }
}
