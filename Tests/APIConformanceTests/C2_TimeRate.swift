// C.2 SKTestSession.TimeRate, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

/// Names every rate: a rate added to or removed from `SKTestSession.TimeRate` breaks this `switch`.
private func name(_ rate: SKTestSession.TimeRate) -> String {
    switch rate {
    case .realTime: "realTime"
    case .oneHourIsOneDay: "oneHourIsOneDay"
    case .thirtyMinutesIsOneDay: "thirtyMinutesIsOneDay"
    case .fiveMinutesIsOneDay: "fiveMinutesIsOneDay"
    case .oneMinuteIsOneDay: "oneMinuteIsOneDay"
    case .thirtySecondsIsOneDay: "thirtySecondsIsOneDay"
    case .oneSecondIsOneDay: "oneSecondIsOneDay"
    case .monthlyRenewalEveryHour: "monthlyRenewalEveryHour"
    case .monthlyRenewalEveryThirtyMinutes: "monthlyRenewalEveryThirtyMinutes"
    case .monthlyRenewalEveryFifteenMinutes: "monthlyRenewalEveryFifteenMinutes"
    case .monthlyRenewalEveryFiveMinutes: "monthlyRenewalEveryFiveMinutes"
    case .monthlyRenewalEveryThirtySeconds: "monthlyRenewalEveryThirtySeconds"
    case .oneRenewalEveryFifteenMinutes: "oneRenewalEveryFifteenMinutes"
    case .oneRenewalEveryFiveMinutes: "oneRenewalEveryFiveMinutes"
    case .oneRenewalEveryMinute: "oneRenewalEveryMinute"
    case .oneRenewalEveryThirtySeconds: "oneRenewalEveryThirtySeconds"
    case .oneRenewalEveryTenSeconds: "oneRenewalEveryTenSeconds"
    case .oneRenewalEveryTwoSeconds: "oneRenewalEveryTwoSeconds"
    }
}

@Suite("C.2 SKTestSession.TimeRate has Apple's declarations")
struct TimeRateConformance {
    typealias TimeRate = SKTestSession.TimeRate

