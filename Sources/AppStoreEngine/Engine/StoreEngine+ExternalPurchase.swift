import AppStoreFormats
public import Foundation

/// A problem Apple's External Purchase Server API finds in a report ("Send External Purchase Report"): one entry of
/// `SendReportErrorResponse.errors`, with Apple's numeric code and message.
public struct ExternalPurchaseReportProblem: Sendable, Hashable, Codable {
    /// Apple's `errorCode` (1 `DuplicateValueError`, 3 `NotFoundError`, 4 `OmittedFieldError`, …).
    public var errorCode: Int
    /// Apple's `errorMessage`.
    public var errorMessage: String
    /// The field the problem is about (`fieldName`).
    public var fieldName: String
    /// The line item the problem is about, when it is about one (`lineItemId`).
    public var lineItemId: String?

    /// Describes a problem.
    public init(errorCode: Int, errorMessage: String, fieldName: String, lineItemId: String? = nil) {
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.fieldName = fieldName
        self.lineItemId = lineItemId
    }

    /// `DuplicateValueError` (1): the value was already submitted.
    public static func duplicateValue(_ field: String, lineItemId: String? = nil) -> Self {
        Self(errorCode: 1, errorMessage: "The field's value is already submitted and a duplicate value is not expected.", fieldName: field, lineItemId: lineItemId)
    }

    /// `NotFoundError` (3): the referenced value is unknown.
    public static func notFound(_ field: String, lineItemId: String? = nil) -> Self {
        Self(errorCode: 3, errorMessage: "The referenced value was not found.", fieldName: field, lineItemId: lineItemId)
    }

    /// `OmittedFieldError` (4): a required field is missing.
    public static func omittedField(_ field: String, lineItemId: String? = nil) -> Self {
        Self(errorCode: 4, errorMessage: "A required field is missing.", fieldName: field, lineItemId: lineItemId)
    }

    /// `LineItemStatusRegressionError` (8).
    public static let lineItemStatusRegression = Self(
        errorCode: 8, errorMessage: "Cannot mark status as NO_LINE_ITEM or UNRECOGNIZED_TOKEN after previously reporting as LINE_ITEM.",
        fieldName: "status"
    )

    /// `MissingLineItemsForStatusError` (9). Apple documents its meaning, not its message; this one says the same.
    public static let missingLineItemsForStatus = Self(
        errorCode: 9, errorMessage: "The external purchase ID has the status LINE_ITEM but is missing line items.", fieldName: "status"
    )

    /// `LineItemsNotAllowedForStatusError` (10).
    public static let lineItemsNotAllowedForStatus = Self(
        errorCode: 10, errorMessage: "A line item was provided for an external purchase ID that has a NO_LINE_ITEM or UNRECOGNIZED_TOKEN status.",
        fieldName: "status"
    )

    /// `LineItemCreationDateOutOfRangeError` (36): a custom link token's line item dated outside its active period.
    public static func lineItemCreationDateOutOfRange(lineItemId: String) -> Self {
        Self(
            errorCode: 36, errorMessage: "The line item's creation date is outside the active range of the token. Date must be in milliseconds.",
            fieldName: "creationDate", lineItemId: lineItemId
        )
    }

    /// `DuplicateTokenStatusNotAllowedError` (37). Apple documents its meaning, not its message; this one says the same.
    public static let duplicateTokenStatusNotAllowed = Self(
        errorCode: 37, errorMessage: "The DUPLICATE_TOKEN status is not allowed for the token's type.", fieldName: "status"
    )
}

/// A report as "Send External Purchase Report" receives it (`ExternalPurchaseReport`): the fields the store checks,
/// and the report's JSON object as sent, which "Retrieve External Purchase Report" answers.
public struct ExternalPurchaseReportSubmission: Sendable, Hashable {
    /// One line item: the fields the store checks.
    public struct LineItem: Sendable, Hashable {
        /// `lineItemId`.
        public var lineItemId: String?
        /// `creationDate`.
        public var creationDate: Date?
        /// `restatement`: whether the line item corrects one submitted before.
        public var restatement: Bool

