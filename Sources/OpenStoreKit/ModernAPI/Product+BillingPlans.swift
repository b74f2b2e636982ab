import AppStoreEngine
public import Foundation
import StoreKitConfiguration

extension Product.SubscriptionInfo {
    /// How a subscription is billed: up front each period, or monthly with a 12-month commitment.
    ///
    /// Choose the plan of a purchase with ``Product/PurchaseOption/billingPlanType(_:)``; a transaction says which one
    /// billed it in ``Transaction/billingPlanType``.
    public struct BillingPlanType: RawRepresentable, Hashable, Sendable {
        /// The plan's name.
        public let rawValue: String
        /// Creates a plan type from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Monthly billing with a 12-month commitment: twelve monthly payments, then a new commitment unless the
        /// customer cancelled.
        public static let monthly = BillingPlanType(rawValue: "monthly")
        /// The whole price up front, each period.
        public static let upFront = BillingPlanType(rawValue: "upFront")

        /// The plan of an App Store `billingPlanType` (`MONTHLY`, `BILLED_UPFRONT`).
        init(appStore value: String) {
            switch value {
            case StoreKitConfiguration.BillingPlanType.monthly.rawValue: self = .monthly
            case StoreKitConfiguration.BillingPlanType.billedUpFront.rawValue: self = .upFront
            default: self = BillingPlanType(rawValue: value)
            }
        }

        /// The App Store's name for the plan.
        var appStore: StoreKitConfiguration.BillingPlanType {
            switch self {
            case .monthly: .monthly
            case .upFront: .billedUpFront
            default: StoreKitConfiguration.BillingPlanType(rawValue: rawValue)
            }
        }
    }

    /// The period between two billings of a plan.
    public typealias BillingPeriod = Product.SubscriptionPeriod

    /// What a customer commits to when subscribing on a plan: the total price and how long it runs.
    public struct CommitmentInfo: Equatable, Hashable, Sendable {
        /// The commitment's total price, in the storefront's currency.
        public let price: Decimal
        /// ``price`` formatted for the customer.
        public let displayPrice: String
        /// How long the commitment runs.
        public let period: Product.SubscriptionPeriod
    }

    /// One way to pay for a subscription (`pricingTerms`): its billing plan, what each billing charges and how
    /// often, and the commitment it makes.
    public struct PricingTerms: Equatable, Hashable, Sendable {
        /// The billing plan.
        public let billingPlanType: Product.SubscriptionInfo.BillingPlanType
        /// What each billing charges, in the storefront's currency.
        public let billingPrice: Decimal
        /// ``billingPrice`` formatted for the customer.
        public let billingDisplayPrice: String
        /// The period between billings: the subscription's period up front, a month on the monthly plan.
        public let billingPeriod: Product.SubscriptionInfo.BillingPeriod
        /// The commitment the customer agrees to when they subscribe on this plan.
        public let commitmentInfo: Product.SubscriptionInfo.CommitmentInfo
        /// The subscription offers of this plan.
        public let subscriptionOffers: [Product.SubscriptionOffer]

        /// The offers of this plan of one kind.
        public subscript(offers type: Product.SubscriptionOffer.OfferType) -> [Product.SubscriptionOffer] {
            subscriptionOffers.filter { $0.type == type }
        }

        /// The terms of a configured billing plan of a subscription whose period is `period`; `offers` are the
        /// subscription's offers, of which the up-front plan carries the ones this library prices.
        init(_ plan: SubscriptionBillingPlan, period: StoreKitConfiguration.SubscriptionPeriod, offers: [Product.SubscriptionOffer], currency: String, locale: Locale) {
            let monthly = plan.type == .monthly
            billingPlanType = BillingPlanType(appStore: plan.type.rawValue)
            billingPrice = plan.price
            billingDisplayPrice = Product.format(plan.price, currency: currency, locale: locale)
            billingPeriod = Product.SubscriptionPeriod(monthly ? SubscriptionBillingPlan.monthlyBillingPeriod : period)
            // The commitment runs for the subscription's period (a year, for the monthly plan's twelve billings).
            commitmentInfo = CommitmentInfo(
                price: plan.commitmentPrice, displayPrice: Product.format(plan.commitmentPrice, currency: currency, locale: locale),
                period: Product.SubscriptionPeriod(period)
            )
            subscriptionOffers = monthly ? [] : offers
        }
    }
}

extension Product.PurchaseOption {
    /// Buys the subscription on a billing plan: ``Product/SubscriptionInfo/BillingPlanType/monthly`` bills monthly
    /// over a 12-month commitment, for a product whose ``Product/SubscriptionInfo/pricingTerms`` offer it; the
    /// purchase fails otherwise. Without this option a subscription bills up front.
    public static func billingPlanType(_ type: Product.SubscriptionInfo.BillingPlanType) -> Product.PurchaseOption {
        Product.PurchaseOption(kind: .billingPlanType(type.rawValue))
    }
}

extension Transaction {
    /// Where a monthly billing stands in its 12-month commitment (``Transaction/commitmentInfo``).
    public struct CommitmentInfo: Equatable, Hashable, Sendable {
        /// When the commitment ends.
        public let expirationDate: Date
        /// Which billing of the commitment the transaction is, from 1 to ``totalBillingPeriods``.
        public let billingPeriodNumber: UInt64
        /// How many billings the commitment has.
        public let totalBillingPeriods: UInt64
        /// The commitment's total price, in the transaction's currency.
        public let price: Decimal
    }
}

extension Product.SubscriptionInfo.RenewalInfo {
    /// What happens when a subscription's 12-month commitment ends (``Product/SubscriptionInfo/RenewalInfo/commitmentInfo``).
    public struct CommitmentInfo: Equatable, Hashable, Sendable {
        /// When the commitment ends and the next one starts.
        public let renewalDate: Date
        /// The next commitment's total price.
        public let renewalPrice: Decimal
        /// Whether a new commitment follows this one; turning it off leaves the current commitment's billings.
        public let willAutoRenew: Bool
        /// The product of the next commitment.
        public let autoRenewPreference: String
        /// The billing plan of the next commitment.
        public let renewalBillingPlanType: Product.SubscriptionInfo.BillingPlanType
    }
}
