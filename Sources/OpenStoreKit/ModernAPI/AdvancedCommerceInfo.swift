import AppStoreFormats
public import Foundation

/// Amounts in signed Advanced Commerce data are milliunits of the currency.
private func decimal(milliunits: Int64?) -> Decimal {
    Decimal(milliunits ?? 0) / 1000
}

extension Transaction {
    /// What a purchase made with the Advanced Commerce API sold: the items of the request your server signed, their
    /// prices and offers, and the refunds of each (iOS 18.4+). Read from `advancedCommerceInfo` of the signed
    /// transaction.
    public struct AdvancedCommerceInfo: Hashable, Sendable {
        /// The purchase's description, from the request's descriptors.
        public let description: String?
        /// The purchase's display name, from the request's descriptors.
        public let displayName: String?
        /// The estimated tax, in the transaction's currency; `0` when the store signs none (OpenStoreKit's store
        /// computes no tax).
        public let estimatedTax: Decimal
        /// The items purchased as part of this transaction.
        public let items: [Transaction.AdvancedCommerceInfo.Item]
        /// For a subscription: the billing period the request set.
        public let period: Product.SubscriptionPeriod?
        /// The `requestReferenceId` of the request that made the transaction.
        public let requestReferenceID: String
        /// The request's tax code.
        public let taxCode: String
        /// The price without tax, in the transaction's currency.
        public let taxExclusivePrice: Decimal
        /// The tax rate; `0` when the store signs none.
        public let taxRate: Decimal

        init?(_ info: AdvancedCommerceTransactionInfo) {
            guard let reference = info.requestReferenceId, let taxCode = info.taxCode else { return nil }
            description = info.descriptors?.description
            displayName = info.descriptors?.displayName
            estimatedTax = decimal(milliunits: info.estimatedTax)
            items = (info.items ?? []).map(Item.init)
            period = info.period.flatMap(Product.SubscriptionPeriod.init(iso8601:))
            requestReferenceID = reference
            self.taxCode = taxCode
            taxExclusivePrice = decimal(milliunits: info.taxExclusivePrice)
            taxRate = info.taxRate.flatMap { Decimal(string: $0) } ?? 0
        }

        /// The developer-defined product that was purchased.
        public struct Item: Hashable, Sendable {
            /// The item's details.
            public let details: Transaction.AdvancedCommerceInfo.Item.Details
            /// The list of refunds that were issued as part of this transaction; `nil` when there are none.
            public let refunds: [Transaction.AdvancedCommerceInfo.Refund]?
            /// The date access to this item was revoked.
            public let revocationDate: Date?

            init(_ item: AdvancedCommerceTransactionItem) {
                details = Details(sku: item.sku, description: item.description, displayName: item.displayName, offer: item.offer, price: item.price)
                refunds = item.refunds.map { $0.map(Refund.init) }
                revocationDate = item.revocationDate
            }

            /// The item details.
            public struct Details: Hashable, Sendable {
                /// The description of the item.
                public let description: String
                /// The display name of the item.
                public let displayName: String
                /// The offer applied to the purchase of this item, if any.
                public let offer: Transaction.AdvancedCommerceInfo.Offer?
                /// The price of the item.
                public let price: Decimal
                /// Unique identifier for the item: your SKU.
                public let sku: String

                init(sku: String?, description: String?, displayName: String?, offer: AdvancedCommerceOffer?, price: Int64?) {
                    self.sku = sku ?? ""
                    self.description = description ?? ""
                    self.displayName = displayName ?? ""
                    self.offer = offer.flatMap(Offer.init)
                    self.price = decimal(milliunits: price)
                }
            }
        }

        /// Information about the offer that was redeemed as part of the purchase.
        public struct Offer: Hashable, Sendable {
            /// The duration of the offer.
            public let period: Product.SubscriptionPeriod
            /// The number of periods the system applies the offer.
            public let periodCount: Int
            /// The discounted price under the offer.
            public let price: Decimal
            /// The reason the offer was applied.
            public let reason: Transaction.AdvancedCommerceInfo.Offer.Reason

            init?(_ offer: AdvancedCommerceOffer) {
                guard let period = offer.period.flatMap(Product.SubscriptionPeriod.init(iso8601:)), let reason = offer.reason else { return nil }
                self.period = period
                periodCount = offer.periodCount ?? 1
                price = decimal(milliunits: offer.price)
                self.reason = Reason(rawValue: reason)
            }

            /// Why an offer applies to an auto-renewable subscription. Raw values are the App Store's.
            public struct Reason: RawRepresentable, Hashable, Sendable {
                /// An offer to a new customer.
                public static let acquisition = Reason(rawValue: "ACQUISITION")
                /// An offer to a customer who left.
                public static let winBack = Reason(rawValue: "WIN_BACK")
                /// An offer to keep a customer.
                public static let retention = Reason(rawValue: "RETENTION")
                /// The App Store's name.
                public let rawValue: String
                /// A reason by its App Store name.
                public init(rawValue: String) { self.rawValue = rawValue }
            }
        }

        /// Information about refunds that were issued as part of this transaction.
        public struct Refund: Hashable, Sendable {
            /// The amount of the refund.
            public let amount: Decimal
            /// The date the refund was granted.
            public let date: Date
            /// The reason for the refund.
            public let reason: Transaction.AdvancedCommerceInfo.Refund.Reason
            /// The type of the refund.
            public let type: Transaction.AdvancedCommerceInfo.Refund.RefundType