    @Test("C.2 SKTestSession.TimeRate: Int raw values from SKTestSession.h, every rate, Sendable")
    func rates() {
        // C.2 SKTestSession.TimeRate — enum: Int (NSInteger), Sendable
        requireRawValue(TimeRate.self, Int.self)
        requireSendable(TimeRate.self)
        let _: (Int) -> TimeRate? = TimeRate.init(rawValue:)
        #expect(name(.realTime) == "realTime")

        // C.2 SKTestSession.TimeRate.realTime = 0
        #expect(TimeRate.realTime.rawValue == 0, "C.2 SKTestSession.TimeRate.realTime = 0")
        // C.2 SKTestSession.TimeRate.oneHourIsOneDay = 1
        #expect(TimeRate.oneHourIsOneDay.rawValue == 1, "C.2 SKTestSession.TimeRate.oneHourIsOneDay = 1")
        // C.2 SKTestSession.TimeRate.thirtyMinutesIsOneDay = 2
        #expect(TimeRate.thirtyMinutesIsOneDay.rawValue == 2, "C.2 SKTestSession.TimeRate.thirtyMinutesIsOneDay = 2")
        // C.2 SKTestSession.TimeRate.fiveMinutesIsOneDay = 3
        #expect(TimeRate.fiveMinutesIsOneDay.rawValue == 3, "C.2 SKTestSession.TimeRate.fiveMinutesIsOneDay = 3")
        // C.2 SKTestSession.TimeRate.oneMinuteIsOneDay = 4
        #expect(TimeRate.oneMinuteIsOneDay.rawValue == 4, "C.2 SKTestSession.TimeRate.oneMinuteIsOneDay = 4")
        // C.2 SKTestSession.TimeRate.thirtySecondsIsOneDay = 5
        #expect(TimeRate.thirtySecondsIsOneDay.rawValue == 5, "C.2 SKTestSession.TimeRate.thirtySecondsIsOneDay = 5")
        // C.2 SKTestSession.TimeRate.oneSecondIsOneDay = 6
        #expect(TimeRate.oneSecondIsOneDay.rawValue == 6, "C.2 SKTestSession.TimeRate.oneSecondIsOneDay = 6")
        // C.2 SKTestSession.TimeRate.monthlyRenewalEveryHour = 10
        #expect(TimeRate.monthlyRenewalEveryHour.rawValue == 10, "C.2 SKTestSession.TimeRate.monthlyRenewalEveryHour = 10")
        // C.2 SKTestSession.TimeRate.monthlyRenewalEveryThirtyMinutes = 11
        #expect(TimeRate.monthlyRenewalEveryThirtyMinutes.rawValue == 11,
                "C.2 SKTestSession.TimeRate.monthlyRenewalEveryThirtyMinutes = 11")
        // C.2 SKTestSession.TimeRate.monthlyRenewalEveryFifteenMinutes = 12
        #expect(TimeRate.monthlyRenewalEveryFifteenMinutes.rawValue == 12,
                "C.2 SKTestSession.TimeRate.monthlyRenewalEveryFifteenMinutes = 12")
        // C.2 SKTestSession.TimeRate.monthlyRenewalEveryFiveMinutes = 13
        #expect(TimeRate.monthlyRenewalEveryFiveMinutes.rawValue == 13,
                "C.2 SKTestSession.TimeRate.monthlyRenewalEveryFiveMinutes = 13")
        // C.2 SKTestSession.TimeRate.monthlyRenewalEveryThirtySeconds = 15
        #expect(TimeRate.monthlyRenewalEveryThirtySeconds.rawValue == 15,
                "C.2 SKTestSession.TimeRate.monthlyRenewalEveryThirtySeconds = 15")
        // C.2 SKTestSession.TimeRate.oneRenewalEveryFifteenMinutes = 1000
        #expect(TimeRate.oneRenewalEveryFifteenMinutes.rawValue == 1000,
                "C.2 SKTestSession.TimeRate.oneRenewalEveryFifteenMinutes = 1000")
        // C.2 SKTestSession.TimeRate.oneRenewalEveryFiveMinutes = 1001
        #expect(TimeRate.oneRenewalEveryFiveMinutes.rawValue == 1001, "C.2 SKTestSession.TimeRate.oneRenewalEveryFiveMinutes = 1001")
        // C.2 SKTestSession.TimeRate.oneRenewalEveryMinute = 1002
        #expect(TimeRate.oneRenewalEveryMinute.rawValue == 1002, "C.2 SKTestSession.TimeRate.oneRenewalEveryMinute = 1002")
        // C.2 SKTestSession.TimeRate.oneRenewalEveryThirtySeconds = 1003
        #expect(TimeRate.oneRenewalEveryThirtySeconds.rawValue == 1003,
                "C.2 SKTestSession.TimeRate.oneRenewalEveryThirtySeconds = 1003")
        // C.2 SKTestSession.TimeRate.oneRenewalEveryTenSeconds = 1004
        #expect(TimeRate.oneRenewalEveryTenSeconds.rawValue == 1004, "C.2 SKTestSession.TimeRate.oneRenewalEveryTenSeconds = 1004")
        // C.2 SKTestSession.TimeRate.oneRenewalEveryTwoSeconds = 1005
        #expect(TimeRate.oneRenewalEveryTwoSeconds.rawValue == 1005, "C.2 SKTestSession.TimeRate.oneRenewalEveryTwoSeconds = 1005")
    }

    @Test("C.2 SKTestSession.TimeRate(rawValue:) rejects the raw values SKTestSession.h leaves unused",
          arguments: [7, 8, 9, 14, 16, 500, 999, 1006, -1])
    func unusedRawValues(_ raw: Int) {
        #expect(TimeRate(rawValue: raw) == nil, "C.2 SKTestSession.TimeRate has no rate \(raw)")
    }
}
