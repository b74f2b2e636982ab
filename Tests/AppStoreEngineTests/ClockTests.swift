import AppStoreEngine
import StoreKitConfiguration
import Foundation
import Synchronization
import Testing

/// Records when it fired; has events at fixed dates.
final class FixedSchedule: ScheduledEventSource {
    private let state: Mutex<(pending: [Date], fired: [(due: Date, clockNow: Date)])>
    let clock: VirtualClock

    init(clock: VirtualClock, dates: [Date]) {
        self.clock = clock
        state = Mutex((dates.sorted(), []))
    }

    var fired: [(due: Date, clockNow: Date)] { state.withLock { $0.fired } }

    func nextEventDate() async -> Date? { state.withLock { $0.pending.first } }

    func fireEvents(dueAt date: Date) async {
        let now = clock.now()
        state.withLock { state in
            while let first = state.pending.first, first <= date {
                state.pending.removeFirst()
                state.fired.append((first, now))
            }
        }
    }
}

@Suite("Clocks and time rates")
struct ClockTests {
    @Test("A virtual clock fires every due event in date order, at its date, then stops at the target")
    func virtualClockFiresInOrder() async throws {
        let clock = VirtualClock(start: testStart)
        let dates = [3_600.0, 60, 7_200].map { testStart.addingTimeInterval($0) }
        let schedule = FixedSchedule(clock: clock, dates: dates)
        clock.register(schedule)
        try await clock.advance(by: 3_600)
        #expect(schedule.fired.map(\.due) == [testStart.addingTimeInterval(60), testStart.addingTimeInterval(3_600)])
        #expect(schedule.fired.allSatisfy { $0.due == $0.clockNow })
        #expect(clock.now() == testStart.addingTimeInterval(3_600))
        try await clock.advance(to: testStart.addingTimeInterval(10_000))
        #expect(schedule.fired.count == 3)
        #expect(clock.now() == testStart.addingTimeInterval(10_000))
    }

    @Test("A virtual clock never goes back")
    func virtualClockIsForwardOnly() async throws {
        let clock = VirtualClock(start: testStart)
        await #expect(throws: StoreError.clockCannotGoBack) { try await clock.advance(by: -1) }
        #expect(clock.now() == testStart)
    }

    @Test("Time rates accept exactly Apple's raw values")
    func timeRateRawValues() {
        #expect(TimeRate(rawValue: 13) == .monthlyRenewalEveryFiveMinutes)
        #expect(TimeRate(rawValue: 1005) == .oneRenewalEveryTwoSeconds)
        for invalid in [7, 8, 9, 14, 16, 999, 1006] { #expect(TimeRate(rawValue: invalid) == nil) }
    }

    @Test("Time rates shorten subscription periods as StoreKit Testing does")
    func timeRatePeriods() {
        let month = SubscriptionPeriod(value: 1, unit: .month)
        let week = SubscriptionPeriod(value: 1, unit: .week)
        let year = SubscriptionPeriod(value: 1, unit: .year)
        func length(_ rate: TimeRate, _ period: SubscriptionPeriod) -> TimeInterval {
            rate.endOfPeriod(period, startingAt: testStart).timeIntervalSince(testStart)
        }
        #expect(length(.realTime, month) == 31 * 86_400) // January has 31 days
        #expect(length(.monthlyRenewalEveryHour, week) == 15 * 60)
        #expect(length(.monthlyRenewalEveryHour, year) == 12 * 3_600)
        #expect(length(.monthlyRenewalEveryFiveMinutes, month) == 5 * 60)
        #expect(length(.oneRenewalEveryTenSeconds, year) == 10)
        #expect(length(.oneSecondIsOneDay, week) == 7)
        #expect(TimeRate.oneRenewalEveryMinute.billingRetryDuration == 120)
        #expect(TimeRate.realTime.gracePeriod(for: week) == 6 * 86_400)
    }
}