            init(_ refund: AdvancedCommerceRefund) {
                amount = decimal(milliunits: refund.refundAmount)
                date = refund.refundDate ?? .distantPast
                reason = Reason(rawValue: refund.refundReason ?? Reason.other.rawValue)
                type = RefundType(rawValue: refund.refundType ?? RefundType.full.rawValue)
            }

            /// The reason for a refund. Raw values are the App Store's.
            public struct Reason: RawRepresentable, Hashable, Sendable {
                /// The customer requested a refund based on a legal reason.
                public static let legal = Reason(rawValue: "LEGAL")
                /// The developer refunded items it removed from the purchase.
                public static let modifyItems = Reason(rawValue: "MODIFY_ITEMS_REFUND")
                /// The customer requested a refund for other reasons.
                public static let other = Reason(rawValue: "OTHER")
                /// The customer had issues with receiving or using the purchase.
                public static let unfulfilled = Reason(rawValue: "FULFILLMENT_ISSUE")
                /// The customer didn't intend to make the purchase.
                public static let unintended = Reason(rawValue: "UNINTENDED_PURCHASE")
                /// The customer wasn't satisfied with the purchase.
                public static let unsatisfied = Reason(rawValue: "UNSATISFIED_WITH_PURCHASE")
                /// The App Store's name.
                public let rawValue: String
                /// A reason by its App Store name.
                public init(rawValue: String) { self.rawValue = rawValue }
            }

            /// How much of an item a refund returned. Raw values are the App Store's.
            public struct RefundType: RawRepresentable, Hashable, Sendable {
                /// An amount the developer chose.
                public static let custom = RefundType(rawValue: "CUSTOM")
                /// The unused part of the period.
                public static let proRated = RefundType(rawValue: "PRORATED")
                /// The whole price.
                public static let full = RefundType(rawValue: "FULL")
                /// The App Store's name.
                public let rawValue: String
                /// A type by its App Store name.
                public init(rawValue: String) { self.rawValue = rawValue }
            }
        }
    }
}

extension Product.SubscriptionInfo.RenewalInfo {
    /// What a subscription bought with the Advanced Commerce API renews with: its items, their next prices and any
    /// price increase waiting (iOS 18.4+). Read from `advancedCommerceInfo` of the signed renewal information.
    public struct AdvancedCommerceInfo: Hashable, Sendable {
        /// The value your server passes back as `consistencyToken` in its next request about the subscription; empty
        /// when the store signed none.
        public let consistencyToken: String
        /// The subscription's description at the next renewal.
        public let description: String
        /// The subscription's display name at the next renewal.
        public let displayName: String
        /// The items included in this subscription.
        public let items: [Product.SubscriptionInfo.RenewalInfo.AdvancedCommerceInfo.Item]
        /// The billing period.
        public let period: Product.SubscriptionPeriod
        /// The `requestReferenceId` of the latest request that changed the subscription.
        public let requestReferenceID: String
        /// The subscription's tax code.
        public let taxCode: String

        init?(_ info: AdvancedCommerceRenewalInfo) {
            guard let period = info.period.flatMap(Product.SubscriptionPeriod.init(iso8601:)), let reference = info.requestReferenceId,
                  let taxCode = info.taxCode else { return nil }
            consistencyToken = info.consistencyToken ?? ""
            description = info.descriptors?.description ?? ""
            displayName = info.descriptors?.displayName ?? ""
            items = (info.items ?? []).map(Item.init)
            self.period = period
            requestReferenceID = reference
            self.taxCode = taxCode
        }

        /// The developer-defined product the subscription renews with.
        public struct Item: Hashable, Sendable {
            /// The item's details, as a transaction's items have them.
            public typealias Details = Transaction.AdvancedCommerceInfo.Item.Details

            /// The item's details at the next renewal.
            public let details: Product.SubscriptionInfo.RenewalInfo.AdvancedCommerceInfo.Item.Details
            /// A price increase waiting for a renewal, if any (iOS 26.2+).
            public let priceIncreaseInfo: Product.SubscriptionInfo.RenewalInfo.AdvancedCommerceInfo.Item.PriceIncreaseInfo?

            init(_ item: AdvancedCommerceRenewalItem) {
                details = Details(sku: item.sku, description: item.description, displayName: item.displayName, offer: item.offer, price: item.price)
                priceIncreaseInfo = item.priceIncreaseInfo.map(PriceIncreaseInfo.init)
            }

            /// The details of a subscription price increase.
            public struct PriceIncreaseInfo: Hashable, Sendable {
                /// The SKUs the App Store cancels when the customer declines the increase.
                public let dependentSKUs: [String]
                /// The new price, in the renewal's currency.
                public let price: Decimal
                /// The status of the price increase.
                public let status: Product.SubscriptionInfo.RenewalInfo.AdvancedCommerceInfo.Item.PriceIncreaseInfo.Status

                init(_ info: AdvancedCommercePriceIncreaseInfo) {
                    dependentSKUs = info.dependentSKUs ?? []
                    price = decimal(milliunits: info.price)
                    status = Status(rawValue: info.status ?? Status.scheduled.rawValue)
                }

                /// Where a price increase stands. Raw values are the App Store's.
                public struct Status: RawRepresentable, Hashable, Sendable {
                    /// The App Store waits for the customer's consent.
                    public static let pending = Status(rawValue: "PENDING")
                    /// The App Store scheduled the increase for the renewal.
                    public static let scheduled = Status(rawValue: "SCHEDULED")
                    /// The customer accepted the new price.
                    public static let accepted = Status(rawValue: "ACCEPTED")
                    /// The App Store's name.
                    public let rawValue: String
                    /// A status by its App Store name.
                    public init(rawValue: String) { self.rawValue = rawValue }
                }
            }
        }
    }
}
