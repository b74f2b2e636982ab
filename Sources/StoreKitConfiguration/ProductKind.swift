/// The four kinds of in-app purchase, with the `type` spelling Xcode writes for each.
///
/// The spellings are case-sensitive: `"consumable"` is not a product type and is rejected.
public enum ProductKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `"Consumable"`: used up and bought again (coins, hints). Listed in `products`.
    case consumable = "Consumable"
    /// `"NonConsumable"`: bought once, owned forever (a feature unlock). Listed in `products`.
    case nonConsumable = "NonConsumable"
    /// `"NonRenewingSubscription"`: access for a period, no automatic renewal. Listed in `nonRenewingSubscriptions`.
    case nonRenewingSubscription = "NonRenewingSubscription"
    /// `"RecurringSubscription"`: an auto-renewable subscription. Listed in `subscriptionGroups[].subscriptions`.
    case autoRenewable = "RecurringSubscription"

    /// A lower-case name for people: `consumable`, `non-consumable`, `non-renewing subscription`, `auto-renewable subscription`.
    public var description: String {
        switch self {
        case .consumable: return "consumable"
        case .nonConsumable: return "non-consumable"
        case .nonRenewingSubscription: return "non-renewing subscription"
        case .autoRenewable: return "auto-renewable subscription"
        }
    }
}
