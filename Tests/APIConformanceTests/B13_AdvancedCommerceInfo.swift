// B.13 Advanced Commerce data of StoreKit 2 (iOS 18.4+): Transaction.advancedCommerceInfo and
// Product.SubscriptionInfo.RenewalInfo.advancedCommerceInfo with their nested types. api-surface.md lists
// `Transaction.advancedCommerceInfo` as out of scope for milestone 1 and does not spell the nested types, so the
// declarations below are Apple's documentation pages, each named in the comment before its check: "StoreKit >
// Transaction > Transaction.AdvancedCommerceInfo" and its Item, Item.Details, Offer, Offer.Reason, Refund,
// Refund.Reason and Refund.RefundType pages; "Product.SubscriptionInfo.RenewalInfo.AdvancedCommerceInfo" and its Item,
// Item.Details (a type alias), Item.PriceIncreaseInfo (iOS 26.2) and PriceIncreaseInfo.Status pages.
import Foundation
import OpenStoreKit
import Testing

@Suite("B.13 Advanced Commerce data has Apple's declarations")
struct AdvancedCommerceInfoConformance {
    @Test("B.13 Transaction.advancedCommerceInfo and Transaction.AdvancedCommerceInfo with its items, offers and refunds")
    func transaction() {
        typealias Info = Transaction.AdvancedCommerceInfo
        // B.13 Transaction.advancedCommerceInfo — let advancedCommerceInfo: Transaction.AdvancedCommerceInfo?
        let _: KeyPath<Transaction, Info?> = \.advancedCommerceInfo
        // B.13 Transaction.AdvancedCommerceInfo — struct: Equatable, Hashable, Sendable
        requireHashable(Info.self)
        requireSendable(Info.self)
        // B.13 Transaction.AdvancedCommerceInfo.description — let description: String?
        let _: KeyPath<Info, String?> = \.description
        // B.13 Transaction.AdvancedCommerceInfo.displayName — let displayName: String?
        let _: KeyPath<Info, String?> = \.displayName
        // B.13 Transaction.AdvancedCommerceInfo.estimatedTax — let estimatedTax: Decimal
        let _: KeyPath<Info, Decimal> = \.estimatedTax
        // B.13 Transaction.AdvancedCommerceInfo.items — let items: [Transaction.AdvancedCommerceInfo.Item]
        let _: KeyPath<Info, [Info.Item]> = \.items
        // B.13 Transaction.AdvancedCommerceInfo.period — let period: SubscriptionPeriod?
        let _: KeyPath<Info, Product.SubscriptionPeriod?> = \.period
        // B.13 Transaction.AdvancedCommerceInfo.requestReferenceID — let requestReferenceID: String
        let _: KeyPath<Info, String> = \.requestReferenceID
        // B.13 Transaction.AdvancedCommerceInfo.taxCode — let taxCode: String
        let _: KeyPath<Info, String> = \.taxCode
        // B.13 Transaction.AdvancedCommerceInfo.taxExclusivePrice — let taxExclusivePrice: Decimal
        let _: KeyPath<Info, Decimal> = \.taxExclusivePrice
        // B.13 Transaction.AdvancedCommerceInfo.taxRate — let taxRate: Decimal
        let _: KeyPath<Info, Decimal> = \.taxRate

        // B.13 Transaction.AdvancedCommerceInfo.Item — struct: Equatable, Hashable, Sendable
        requireHashable(Info.Item.self)
        requireSendable(Info.Item.self)
        // B.13 Transaction.AdvancedCommerceInfo.Item.details — let details: Transaction.AdvancedCommerceInfo.Item.Details
        let _: KeyPath<Info.Item, Info.Item.Details> = \.details
        // B.13 Transaction.AdvancedCommerceInfo.Item.refunds — let refunds: [Transaction.AdvancedCommerceInfo.Refund]?
        let _: KeyPath<Info.Item, [Info.Refund]?> = \.refunds
        // B.13 Transaction.AdvancedCommerceInfo.Item.revocationDate — let revocationDate: Date?
        let _: KeyPath<Info.Item, Date?> = \.revocationDate
        // B.13 Transaction.AdvancedCommerceInfo.Item.Details — struct: Equatable, Hashable, Sendable
        requireHashable(Info.Item.Details.self)
        requireSendable(Info.Item.Details.self)
        // B.13 Transaction.AdvancedCommerceInfo.Item.Details.description — let description: String
        let _: KeyPath<Info.Item.Details, String> = \.description
        // B.13 Transaction.AdvancedCommerceInfo.Item.Details.displayName — let displayName: String
        let _: KeyPath<Info.Item.Details, String> = \.displayName
        // B.13 Transaction.AdvancedCommerceInfo.Item.Details.offer — let offer: Transaction.AdvancedCommerceInfo.Offer?
        let _: KeyPath<Info.Item.Details, Info.Offer?> = \.offer
        // B.13 Transaction.AdvancedCommerceInfo.Item.Details.price — let price: Decimal
        let _: KeyPath<Info.Item.Details, Decimal> = \.price
        // B.13 Transaction.AdvancedCommerceInfo.Item.Details.sku — let sku: String
        let _: KeyPath<Info.Item.Details, String> = \.sku

        // B.13 Transaction.AdvancedCommerceInfo.Offer — struct: Equatable, Hashable, Sendable
        requireHashable(Info.Offer.self)
        requireSendable(Info.Offer.self)
        // B.13 Transaction.AdvancedCommerceInfo.Offer.period — let period: SubscriptionPeriod
        let _: KeyPath<Info.Offer, Product.SubscriptionPeriod> = \.period
        // B.13 Transaction.AdvancedCommerceInfo.Offer.periodCount — let periodCount: Int
        let _: KeyPath<Info.Offer, Int> = \.periodCount
        // B.13 Transaction.AdvancedCommerceInfo.Offer.price — let price: Decimal
        let _: KeyPath<Info.Offer, Decimal> = \.price
        // B.13 Transaction.AdvancedCommerceInfo.Offer.reason — let reason: Transaction.AdvancedCommerceInfo.Offer.Reason
        let _: KeyPath<Info.Offer, Info.Offer.Reason> = \.reason
        // B.13 Transaction.AdvancedCommerceInfo.Offer.Reason — struct: Equatable, Hashable, RawRepresentable, Sendable
        requireHashable(Info.Offer.Reason.self)
        requireSendable(Info.Offer.Reason.self)
        requireRawValue(Info.Offer.Reason.self, String.self)
        // B.13 Transaction.AdvancedCommerceInfo.Offer.Reason.acquisition, winBack, retention: the App Store's offer reasons
        #expect(Info.Offer.Reason.acquisition.rawValue == "ACQUISITION")
        #expect(Info.Offer.Reason.winBack.rawValue == "WIN_BACK")
        #expect(Info.Offer.Reason.retention.rawValue == "RETENTION")

        // B.13 Transaction.AdvancedCommerceInfo.Refund — struct: Equatable, Hashable, Sendable
        requireHashable(Info.Refund.self)
        requireSendable(Info.Refund.self)
        // B.13 Transaction.AdvancedCommerceInfo.Refund.amount — let amount: Decimal
        let _: KeyPath<Info.Refund, Decimal> = \.amount
        // B.13 Transaction.AdvancedCommerceInfo.Refund.date — let date: Date
        let _: KeyPath<Info.Refund, Date> = \.date
        // B.13 Transaction.AdvancedCommerceInfo.Refund.reason — let reason: Transaction.AdvancedCommerceInfo.Refund.Reason
        let _: KeyPath<Info.Refund, Info.Refund.Reason> = \.reason
        // B.13 Transaction.AdvancedCommerceInfo.Refund.type — let type: Transaction.AdvancedCommerceInfo.Refund.RefundType
        let _: KeyPath<Info.Refund, Info.Refund.RefundType> = \.type
        // B.13 Transaction.AdvancedCommerceInfo.Refund.Reason — struct: Equatable, Hashable, RawRepresentable, Sendable
        requireHashable(Info.Refund.Reason.self)
        requireSendable(Info.Refund.Reason.self)
        requireRawValue(Info.Refund.Reason.self, String.self)
        // B.13 Transaction.AdvancedCommerceInfo.Refund.Reason.legal, modifyItems, other, unfulfilled, unintended,
        // unsatisfied: the App Store's refund reasons
        #expect(Info.Refund.Reason.legal.rawValue == "LEGAL")
        #expect(Info.Refund.Reason.modifyItems.rawValue == "MODIFY_ITEMS_REFUND")
        #expect(Info.Refund.Reason.other.rawValue == "OTHER")
        #expect(Info.Refund.Reason.unfulfilled.rawValue == "FULFILLMENT_ISSUE")
        #expect(Info.Refund.Reason.unintended.rawValue == "UNINTENDED_PURCHASE")
        #expect(Info.Refund.Reason.unsatisfied.rawValue == "UNSATISFIED_WITH_PURCHASE")
        // B.13 Transaction.AdvancedCommerceInfo.Refund.RefundType — struct: Equatable, Hashable, RawRepresentable, Sendable
        requireHashable(Info.Refund.RefundType.self)
        requireSendable(Info.Refund.RefundType.self)
        requireRawValue(Info.Refund.RefundType.self, String.self)
        // B.13 Transaction.AdvancedCommerceInfo.Refund.RefundType.custom, proRated, full: the App Store's refund types
        #expect(Info.Refund.RefundType.custom.rawValue == "CUSTOM")
        #expect(Info.Refund.RefundType.proRated.rawValue == "PRORATED")
        #expect(Info.Refund.RefundType.full.rawValue == "FULL")
    }

