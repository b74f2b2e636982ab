import AppStoreFormats
import Foundation
import StoreKitConfiguration

/// What a subscription's next billing is: its period, its price, its billing plan and, on the `MONTHLY` plan, where
/// it stands in its commitment.
struct NextBilling: Sendable, Hashable {
    /// How long the period the billing pays for lasts.
    var period: SubscriptionPeriod
    /// What the billing charges, before any offer.
    var price: Decimal
    /// The billing plan, for a product that has billing plans.
    var planType: BillingPlanType?
    /// On the `MONTHLY` plan: the commitment the billing belongs to.
    var commitment: BillingCommitment?
}

extension TimeRate {
    /// When a 12-month commitment that starts at `start` ends: after its monthly billing periods, each as long as
    /// the store's time rate makes a month, so the commitment ends exactly when its last billing's period does.
    func endOfCommitment(startingAt start: Date) -> Date {
        var end = start
        for _ in 0..<SubscriptionBillingPlan.monthlyBillingPeriods {
            end = endOfPeriod(SubscriptionBillingPlan.monthlyBillingPeriod, startingAt: end)
        }
        return end
    }
}

extension SubscriptionRecord {
    /// The product the subscription bills next: the current one while billings of its commitment remain (a change
    /// of product waits for the commitment's end), else the one it renews into.
    var nextBillingProductID: String {
        commitment?.hasBillingsLeft == true ? productID : autoRenewProductID
    }

    /// The subscription's next billing, of `product`, in a period that starts at `start`: the next monthly billing
    /// of the current commitment while billings of it remain, the first of a new commitment when the subscription
    /// renews on the `MONTHLY` plan, else an ordinary billing of the whole price.
    func nextBilling(of product: CatalogProduct, startingAt start: Date, timeRate: TimeRate) -> NextBilling? {
        guard let terms = product.subscription else { return nil }
        if let monthly = terms.billingPlan(.monthly) {
            if let commitment, commitment.hasBillingsLeft, product.id == productID {
                return NextBilling(period: SubscriptionBillingPlan.monthlyBillingPeriod, price: monthly.price, planType: .monthly, commitment: commitment.next)
            }
            if renewalBillingPlanType == .monthly {
                let commitment = BillingCommitment(
                    billingPeriodNumber: 1, totalBillingPeriods: SubscriptionBillingPlan.monthlyBillingPeriods,
                    expiresDate: timeRate.endOfCommitment(startingAt: start), price: monthly.commitmentPrice
                )
                return NextBilling(period: SubscriptionBillingPlan.monthlyBillingPeriod, price: monthly.price, planType: .monthly, commitment: commitment)
            }
        }
        return NextBilling(period: terms.period, price: product.price, planType: terms.billingPlans.isEmpty ? nil : .billedUpFront)
    }
}

extension StoreOperation {
    /// Bills a purchase on the plan it asks for (`Product.PurchaseOption.billingPlanType(_:)`): on `MONTHLY`, the
    /// first monthly instalment of a 12-month commitment, for a month; otherwise the whole price for the product's
    /// period, as before billing plans, marked `BILLED_UPFRONT` when the product has billing plans.
    ///
    /// - Returns: whether the purchase is billed monthly.
    /// - Throws: ``StoreError`` `invalidProductType` when the product is not an auto-renewable subscription or does not
    ///   offer the plan; `invalidOfferIdentifier` when a monthly purchase claims an offer.
    func applyBillingPlan(of request: PurchaseRequest, product: CatalogProduct, to record: inout TransactionRecord) throws -> Bool {
        guard let plan = request.billingPlanType, plan != .billedUpFront else {
            if let terms = product.subscription, !terms.billingPlans.isEmpty { record.billingPlanType = .billedUpFront }
            return false
        }
        guard let terms = product.subscription else {
            throw StoreError.invalidProductType("\(product.id) is not an auto-renewable subscription; only subscriptions have billing plans. Buy it without a billing plan type.")
        }
        guard plan == .monthly, let monthly = terms.billingPlan(.monthly) else {
            let plans = terms.billingPlans.map(\.type.rawValue)
            throw StoreError.invalidProductType("\(product.id) has no enabled \(plan.rawValue) billing plan; its billing plans: \(plans.isEmpty ? "none (it bills up front)" : plans.joined(separator: ", ")). Add the plan to its billingPlans in the configuration, or buy it without a billing plan type.")
        }
        guard request.offer == nil else {
            throw StoreError.invalidOfferIdentifier("Offers on the MONTHLY billing plan are not emulated: buy \(product.id) monthly without an offer, or up front with it.")
        }
        record.unitPrice = monthly.price
        record.amountCharged = monthly.price * Decimal(request.quantity)
        record.expiresDate = settings.timeRate.endOfPeriod(SubscriptionBillingPlan.monthlyBillingPeriod, startingAt: record.purchaseDate)
        record.billingPlanType = .monthly
        record.commitment = BillingCommitment(
            billingPeriodNumber: 1, totalBillingPeriods: SubscriptionBillingPlan.monthlyBillingPeriods,
            expiresDate: settings.timeRate.endOfCommitment(startingAt: record.purchaseDate), price: monthly.commitmentPrice
        )
        return true
    }
}