        /// Describes a line item.
        public init(lineItemId: String?, creationDate: Date?, restatement: Bool = false) {
            self.lineItemId = lineItemId
            self.creationDate = creationDate
            self.restatement = restatement
        }
    }

    /// `requestIdentifier`.
    public var requestIdentifier: String?
    /// `externalPurchaseId`.
    public var externalPurchaseId: String?
    /// `status`: `LINE_ITEM`, `NO_LINE_ITEM`, `UNRECOGNIZED_TOKEN` or `DUPLICATE_TOKEN`.
    public var status: String?
    /// `lineItems`; `nil` when the report has none.
    public var lineItems: [LineItem]?
    /// The report's JSON object, as sent.
    public var body: String

    /// Describes a report.
    public init(requestIdentifier: String?, externalPurchaseId: String?, status: String?, lineItems: [LineItem]?, body: String) {
        self.requestIdentifier = requestIdentifier
        self.externalPurchaseId = externalPurchaseId
        self.status = status
        self.lineItems = lineItems
        self.body = body
    }

    /// The statuses Apple defines.
    public static let statuses: Set<String> = ["LINE_ITEM", "NO_LINE_ITEM", "UNRECOGNIZED_TOKEN", "DUPLICATE_TOKEN"]
}

extension StoreEngine {
    /// The active custom link token of a type for a customer's app, as `ExternalPurchaseCustomLink.token(for:)` answers:
    /// the active one, else a new one — always for `SERVICES`, for `ACQUISITION` only when the customer never had one
    /// (one active period per customer and app) — else `nil`.
    ///
    /// A new token is active for ``ExternalPurchaseTokenRecord/lifetime(in:)`` from now, starts with `SANDBOX_` outside
    /// Production, and the app's server hears `EXTERNAL_PURCHASE_TOKEN`/`CREATED`; later `ACTIVE_TOKEN_REMINDER` monthly
    /// while it is active, and `UNREPORTED` at its expiry when no report arrived — all on the store's clock.
    public func externalPurchaseCustomLinkToken(
        type: ExternalPurchaseTokenType, accountID: String, bundleID: String
    ) async throws(StoreError) -> ExternalPurchaseTokenRecord? {
        let environment = environment
        let token = try await perform { try $0.customLinkToken(type: type, accountID: accountID, bundleID: bundleID, environment: environment) }
        await noteExternalPurchaseTokenEvents()
        return token
    }

    /// Issues a token of the External Purchase APIs other than custom links (the notice sheet's
    /// `continuedWithExternalPurchaseToken`, `ExternalPurchaseLink`): a new one each call, with no type or expiry; the
    /// app's server hears `EXTERNAL_PURCHASE_TOKEN`/`UNREPORTED` 10 days later on the store's clock unless a report
    /// arrived.
    public func issueExternalPurchaseToken(accountID: String, bundleID: String) async throws(StoreError) -> ExternalPurchaseTokenRecord {
        let environment = environment
        let token = try await perform { try $0.issueToken(type: nil, accountID: accountID, bundleID: bundleID, environment: environment) }
        await noteExternalPurchaseTokenEvents()
        return token
    }

    /// The external purchase token with the `externalPurchaseId`, if the store issued it.
    public func externalPurchaseToken(id: String) async throws(StoreError) -> ExternalPurchaseTokenRecord? {
        try await read { try $0.externalPurchaseToken(id: id) }
    }

    /// The external purchase tokens the store issued to an account's app, oldest first.
    public func externalPurchaseTokens(accountID: String, bundleID: String) async throws(StoreError) -> [ExternalPurchaseTokenRecord] {
        try await read { try $0.externalPurchaseTokens(accountID: accountID, bundleID: bundleID) }
    }

