public import Foundation

/// Where a subscription billed monthly with a 12-month commitment stands in its commitment: the `MONTHLY` billing
/// plan of a `.storekit` file, bought with `Product.PurchaseOption.billingPlanType(.monthly)`.
///
/// Each monthly billing is a transaction of its own that carries the commitment as it stood then
/// (`commitmentInfo`); the subscription carries the current one. The monthly billings go on until the last one even
/// when the customer turns auto-renew off, which only stops the renewal into a new commitment: Apple's "Supporting
/// monthly subscriptions with a 12-month commitment" says billing "continues through all 12 periods even if the
/// customer cancels the commitment renewal early", and the commitment "automatically renews for another 12-month
/// commitment after all 12 payments are complete, unless the customer cancels before the renewal date".
public struct BillingCommitment: Sendable, Hashable, Codable {
    /// Which monthly billing of the commitment this is, from 1 to ``totalBillingPeriods``.
    public var billingPeriodNumber: Int
    /// How many monthly billings the commitment has.
    public var totalBillingPeriods: Int
    /// When the commitment ends: the end of its last billing period.
    public var expiresDate: Date
    /// The commitment's total price.
    public var price: Decimal

    /// Describes a commitment.
    public init(billingPeriodNumber: Int, totalBillingPeriods: Int, expiresDate: Date, price: Decimal) {
        self.billingPeriodNumber = billingPeriodNumber
        self.totalBillingPeriods = totalBillingPeriods
        self.expiresDate = expiresDate
        self.price = price
    }

    /// Whether billings of the commitment remain after this one.
    public var hasBillingsLeft: Bool { billingPeriodNumber < totalBillingPeriods }

    /// The same commitment at its next monthly billing.
    public var next: BillingCommitment {
        var next = self
        next.billingPeriodNumber += 1
        return next
    }
}
