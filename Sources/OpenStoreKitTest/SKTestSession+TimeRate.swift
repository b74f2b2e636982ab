import AppStoreEngine

extension SKTestSession {
    /// How fast subscription time runs in the session's store, with the cases and raw values of Apple's
    /// `SKTestSession.TimeRate` (`SKTestTimeRate`).
    ///
    /// A time rate does not speed up the clock; it shortens subscription periods, grace periods and billing retry,
    /// exactly as StoreKit Testing in Xcode does. A type of `OpenStoreKitTest` itself (not the store engine's
    /// `TimeRate` under another name), so that `session.timeRate = .oneRenewalEveryTenSeconds` compiles in a file that
    /// imports only `OpenStoreKitTest`, as with Apple's `StoreKitTest`, also where Swift's `MemberImportVisibility` is on.
    public enum TimeRate: Int, Sendable, Hashable, CaseIterable {
        /// Real time: a month is a calendar month.
        case realTime = 0
        /// One hour stands for one day. Deprecated by Apple in iOS 15.2.
        case oneHourIsOneDay = 1
        /// Thirty minutes stand for one day. Deprecated by Apple in iOS 15.2.
        case thirtyMinutesIsOneDay = 2
        /// Five minutes stand for one day. Deprecated by Apple in iOS 15.2.
        case fiveMinutesIsOneDay = 3
        /// One minute stands for one day. Deprecated by Apple in iOS 15.2 for `monthlyRenewalEveryThirtyMinutes`.
        case oneMinuteIsOneDay = 4
        /// Thirty seconds stand for one day. Deprecated by Apple in iOS 15.2 for `monthlyRenewalEveryFifteenMinutes`.
        case thirtySecondsIsOneDay = 5
        /// One second stands for one day. Deprecated by Apple in iOS 15.2 for `monthlyRenewalEveryThirtySeconds`.
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

        /// The store engine's rate with the same raw value.
        var engineRate: AppStoreEngine.TimeRate {
            switch self {
            case .realTime: .realTime
            case .oneHourIsOneDay: .oneHourIsOneDay
            case .thirtyMinutesIsOneDay: .thirtyMinutesIsOneDay
            case .fiveMinutesIsOneDay: .fiveMinutesIsOneDay
            case .oneMinuteIsOneDay: .oneMinuteIsOneDay
            case .thirtySecondsIsOneDay: .thirtySecondsIsOneDay
            case .oneSecondIsOneDay: .oneSecondIsOneDay
            case .monthlyRenewalEveryHour: .monthlyRenewalEveryHour
            case .monthlyRenewalEveryThirtyMinutes: .monthlyRenewalEveryThirtyMinutes
            case .monthlyRenewalEveryFifteenMinutes: .monthlyRenewalEveryFifteenMinutes
            case .monthlyRenewalEveryFiveMinutes: .monthlyRenewalEveryFiveMinutes
            case .monthlyRenewalEveryThirtySeconds: .monthlyRenewalEveryThirtySeconds
            case .oneRenewalEveryFifteenMinutes: .oneRenewalEveryFifteenMinutes
            case .oneRenewalEveryFiveMinutes: .oneRenewalEveryFiveMinutes
            case .oneRenewalEveryMinute: .oneRenewalEveryMinute
            case .oneRenewalEveryThirtySeconds: .oneRenewalEveryThirtySeconds
            case .oneRenewalEveryTenSeconds: .oneRenewalEveryTenSeconds
            case .oneRenewalEveryTwoSeconds: .oneRenewalEveryTwoSeconds
            }
        }

        /// The session's rate for the store engine's.
        init(_ rate: AppStoreEngine.TimeRate) {
            self = switch rate {
            case .realTime: .realTime
            case .oneHourIsOneDay: .oneHourIsOneDay
            case .thirtyMinutesIsOneDay: .thirtyMinutesIsOneDay
            case .fiveMinutesIsOneDay: .fiveMinutesIsOneDay
            case .oneMinuteIsOneDay: .oneMinuteIsOneDay
            case .thirtySecondsIsOneDay: .thirtySecondsIsOneDay
            case .oneSecondIsOneDay: .oneSecondIsOneDay
            case .monthlyRenewalEveryHour: .monthlyRenewalEveryHour
            case .monthlyRenewalEveryThirtyMinutes: .monthlyRenewalEveryThirtyMinutes
            case .monthlyRenewalEveryFifteenMinutes: .monthlyRenewalEveryFifteenMinutes
            case .monthlyRenewalEveryFiveMinutes: .monthlyRenewalEveryFiveMinutes
            case .monthlyRenewalEveryThirtySeconds: .monthlyRenewalEveryThirtySeconds
            case .oneRenewalEveryFifteenMinutes: .oneRenewalEveryFifteenMinutes
            case .oneRenewalEveryFiveMinutes: .oneRenewalEveryFiveMinutes
            case .oneRenewalEveryMinute: .oneRenewalEveryMinute
            case .oneRenewalEveryThirtySeconds: .oneRenewalEveryThirtySeconds
            case .oneRenewalEveryTenSeconds: .oneRenewalEveryTenSeconds
            case .oneRenewalEveryTwoSeconds: .oneRenewalEveryTwoSeconds
            }
        }
    }
}
