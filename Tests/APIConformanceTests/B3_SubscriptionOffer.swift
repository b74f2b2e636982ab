// B.3 Product.SubscriptionOffer and Product.SubscriptionPeriod, checked against api-surface.md: each declaration's
// check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// Names every case: a case added to or removed from `Product.SubscriptionPeriod.Unit` breaks this `switch`.
private func name(_ unit: Product.SubscriptionPeriod.Unit) -> String {
    switch unit {
    case .day: "day"
    case .week: "week"
    case .month: "month"
    case .year: "year"
    }
}

@Suite("B.3 Product.SubscriptionOffer and Product.SubscriptionPeriod have Apple's declarations")
struct SubscriptionOfferConformance {
    typealias Offer = Product.SubscriptionOffer

    @Test("B.3 Product.SubscriptionOffer: the offer, its type, payment mode and signature")
    func subscriptionOffer() {
        // B.3 Product.SubscriptionOffer — struct: Equatable, Hashable, Sendable
        requireHashable(Offer.self)
        requireSendable(Offer.self)
        // B.3 Product.SubscriptionOffer.id
        let _: KeyPath<Offer, String?> = \.id
        // B.3 Product.SubscriptionOffer.type
        let _: KeyPath<Offer, Offer.OfferType> = \.type
        // B.3 Product.SubscriptionOffer.price
        let _: KeyPath<Offer, Decimal> = \.price
        // B.3 Product.SubscriptionOffer.displayPrice
        let _: KeyPath<Offer, String> = \.displayPrice
        // B.3 Product.SubscriptionOffer.period
        let _: KeyPath<Offer, Product.SubscriptionPeriod> = \.period
        // B.3 Product.SubscriptionOffer.periodCount
        let _: KeyPath<Offer, Int> = \.periodCount
        // B.3 Product.SubscriptionOffer.paymentMode
        let _: KeyPath<Offer, Offer.PaymentMode> = \.paymentMode

        // B.3 Product.SubscriptionOffer.OfferType — RawRepresentable, Hashable, Sendable
        requireHashable(Offer.OfferType.self)
        requireSendable(Offer.OfferType.self)
        // B.3 Product.SubscriptionOffer.OfferType.introductory, .promotional, .winBack (iOS 18): three distinct types
        #expect(Set([Offer.OfferType.introductory, .promotional, .winBack]).count == 3)
        // B.3 Product.SubscriptionOffer.OfferType.localizedDescription
        let _: KeyPath<Offer.OfferType, String> = \.localizedDescription
        #expect(Offer.OfferType(rawValue: Offer.OfferType.winBack.rawValue) == .winBack, "init(rawValue:) round-trips")

        // B.3 Product.SubscriptionOffer.PaymentMode — RawRepresentable, Hashable, Sendable
        requireHashable(Offer.PaymentMode.self)
        requireSendable(Offer.PaymentMode.self)
        // B.3 Product.SubscriptionOffer.PaymentMode.freeTrial, .payAsYouGo, .payUpFront: three distinct modes
        #expect(Set([Offer.PaymentMode.freeTrial, .payAsYouGo, .payUpFront]).count == 3)
        // B.3 Product.SubscriptionOffer.PaymentMode.localizedDescription
        let _: KeyPath<Offer.PaymentMode, String> = \.localizedDescription

        // B.3 Product.SubscriptionOffer.Signature (iOS 17.4) — struct: Hashable, Sendable
        requireHashable(Offer.Signature.self)
        requireSendable(Offer.Signature.self)
        // B.3 Product.SubscriptionOffer.Signature.init(keyID:nonce:timestamp:signature:)
        let _: (String, UUID, Int, Data) -> Offer.Signature = Offer.Signature.init(keyID:nonce:timestamp:signature:)
        // B.3 Product.SubscriptionOffer.Signature.keyID, .nonce, .timestamp, .signature — settable
        let _: WritableKeyPath<Offer.Signature, String> = \.keyID
        let _: WritableKeyPath<Offer.Signature, UUID> = \.nonce
        let _: WritableKeyPath<Offer.Signature, Int> = \.timestamp
        let _: WritableKeyPath<Offer.Signature, Data> = \.signature
    }

    @Test("B.3 Product.SubscriptionPeriod: value, unit, date range, the named periods and formatting")
    func subscriptionPeriod() {
        typealias Period = Product.SubscriptionPeriod
        // B.3 Product.SubscriptionPeriod — struct: Equatable, Hashable, Sendable
        requireHashable(Period.self)
        requireSendable(Period.self)
        // B.3 Product.SubscriptionPeriod.value
        let _: KeyPath<Period, Int> = \.value
        // B.3 Product.SubscriptionPeriod.unit
        let _: KeyPath<Period, Period.Unit> = \.unit
        // B.3 Product.SubscriptionPeriod.Unit — enum: day, week, month, year
        requireHashable(Period.Unit.self)
        requireSendable(Period.Unit.self)
        #expect([Period.Unit.day, .week, .month, .year].map(name) == ["day", "week", "month", "year"])
        // B.3 Product.SubscriptionPeriod.Unit.localizedDescription
        let _: KeyPath<Period.Unit, String> = \.localizedDescription
        // B.3 Product.SubscriptionPeriod.dateRange(referenceDate:) — referenceDate defaults to now
        let _: (Period) -> (Date) -> Range<Date> = Period.dateRange(referenceDate:)
        let _: (Period) -> Range<Date> = { $0.dateRange() }

        // B.3 Product.SubscriptionPeriod.weekly, everyTwoWeeks, monthly, everyTwoMonths, everyThreeMonths,
        // everySixMonths, yearly, everyThreeDays (iOS 16.4)
        let named: [(Period, Int, Period.Unit)] = [
            (.weekly, 1, .week), (.everyTwoWeeks, 2, .week), (.monthly, 1, .month), (.everyTwoMonths, 2, .month),
            (.everyThreeMonths, 3, .month), (.everySixMonths, 6, .month), (.yearly, 1, .year), (.everyThreeDays, 3, .day),
        ]
        for (period, value, unit) in named {
            #expect(period.value == value && period.unit == unit, "\(value) \(name(unit))")
        }

        // B.3 Product.SubscriptionPeriod.formatted(_:referenceDate:) with a Duration style (iOS 16)
        let _: (Period) -> String = { $0.formatted(.units(allowed: [.days], width: .wide)) }
        let start = Date(timeIntervalSince1970: 0)
        #expect(Period.monthly.formatted(.units(allowed: [.days], width: .wide), referenceDate: start) == "31 days", "January")
        // B.3 Product.SubscriptionPeriod.Unit.FormatStyle (iOS 16) — FormatStyle, Codable, Hashable
        requireHashable(Period.Unit.FormatStyle.self)
        let _: any Codable.Type = Period.Unit.FormatStyle.self
        // B.3 Product.SubscriptionPeriod.Unit.FormatStyle.format(_:)
        let _: (Period.Unit.FormatStyle) -> (Period.Unit) -> String = Period.Unit.FormatStyle.format(_:)
        // B.3 Product.SubscriptionPeriod.Unit.formatted(_:) (iOS 16)
        let _: (Period.Unit, Period.Unit.FormatStyle) -> String = { $0.formatted($1) }
        #expect(Period.Unit.month.formatted(Period.Unit.FormatStyle()) == "month")
    }
}
