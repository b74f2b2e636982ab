public import Foundation

/// One way a subscription can be billed (`billingPlans[]`, 5.0+ files). Values are kept verbatim.
public struct BillingPlan: Sendable, Equatable {
    /// The plan type (`BILLED_UPFRONT` or `MONTHLY`).
    public var billingPlanType: BillingPlanType
    /// The price charged per billing (for `MONTHLY`, the monthly instalment), as written.
    public var displayPrice: String
    /// The total for the commitment, as written (equal to ``displayPrice`` for `BILLED_UPFRONT`).
    public var commitmentDisplayPrice: String
    /// Xcode's internal id for the plan.
    public var internalID: String
    /// Whether the plan is offered.
    public var isEnabled: Bool
    /// Members this library does not model, kept for the round trip.
    public var unknownKeys: [String: ConfigurationJSON]
    var layout = KeyLayout()

    /// ``displayPrice`` as an exact decimal; `nil` when `""`.
    public var price: Decimal? { Price.decimal(displayPrice) }
    /// ``commitmentDisplayPrice`` as an exact decimal; `nil` when `""`.
    public var commitmentPrice: Decimal? { Price.decimal(commitmentDisplayPrice) }

    /// Creates a billing plan.
    public init(
        billingPlanType: BillingPlanType, displayPrice: String, commitmentDisplayPrice: String, internalID: String = "",
        isEnabled: Bool = true, unknownKeys: [String: ConfigurationJSON] = [:]
    ) {
        self.billingPlanType = billingPlanType
        self.displayPrice = displayPrice
        self.commitmentDisplayPrice = commitmentDisplayPrice
        self.internalID = internalID
        self.isEnabled = isEnabled
        self.unknownKeys = unknownKeys
    }
}