    @Test("B.13 RenewalInfo.advancedCommerceInfo and RenewalInfo.AdvancedCommerceInfo with its items and price increases")
    func renewalInfo() {
        typealias Info = Product.SubscriptionInfo.RenewalInfo.AdvancedCommerceInfo
        // B.13 Product.SubscriptionInfo.RenewalInfo.advancedCommerceInfo —
        // let advancedCommerceInfo: Product.SubscriptionInfo.RenewalInfo.AdvancedCommerceInfo?
        let _: KeyPath<Product.SubscriptionInfo.RenewalInfo, Info?> = \.advancedCommerceInfo
        // B.13 Product.SubscriptionInfo.RenewalInfo.AdvancedCommerceInfo — struct: Equatable, Hashable, Sendable
        requireHashable(Info.self)
        requireSendable(Info.self)
        // B.13 …RenewalInfo.AdvancedCommerceInfo.consistencyToken — let consistencyToken: String
        let _: KeyPath<Info, String> = \.consistencyToken
        // B.13 …RenewalInfo.AdvancedCommerceInfo.description — let description: String
        let _: KeyPath<Info, String> = \.description
        // B.13 …RenewalInfo.AdvancedCommerceInfo.displayName — let displayName: String
        let _: KeyPath<Info, String> = \.displayName
        // B.13 …RenewalInfo.AdvancedCommerceInfo.items — let items: [Product.SubscriptionInfo.RenewalInfo.AdvancedCommerceInfo.Item]
        let _: KeyPath<Info, [Info.Item]> = \.items
        // B.13 …RenewalInfo.AdvancedCommerceInfo.period — let period: SubscriptionPeriod
        let _: KeyPath<Info, Product.SubscriptionPeriod> = \.period
        // B.13 …RenewalInfo.AdvancedCommerceInfo.requestReferenceID — let requestReferenceID: String
        let _: KeyPath<Info, String> = \.requestReferenceID
        // B.13 …RenewalInfo.AdvancedCommerceInfo.taxCode — let taxCode: String
        let _: KeyPath<Info, String> = \.taxCode

        // B.13 …RenewalInfo.AdvancedCommerceInfo.Item — struct: Equatable, Hashable, Sendable
        requireHashable(Info.Item.self)
        requireSendable(Info.Item.self)
        // B.13 …RenewalInfo.AdvancedCommerceInfo.Item.Details — typealias of Transaction.AdvancedCommerceInfo.Item.Details
        let _: Transaction.AdvancedCommerceInfo.Item.Details.Type = Info.Item.Details.self
        // B.13 …RenewalInfo.AdvancedCommerceInfo.Item.details — let details: …AdvancedCommerceInfo.Item.Details
        let _: KeyPath<Info.Item, Info.Item.Details> = \.details
        // B.13 …RenewalInfo.AdvancedCommerceInfo.Item.priceIncreaseInfo (iOS 26.2) — let priceIncreaseInfo: …Item.PriceIncreaseInfo?
        let _: KeyPath<Info.Item, Info.Item.PriceIncreaseInfo?> = \.priceIncreaseInfo
        // B.13 …RenewalInfo.AdvancedCommerceInfo.Item.PriceIncreaseInfo (iOS 26.2) — struct: Equatable, Hashable, Sendable
        requireHashable(Info.Item.PriceIncreaseInfo.self)
        requireSendable(Info.Item.PriceIncreaseInfo.self)
        // B.13 …Item.PriceIncreaseInfo.dependentSKUs — let dependentSKUs: [String]
        let _: KeyPath<Info.Item.PriceIncreaseInfo, [String]> = \.dependentSKUs
        // B.13 …Item.PriceIncreaseInfo.price — let price: Decimal
        let _: KeyPath<Info.Item.PriceIncreaseInfo, Decimal> = \.price
        // B.13 …Item.PriceIncreaseInfo.status — let status: …Item.PriceIncreaseInfo.Status
        let _: KeyPath<Info.Item.PriceIncreaseInfo, Info.Item.PriceIncreaseInfo.Status> = \.status
        // B.13 …Item.PriceIncreaseInfo.Status — struct: Equatable, Hashable, Sendable
        requireHashable(Info.Item.PriceIncreaseInfo.Status.self)
        requireSendable(Info.Item.PriceIncreaseInfo.Status.self)
        // B.13 …Item.PriceIncreaseInfo.Status.pending, scheduled, accepted — static let …: …PriceIncreaseInfo.Status
        let statuses: [Info.Item.PriceIncreaseInfo.Status] = [.pending, .scheduled, .accepted]
        #expect(Set(statuses).count == 3)
    }
}
