public import AppStoreFormats
public import Foundation

/// The kind of an external purchase token: a custom link token's `tokenType`, or a token of the other External
/// Purchase APIs (the notice sheet, `ExternalPurchaseLink`), which carries none.
public enum ExternalPurchaseTokenType: String, Sendable, Hashable, Codable, CaseIterable {
    /// `ACQUISITION`: a custom link token for a new customer; one active period per customer and app, ever.
    case acquisition = "ACQUISITION"
    /// `SERVICES`: a custom link token for App Store services; a new one once the last expired.
    case services = "SERVICES"
}

/// One external purchase token the store issued to a customer's app, with what the App Store Server Notifications
/// still owe about it.
///
/// The store keeps one record per token (a row of the tenant's storage) and moves it forward on the store's clock, as
/// it does subscriptions: at ``nextEventDate`` it sends `EXTERNAL_PURCHASE_TOKEN` with subtype `UNREPORTED` when no
/// report arrived in Apple's window (10 days after creation; at expiry for a custom link token), or
/// `ACTIVE_TOKEN_REMINDER` once a month while a custom link token is active, unless it was reported as a duplicate.
public struct ExternalPurchaseTokenRecord: Sendable, Hashable, Codable, Identifiable {
    /// The token's `externalPurchaseId` (`SANDBOX_` and a UUID outside Production).
    public var id: String
    /// The customer's account.
    public var accountID: String
    /// The app the token is for.
    public var bundleID: String
    /// The app's Apple ID, as the token carries it.
    public var appAppleID: Int64
    /// A custom link token's type; `nil` for a token of the other External Purchase APIs.
    public var tokenType: ExternalPurchaseTokenType?
    /// When the store created the token, on its clock.
    public var creationDate: Date
    /// When a custom link token stops being active; `nil` for other tokens.
    public var expirationDate: Date?
    /// The `status` of the latest report the developer sent for the token (`LINE_ITEM`, `NO_LINE_ITEM`,
    /// `UNRECOGNIZED_TOKEN`, `DUPLICATE_TOKEN`); `nil` while none arrived.
    public var reportStatus: String?
    /// Whether the `UNREPORTED` notification was written.
    public var unreportedSent: Bool
    /// How many `ACTIVE_TOKEN_REMINDER` notifications were written.
    public var remindersSent: Int

    /// Describes a token just created, with nothing reported or sent yet.
    public init(
        id: String, accountID: String, bundleID: String, appAppleID: Int64, tokenType: ExternalPurchaseTokenType?,
        creationDate: Date, expirationDate: Date?
    ) {
        self.id = id
        self.accountID = accountID
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.tokenType = tokenType
        self.creationDate = creationDate
        self.expirationDate = expirationDate
        self.reportStatus = nil
        self.unreportedSent = false
        self.remindersSent = 0
    }

    /// How long after its creation an unreported token that never expires gets `UNREPORTED`: 10 days.
    public static let unreportedDelay: TimeInterval = 10 * 86_400

    /// How long a custom link token stays active: 1 hour in the sandbox (Apple's "Testing transactions that use custom
    /// link tokens"), a year in Production (Apple's `SERVICES` example runs 365 days).
    public static func lifetime(in environment: AppStoreEnvironment) -> TimeInterval {
        environment == .production ? 365 * 86_400 : 3_600
    }

    /// Whether the token is a custom link token that is active at `date`.
    public func isActive(at date: Date) -> Bool {
        guard let expirationDate else { return false }
        return creationDate <= date && date < expirationDate
    }

    /// When `UNREPORTED` is due while no report arrived: at a custom link token's expiry, else 10 days after creation.
    public var unreportedDate: Date {
        expirationDate ?? creationDate.addingTimeInterval(Self.unreportedDelay)
    }

    /// When the next `ACTIVE_TOKEN_REMINDER` is due: a month after creation, then monthly, while the custom link token
    /// is active and was not reported as a duplicate; `nil` when none is.
    public var nextReminderDate: Date? {
        guard tokenType != nil, let expirationDate, reportStatus != "DUPLICATE_TOKEN" else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let date = calendar.date(byAdding: .month, value: remindersSent + 1, to: creationDate), date < expirationDate else { return nil }
        return date
    }

    /// When the store next owes a notification about the token; `nil` when it owes none.
    public var nextEventDate: Date? {
        let unreported = reportStatus == nil && !unreportedSent ? unreportedDate : nil
        return [unreported, nextReminderDate].compactMap { $0 }.min()
    }

    /// The token as the app receives it and as notifications carry it.
    public var token: ExternalPurchaseToken {
        var token = ExternalPurchaseToken(externalPurchaseId: id, bundleId: bundleID)
        token.tokenCreationDate = creationDate
        token.appAppleId = appAppleID
        token.tokenType = tokenType?.rawValue
        token.tokenExpirationDate = expirationDate
        return token
    }
}

/// A report the developer sent to the External Purchase Server API ("Send External Purchase Report") and the store
/// accepted: what "Retrieve External Purchase Report" answers.
public struct ExternalPurchaseReportRecord: Sendable, Hashable, Codable {
    /// The report's `requestIdentifier` (a UUID, as the developer wrote it).
    public var requestIdentifier: String
    /// The token the report is about.
    public var externalPurchaseId: String
    /// The app whose key sent it.
    public var bundleID: String
    /// The report's `status`.
    public var status: String
    /// The report's JSON object, as accepted: what Retrieve answers as `report`.
    public var body: String
    /// When the store accepted it, on its clock.
    public var receivedDate: Date

    /// Describes an accepted report.
    public init(requestIdentifier: String, externalPurchaseId: String, bundleID: String, status: String, body: String, receivedDate: Date) {
        self.requestIdentifier = requestIdentifier
        self.externalPurchaseId = externalPurchaseId
        self.bundleID = bundleID
        self.status = status
        self.body = body
        self.receivedDate = receivedDate
    }
}
