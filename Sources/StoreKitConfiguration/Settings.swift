public import Foundation

/// The test-environment defaults of a `.storekit` file (`settings`): storefront, locale, time rate and the
/// switches Xcode's Editor menu offers. `SKTestSession` can override each one at run time.
///
/// Every key is optional in the file; an absent key reads as its default (and stays absent when written).
public struct Settings: Sendable, Equatable {
    /// The fallback time rate for devices whose StoreKit test daemon predates `_timeRate` (`_compatibilityTimeRate`).
    public enum CompatibilityTimeRate: Sendable, Equatable {
        /// The integer form of 2022 files: one legacy rate.
        case rate(Int)
        /// The dictionary form of 2023+ files: legacy rate per device service capability version (`{"3": 6}`).
        case byServiceVersion([String: Int])
    }

    /// `_storefront`: the storefront as an ISO 3166-1 alpha-3 code (default `USA`); sets the currency.
    public var storefront: String
    /// `_locale`: the default locale (default `en_US`).
    public var locale: String
    /// `_timeRate`: the raw `SKTestSession.TimeRate` value (default 0, real time).
    public var timeRate: Int
    /// `_compatibilityTimeRate`: the time rate for older devices; kept for the round trip.
    public var compatibilityTimeRate: CompatibilityTimeRate?
    /// `_askToBuyEnabled`: purchases wait for a parent's approval.
    public var askToBuyEnabled: Bool
    /// `_billingIssuesEnabled`: Xcode's "Interrupted Purchases" — purchases hit an issue the customer must resolve.
    public var interruptedPurchasesEnabled: Bool
    /// `_renewalBillingIssuesEnabled`: renewals fail and enter billing retry.
    public var renewalBillingIssuesEnabled: Bool
    /// `_billingGracePeriodEnabled`: billing retry starts with a grace period.
    public var billingGracePeriodEnabled: Bool
    /// `_disableDialogs`: no StoreKit confirmation UI.
    public var disableDialogs: Bool
    /// `_failTransactionsEnabled`: the legacy "fail transactions" switch.
    public var failTransactionsEnabled: Bool
    /// `_storeKitError`: the legacy error code used with ``failTransactionsEnabled`` (files up to 2.0).
    public var legacyStoreKitError: Int?
    /// `_storeKitErrors`: per-API simulated errors (Xcode 15+), matched by name.
    public var storeKitErrors: [SimulatedErrorSetting]
    /// `_applicationInternalID`: in files synced with App Store Connect, the app's Apple ID.
    public var applicationInternalID: String?
    /// `_developerTeamID`: in synced files, the developer team.
    public var developerTeamID: String?
    /// `_lastSynchronizedDate`: in synced files, when Xcode last synced.
    public var lastSynchronizedDate: Date?
    /// `_shouldSetupSyncOnLoad`: a synced file created but not yet synced.
    public var shouldSetupSyncOnLoad: Bool
    /// Settings this library does not model, kept for the round trip.
    public var unknownKeys: [String: ConfigurationJSON]
    var layout = KeyLayout()

    /// Whether the file mirrors an App Store Connect app (Xcode shows it read-only).
    public var isSynced: Bool {
        applicationInternalID != nil || developerTeamID != nil || lastSynchronizedDate != nil || shouldSetupSyncOnLoad
    }

    /// The simulated-error entry for an API, matched by name (`"Purchase"`), as Xcode does.
    public func storeKitError(named name: String) -> SimulatedErrorSetting? {
        storeKitErrors.first { $0.name == name }
    }

    /// Creates settings; every parameter defaults to Xcode's default.
    public init(
        storefront: String = "USA", locale: String = "en_US", timeRate: Int = 0,
        compatibilityTimeRate: CompatibilityTimeRate? = nil, askToBuyEnabled: Bool = false,
        interruptedPurchasesEnabled: Bool = false, renewalBillingIssuesEnabled: Bool = false,
        billingGracePeriodEnabled: Bool = false, disableDialogs: Bool = false, failTransactionsEnabled: Bool = false,
        legacyStoreKitError: Int? = nil, storeKitErrors: [SimulatedErrorSetting] = [],
        applicationInternalID: String? = nil, developerTeamID: String? = nil, lastSynchronizedDate: Date? = nil,
        shouldSetupSyncOnLoad: Bool = false, unknownKeys: [String: ConfigurationJSON] = [:]
    ) {
        self.storefront = storefront
        self.locale = locale
        self.timeRate = timeRate
        self.compatibilityTimeRate = compatibilityTimeRate
        self.askToBuyEnabled = askToBuyEnabled
        self.interruptedPurchasesEnabled = interruptedPurchasesEnabled
        self.renewalBillingIssuesEnabled = renewalBillingIssuesEnabled
        self.billingGracePeriodEnabled = billingGracePeriodEnabled
        self.disableDialogs = disableDialogs
        self.failTransactionsEnabled = failTransactionsEnabled
        self.legacyStoreKitError = legacyStoreKitError
        self.storeKitErrors = storeKitErrors
        self.applicationInternalID = applicationInternalID
        self.developerTeamID = developerTeamID
        self.lastSynchronizedDate = lastSynchronizedDate
        self.shouldSetupSyncOnLoad = shouldSetupSyncOnLoad
        self.unknownKeys = unknownKeys
    }

    /// The `SKTestSession.TimeRate` raw values and their Swift case names.
    public static let timeRateNames: [Int: String] = [
        0: "realTime",
        1: "oneHourIsOneDay",
        2: "thirtyMinutesIsOneDay",
        3: "fiveMinutesIsOneDay",
        4: "oneMinuteIsOneDay",
        5: "thirtySecondsIsOneDay",
        6: "oneSecondIsOneDay",
        10: "monthlyRenewalEveryHour",
        11: "monthlyRenewalEveryThirtyMinutes",
        12: "monthlyRenewalEveryFifteenMinutes",
        13: "monthlyRenewalEveryFiveMinutes",
        15: "monthlyRenewalEveryThirtySeconds",
        1000: "oneRenewalEveryFifteenMinutes",
        1001: "oneRenewalEveryFiveMinutes",
        1002: "oneRenewalEveryMinute",
        1003: "oneRenewalEveryThirtySeconds",
        1004: "oneRenewalEveryTenSeconds",
        1005: "oneRenewalEveryTwoSeconds",
    ]
}