    /// Checks a report sent to "Send External Purchase Report" with the key of `bundleID`'s app against the tokens the
    /// store issued, as Apple's server does, and keeps it when it passes: the token then owes no `UNREPORTED`, and one
    /// reported as `DUPLICATE_TOKEN` no more reminders.
    ///
    /// - Returns: the accepted report, or the problems Apple's server would list (`SendReportErrorResponse.errors`).
    public func submitExternalPurchaseReport(
        _ report: ExternalPurchaseReportSubmission, bundleID: String
    ) async throws(StoreError) -> Result<ExternalPurchaseReportRecord, ExternalPurchaseReportRejection> {
        let result = try await perform { try $0.submitReport(report, bundleID: bundleID) }
        await noteExternalPurchaseTokenEvents()
        return result
    }

    /// The report accepted with the request identifier for `bundleID`'s app, as "Retrieve External Purchase Report"
    /// answers; `nil` for none, or another app's.
    public func externalPurchaseReport(requestIdentifier: String, bundleID: String) async throws(StoreError) -> ExternalPurchaseReportRecord? {
        let record = try await read { try $0.externalPurchaseReport(requestIdentifier: requestIdentifier) }
        return record?.bundleID == bundleID ? record : nil
    }
}

/// Why the External Purchase Server API refuses a report: Apple's line-item validation errors.
public struct ExternalPurchaseReportRejection: Error, Sendable, Hashable {
    /// The problems, in the order found.
    public var problems: [ExternalPurchaseReportProblem]

    /// Describes a rejection.
    public init(problems: [ExternalPurchaseReportProblem]) {
        self.problems = problems
    }
}

extension StoreOperation {
    /// See ``StoreEngine/externalPurchaseCustomLinkToken(type:accountID:bundleID:)``.
    func customLinkToken(
        type: ExternalPurchaseTokenType, accountID: String, bundleID: String, environment: AppStoreEnvironment
    ) throws -> ExternalPurchaseTokenRecord? {
        let tokens = try storage.externalPurchaseTokens(accountID: accountID, bundleID: bundleID).filter { $0.tokenType == type }
        if let active = tokens.last(where: { $0.isActive(at: now) }) { return active }
        if type == .acquisition, !tokens.isEmpty { return nil }
        return try issueToken(type: type, accountID: accountID, bundleID: bundleID, environment: environment)
    }

    /// Writes a new token, and `CREATED` for a custom link token.
    func issueToken(
        type: ExternalPurchaseTokenType?, accountID: String, bundleID: String, environment: AppStoreEnvironment
    ) throws -> ExternalPurchaseTokenRecord {
        let uuid = UUID.random().uuidString.lowercased()
        let token = ExternalPurchaseTokenRecord(
            id: environment == .production ? uuid : "SANDBOX_\(uuid)", accountID: accountID, bundleID: bundleID,
            appAppleID: catalog.appAppleID ?? StoreDefaults.appAppleID(bundleID: bundleID), tokenType: type, creationDate: now,
            expirationDate: type == nil ? nil : now.addingTimeInterval(ExternalPurchaseTokenRecord.lifetime(in: environment))
        )
        try storage.write(.saveExternalPurchaseToken(token))
        if type != nil { try storage.write(.saveNotification(tokenNotification(.created, token, at: now))) }
        return token
    }

    /// An `EXTERNAL_PURCHASE_TOKEN` notification about `token` as it stands.
    func tokenNotification(_ subtype: Subtype, _ token: ExternalPurchaseTokenRecord, at date: Date) -> NotificationRecord {
        var notification = NotificationRecord(
            type: .externalPurchaseToken, subtype: subtype, date: date, accountID: token.accountID, bundleID: token.bundleID, transactionID: 0
        )
        notification.externalPurchaseToken = token
        return notification
    }

