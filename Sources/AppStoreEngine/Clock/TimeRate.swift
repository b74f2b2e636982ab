public import Foundation
public import StoreKitConfiguration

/// How fast subscription time runs in a test store: the raw values of Apple's `SKTestSession.TimeRate`.
///
/// A time rate does not speed up the clock; it shortens subscription periods, grace periods and billing
/// retry, exactly as StoreKit Testing in Xcode does. `realTime` uses calendar periods.
public enum TimeRate: Int, Sendable, Codable, CaseIterable {
    /// Real time: a month is a calendar month.
    case realTime = 0
    /// One hour stands for one day.
    case oneHourIsOneDay = 1
    /// Thirty minutes stand for one day.
    case thirtyMinutesIsOneDay = 2
    /// Five minutes stand for one day.
    case fiveMinutesIsOneDay = 3
    /// One minute stands for one day.
    case oneMinuteIsOneDay = 4
    /// Thirty seconds stand for one day.
    case thirtySecondsIsOneDay = 5
    /// One second stands for one day.
    case oneSecondIsOneDay = 6
    /// A monthly subscription renews every hour.
    case monthlyRenewalEveryHour = 10
    /// A monthly subscription renews every thirty minutes.
    case monthlyRenewalEveryThirtyMinutes = 11
    /// A monthly subscription renews every fifteen minutes.
    case monthlyRenewalEveryFifteenMinutes = 12
    /// A monthly subscription renews every five minutes.
    case monthlyRenewalEveryFiveMinutes = 13
    /// A monthly subscription renews every thirty seconds.
    case monthlyRenewalEveryThirtySeconds = 15
    /// Every subscription renews every fifteen minutes, whatever its period.
    case oneRenewalEveryFifteenMinutes = 1000
    /// Every subscription renews every five minutes.
    case oneRenewalEveryFiveMinutes = 1001
    /// Every subscription renews every minute.
    case oneRenewalEveryMinute = 1002
    /// Every subscription renews every thirty seconds.
    case oneRenewalEveryThirtySeconds = 1003
    /// Every subscription renews every ten seconds.
    case oneRenewalEveryTenSeconds = 1004
    /// Every subscription renews every two seconds, the fastest rate.
    case oneRenewalEveryTwoSeconds = 1005

    private static let day: TimeInterval = 86_400

    /// For the "X is one day" rates, how many real seconds stand for one day.
    private var secondsPerDay: TimeInterval? {
        switch self {
        case .oneHourIsOneDay: 3_600
        case .thirtyMinutesIsOneDay: 1_800
        case .fiveMinutesIsOneDay: 300
        case .oneMinuteIsOneDay: 60
        case .thirtySecondsIsOneDay: 30
        case .oneSecondIsOneDay: 1
        default: nil
        }
    }

    /// For the "monthly renewal every …" rates: (a week, a month) in real seconds.
    private var weekAndMonth: (week: TimeInterval, month: TimeInterval)? {
        switch self {
        case .monthlyRenewalEveryHour: (15 * 60, 3_600)
        case .monthlyRenewalEveryThirtyMinutes: (10 * 60, 30 * 60)
        case .monthlyRenewalEveryFifteenMinutes: (5 * 60, 15 * 60)
        case .monthlyRenewalEveryFiveMinutes: (3 * 60, 5 * 60)
        case .monthlyRenewalEveryThirtySeconds: (10, 30)
        default: nil
        }
    }

    /// For the "one renewal every …" rates: the fixed length of every period.
    private var fixedPeriod: TimeInterval? {
        switch self {
        case .oneRenewalEveryFifteenMinutes: 15 * 60
        case .oneRenewalEveryFiveMinutes: 5 * 60
        case .oneRenewalEveryMinute: 60
        case .oneRenewalEveryThirtySeconds: 30
        case .oneRenewalEveryTenSeconds: 10
        case .oneRenewalEveryTwoSeconds: 2
        default: nil
        }
    }

    /// The date a period of `length` that starts at `start` ends under this rate.
    public func endOfPeriod(_ length: SubscriptionPeriod, startingAt start: Date, calendar: Calendar = .gregorianUTC) -> Date {
        if let fixed = fixedPeriod { return start.addingTimeInterval(fixed) }
        if let (week, month) = weekAndMonth {
            let seconds: TimeInterval = switch length.unit {
            case .day: TimeInterval(length.value) * month / 30
            case .week: TimeInterval(length.value) * week
            case .month: TimeInterval(length.value) * month
            case .year: TimeInterval(length.value) * 12 * month
            }
            return start.addingTimeInterval(seconds)
        }
        if let secondsPerDay {
            return start.addingTimeInterval(Self.approximateDays(length) * secondsPerDay)
        }
        var components = DateComponents()
        switch length.unit {
        case .day: components.day = length.value
        case .week: components.day = 7 * length.value
        case .month: components.month = length.value
        case .year: components.year = length.value
        }
        return calendar.date(byAdding: components, to: start) ?? start.addingTimeInterval(Self.approximateDays(length) * Self.day)
    }

    /// A period's length in days, counting a month as 30 and a year as 365 days.
    private static func approximateDays(_ period: SubscriptionPeriod) -> Double {
        switch period.unit {
        case .day: Double(period.value)
        case .week: Double(7 * period.value)
        case .month: Double(30 * period.value)
        case .year: Double(365 * period.value)
        }
    }

    /// How long a billing grace period lasts for a subscription of the given period under this rate.
    public func gracePeriod(for period: SubscriptionPeriod) -> TimeInterval {
        let weekly = period.unit == .week || period.unit == .day
        switch self {
        case .realTime: return (weekly ? 6 : 16) * Self.day
        case .monthlyRenewalEveryHour: return weekly ? 12 * 60 + 51 : 30 * 60
        case .monthlyRenewalEveryThirtyMinutes: return weekly ? 8 * 60 + 34 : 15 * 60
        case .monthlyRenewalEveryFifteenMinutes: return weekly ? 4 * 60 + 17 : 7 * 60 + 30
        case .monthlyRenewalEveryFiveMinutes: return weekly ? 2 * 60 + 34 : 2 * 60 + 30
        case .monthlyRenewalEveryThirtySeconds: return weekly ? 9 : 15
        default:
            if let fixedPeriod { return fixedPeriod }
            return (weekly ? 6 : 16) * (secondsPerDay ?? Self.day)
        }
    }

    /// How long the App Store keeps retrying a failed renewal under this rate.
    public var billingRetryDuration: TimeInterval {
        switch self {
        case .realTime: 60 * Self.day
        case .monthlyRenewalEveryHour: 2 * 3_600
        case .monthlyRenewalEveryThirtyMinutes: 3_600
        case .monthlyRenewalEveryFifteenMinutes: 30 * 60
        case .monthlyRenewalEveryFiveMinutes: 10 * 60
        case .monthlyRenewalEveryThirtySeconds: 60
        default: fixedPeriod.map { 2 * $0 } ?? 60 * (secondsPerDay ?? Self.day)
        }
    }
}

extension Calendar {
    /// The Gregorian calendar in UTC, which App Store dates are computed in.
    public static let gregorianUTC: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