    /// Writes every external purchase token notification due by now, earliest first: `UNREPORTED` once when no report
    /// arrived in time, `ACTIVE_TOKEN_REMINDER` monthly while a custom link token is active.
    func applyDueExternalPurchaseTokenEvents() throws {
        while true {
            let due = try storage.externalPurchaseTokensDue(by: now, limit: Self.dueBatchSize)
            guard !due.isEmpty else { return }
            for var token in due {
                while let date = token.nextEventDate, date <= now {
                    if token.reportStatus == nil, !token.unreportedSent, token.unreportedDate == date {
                        token.unreportedSent = true
                        try storage.write(.saveNotification(tokenNotification(.unreported, token, at: date)))
                    } else {
                        token.remindersSent += 1
                        try storage.write(.saveNotification(tokenNotification(.activeTokenReminder, token, at: date)))
                    }
                }
                try storage.write(.saveExternalPurchaseToken(token))
            }
        }
    }

    /// See ``StoreEngine/submitExternalPurchaseReport(_:bundleID:)``.
    func submitReport(
        _ report: ExternalPurchaseReportSubmission, bundleID: String
    ) throws -> Result<ExternalPurchaseReportRecord, ExternalPurchaseReportRejection> {
        var problems: [ExternalPurchaseReportProblem] = []
        func reject(_ problem: ExternalPurchaseReportProblem) -> Result<ExternalPurchaseReportRecord, ExternalPurchaseReportRejection> {
            .failure(ExternalPurchaseReportRejection(problems: [problem]))
        }
        guard let requestIdentifier = report.requestIdentifier else { return reject(.omittedField("requestIdentifier")) }
        if try storage.externalPurchaseReport(requestIdentifier: requestIdentifier) != nil { return reject(.duplicateValue("requestIdentifier")) }
        guard let externalPurchaseId = report.externalPurchaseId else { return reject(.omittedField("externalPurchaseId")) }
        // Another app's token is as unknown to this app's key as one never issued.
        guard var token = try storage.externalPurchaseToken(id: externalPurchaseId), token.bundleID == bundleID else {
            return reject(.notFound("externalPurchaseId"))
        }
        guard let status = report.status else { return reject(.omittedField("status")) }
        let lineItems = report.lineItems ?? []
        switch status {
        case "LINE_ITEM":
            if lineItems.isEmpty { problems.append(.missingLineItemsForStatus) }
        default:
            if !lineItems.isEmpty { problems.append(.lineItemsNotAllowedForStatus) }
            if token.reportStatus == "LINE_ITEM", status != "DUPLICATE_TOKEN" { problems.append(.lineItemStatusRegression) }
            if status == "DUPLICATE_TOKEN", token.tokenType == nil { problems.append(.duplicateTokenStatusNotAllowed) }
        }
        var seen = Set<String>()
        for item in lineItems {
            guard let lineItemId = item.lineItemId else {
                problems.append(.omittedField("lineItemId"))
                continue
            }
            if !seen.insert(lineItemId).inserted { problems.append(.duplicateValue("lineItemId", lineItemId: lineItemId)) }
            guard let creationDate = item.creationDate else {
                problems.append(.omittedField("creationDate", lineItemId: lineItemId))
                continue
            }
            if let expirationDate = token.expirationDate, creationDate < token.creationDate || creationDate >= expirationDate {
                problems.append(.lineItemCreationDateOutOfRange(lineItemId: lineItemId))
            }
        }
        guard problems.isEmpty else { return .failure(ExternalPurchaseReportRejection(problems: problems)) }
        let record = ExternalPurchaseReportRecord(
            requestIdentifier: requestIdentifier, externalPurchaseId: externalPurchaseId, bundleID: bundleID, status: status,
            body: report.body, receivedDate: now
        )
        try storage.write(.saveExternalPurchaseReport(record))
        // A token reported with line items stays so; a later transactionless status cannot replace it (refused above).
        if token.reportStatus != "LINE_ITEM" { token.reportStatus = status }
        try storage.write(.saveExternalPurchaseToken(token))
        return .success(record)
    }
}
