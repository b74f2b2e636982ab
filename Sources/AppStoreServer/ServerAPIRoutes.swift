import AppStoreEngine
import AppStoreFormats
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// An App Store Server API error, as Apple answers it: an HTTP status and `{"errorCode", "errorMessage"}`.
struct ServerAPIError: Error {
    let status: HTTPResponse.Status
    let errorCode: Int
    let errorMessage: String

    static let invalidTransactionID = ServerAPIError(status: .badRequest, errorCode: 4_000_006, errorMessage: "Invalid transaction id.")
    static let invalidStatus = ServerAPIError(status: .badRequest, errorCode: 4_000_031, errorMessage: "Invalid request status.")
    static let transactionIDNotFound = ServerAPIError(status: .notFound, errorCode: 4_040_010, errorMessage: "Transaction id not found.")
    static let invalidRevision = ServerAPIError(status: .badRequest, errorCode: 4_000_005, errorMessage: "Invalid request revision.")
    static let startDateAfterEndDate = ServerAPIError(status: .badRequest, errorCode: 4_000_013, errorMessage: "Invalid request. The end date precedes the start date or the dates are the same.")
    static let invalidPaginationToken = ServerAPIError(status: .badRequest, errorCode: 4_000_014, errorMessage: "Invalid request. The pagination token is invalid.")
    static let invalidStartDate = ServerAPIError(status: .badRequest, errorCode: 4_000_015, errorMessage: "Invalid request. The start date is not a timestamp value in milliseconds.")
    static let invalidEndDate = ServerAPIError(status: .badRequest, errorCode: 4_000_016, errorMessage: "Invalid request. The end date is not a timestamp value in milliseconds.")
    static let invalidNotificationType = ServerAPIError(status: .badRequest, errorCode: 4_000_018, errorMessage: "Invalid request. The notification type or subtype is invalid.")
    static let multipleFilters = ServerAPIError(status: .badRequest, errorCode: 4_000_019, errorMessage: "Invalid request. The request can only contain one of notificationType or transactionId.")
    static let invalidSort = ServerAPIError(status: .badRequest, errorCode: 4_000_021, errorMessage: "Invalid request. The sort parameter is invalid.")
    static let invalidProductType = ServerAPIError(status: .badRequest, errorCode: 4_000_022, errorMessage: "Invalid request. The product type parameter is invalid.")
    static let invalidOwnershipType = ServerAPIError(status: .badRequest, errorCode: 4_000_026, errorMessage: "Invalid request. The in-app ownership type parameter is invalid.")
    static let invalidRevoked = ServerAPIError(status: .badRequest, errorCode: 4_000_030, errorMessage: "Invalid request. The revoked parameter is invalid.")
    static let generalInternalRetryable = ServerAPIError(status: .internalServerError, errorCode: 5_000_001, errorMessage: "An unknown error occurred. Please try again.")
    static let generalBadRequest = ServerAPIError(status: .badRequest, errorCode: 4_000_000, errorMessage: "Bad request.")
    static let invalidProductID = ServerAPIError(status: .badRequest, errorCode: 4_000_023, errorMessage: "Invalid request. The product id parameter is invalid.")
    static let invalidStorefrontCountryCode = ServerAPIError(status: .badRequest, errorCode: 4_000_028, errorMessage: "Invalid request. A storefront country code was invalid.")
    static let invalidCustomerConsented = ServerAPIError(status: .badRequest, errorCode: 4_000_035, errorMessage: "Invalid request. The customer consented field is invalid.")
    static let invalidConsumptionField = ServerAPIError(status: .badRequest, errorCode: 4_000_000, errorMessage: "Invalid request. A consumption field is missing or out of range.")
    static let statusRequestNotFound = ServerAPIError(status: .notFound, errorCode: 4_040_009, errorMessage: "The server didn't find a subscription-renewal-date extension request for this requestIdentifier and productId combination.")
    static let invalidTestNotificationToken = ServerAPIError(status: .badRequest, errorCode: 4_000_020, errorMessage: "Invalid request. The test notification token is invalid.")
    static let serverNotificationURLNotFound = ServerAPIError(status: .notFound, errorCode: 4_040_007, errorMessage: "No App Store Server Notification URL found for provided app. Check that a URL is configured in App Store Connect for this environment.")
    static let testNotificationNotFound = ServerAPIError(status: .notFound, errorCode: 4_040_008, errorMessage: "Either the test notification token is expired or the notification and status are not yet available.")
    static let invalidOriginalTransactionID = ServerAPIError(status: .badRequest, errorCode: 4_000_008, errorMessage: "Invalid original transaction id.")
    static let invalidExtendByDays = ServerAPIError(status: .badRequest, errorCode: 4_000_009, errorMessage: "Invalid extend by days value.")
    static let invalidExtendReasonCode = ServerAPIError(status: .badRequest, errorCode: 4_000_010, errorMessage: "Invalid extend reason code.")
    static let invalidRequestIdentifier = ServerAPIError(status: .badRequest, errorCode: 4_000_011, errorMessage: "Invalid request identifier.")
    static let invalidAppAccountToken = ServerAPIError(status: .badRequest, errorCode: 4_000_183, errorMessage: "Invalid request. The app account token field must be a valid UUID.")
    static let appTransactionIDNotSupported = ServerAPIError(status: .badRequest, errorCode: 4_000_048, errorMessage: "Invalid request. App transactions aren't supported by this endpoint.")
    static let familyTransactionNotSupported = ServerAPIError(status: .badRequest, errorCode: 4_000_185, errorMessage: "Invalid request. Family Sharing transactions aren't supported by this endpoint.")
    static let notOriginalTransactionID = ServerAPIError(status: .badRequest, errorCode: 4_000_187, errorMessage: "Invalid request. The transaction ID provided is not an original transaction ID.")
    static let subscriptionExtensionIneligible = ServerAPIError(status: .forbidden, errorCode: 4_030_004, errorMessage: "Forbidden - subscription state ineligible for extension.")
    static let subscriptionMaxExtension = ServerAPIError(status: .forbidden, errorCode: 4_030_005, errorMessage: "Forbidden - subscription has reached maximum extension count.")
    static let familySharedSubscriptionExtensionIneligible = ServerAPIError(status: .forbidden, errorCode: 4_030_007, errorMessage: "Forbidden - Subscriptions that users access through Family Sharing aren't eligible for renewal date extensions.")
}

/// The body of `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}`.
struct ExtendRenewalDateRequest: Decodable {
    var extendByDays: Int?
    var extendReasonCode: Int?
    var requestIdentifier: String?
}

/// `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}`.
struct ExtendRenewalDateResponse: Encodable {
    var originalTransactionId: String
    var webOrderLineItemId: String
    var success: Bool
    var effectiveDate: Int64
}

/// The body of `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`.
struct UpdateAppAccountTokenRequest: Decodable {
    var appAccountToken: String?
}

/// `POST /inApps/v1/notifications/test`.
struct SendTestNotificationResponse: Encodable {
    var testNotificationToken: String
}

/// `GET /inApps/v1/notifications/test/{testNotificationToken}`.
struct CheckTestNotificationResponse: Encodable {
    var signedPayload: String
    var sendAttempts: [NotificationHistoryResponse.Attempt]
}

/// The body of `POST /inApps/v1/subscriptions/extend/mass`.
struct MassExtendRenewalDateRequest: Decodable {
    var extendByDays: Int?
    var extendReasonCode: Int?
    var requestIdentifier: String?
    var storefrontCountryCodes: [String]?
    var productId: String?
}

/// `POST /inApps/v1/subscriptions/extend/mass`.
struct MassExtendRenewalDateResponse: Encodable {
    var requestIdentifier: String
}

/// `GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`.
struct MassExtendRenewalDateStatusResponse: Encodable {
    var requestIdentifier: String
    var complete: Bool
    var completeDate: Int64?
    var succeededCount: Int
    var failedCount: Int
}

/// `GET /inApps/v1/transactions/appTransactions/{transactionId}`.
struct AppTransactionInfoResponse: Encodable {
    var signedAppTransactionInfo: String
}

/// The body of `PUT /inApps/v1/transactions/consumption/{transactionId}` (version 1, deprecated by Apple).
struct ConsumptionRequestV1: Codable {
    var customerConsented: Bool?
    var consumptionStatus: Int?
    var platform: Int?
    var sampleContentProvided: Bool?
    var deliveryStatus: Int?
    var appAccountToken: String?
    var accountTenure: Int?
    var playTime: Int?
    var lifetimeDollarsRefunded: Int?
    var lifetimeDollarsPurchased: Int?
    var userStatus: Int?
    var refundPreference: Int?
}

/// The body of `PUT /inApps/v2/transactions/consumption/{transactionId}`.
struct ConsumptionRequestV2: Codable {
    var customerConsented: Bool?
    var sampleContentProvided: Bool?
    var deliveryStatus: String?
    var consumptionPercentage: Int?
    var refundPreference: String?
}

/// `GET /inApps/v1/lookup/{orderId}`: `status` 0 with the order's transactions, or 1 for an order the app does not have.
struct OrderLookupResponse: Encodable {
    var status: Int
    var signedTransactions: [String]
}

/// An empty JSON object, for endpoints that answer only with a status.
struct EmptyResponse: Encodable {}

/// `GET /inApps/{v1,v2}/history/{transactionId}`.
struct HistoryResponse: Encodable {
    var revision: String
    var hasMore: Bool
    var bundleId: String
    var appAppleId: Int64
    var environment: String
    var signedTransactions: [String]
}

/// `GET /inApps/v2/refund/lookup/{transactionId}`.
struct RefundHistoryResponse: Encodable {
    var signedTransactions: [String]
    var revision: String
    var hasMore: Bool
}

/// The body of `POST /inApps/v1/notifications/history`.
struct NotificationHistoryRequest: Decodable {
    var startDate: Int64?
    var endDate: Int64?
    var notificationType: String?
    var notificationSubtype: String?
    var transactionId: String?
    var onlyFailures: Bool?
}

/// `POST /inApps/v1/notifications/history`.
struct NotificationHistoryResponse: Encodable {
    struct Item: Encodable {
        var signedPayload: String
        var sendAttempts: [Attempt]
    }

    struct Attempt: Encodable {
        var attemptDate: Int64
        var sendAttemptResult: String

        init(_ attempt: NotificationDelivery.Attempt) {
            attemptDate = Int64((attempt.date.timeIntervalSince1970 * 1000).rounded())
            sendAttemptResult = attempt.result
        }
    }

    var paginationToken: String
    var hasMore: Bool
    var notificationHistory: [Item]
}

/// A page of a list, and the token that asks for the next one: the offset of its first item, opaque to clients.
struct Page<Element> {
    static var size: Int { 20 }

    let items: [Element]
    let token: String
    let hasMore: Bool

    /// The page of `all` that `token` (from an earlier page, or none for the first) starts.
    init(_ all: [Element], after token: String?, invalid: ServerAPIError) throws {
        var offset = 0
        if let token, !token.isEmpty {
            guard let data = Data(base64Encoded: token), let text = String(data: data, encoding: .utf8),
                  text.hasPrefix("offset:"), let value = Int(text.dropFirst("offset:".count)), (0...all.count).contains(value)
            else { throw invalid }
            offset = value
        }
        let end = min(offset + Self.size, all.count)
        items = Array(all[offset..<end])
        self.token = Data("offset:\(end)".utf8).base64EncodedString()
        hasMore = end < all.count
    }
}

/// `GET /inApps/v1/transactions/{transactionId}`.
struct TransactionInfoResponse: Encodable {
    var signedTransactionInfo: String
}

/// `GET /inApps/v1/subscriptions/{transactionId}`.
struct StatusResponse: Encodable {
    struct Group: Encodable {
        var subscriptionGroupIdentifier: String
        var lastTransactions: [LastTransaction]
    }

    struct LastTransaction: Encodable {
        var status: Int32
        var originalTransactionId: String
        var signedTransactionInfo: String
        var signedRenewalInfo: String
    }

    var environment: String
    var bundleId: String
    var appAppleId: Int64
    var data: [Group]
}

/// The App Store Server API routes: authenticated with the store's API keys, answered from its engine.
struct ServerAPIRoutes {
    let engine: StoreEngine
    let authenticator: ServerAPIAuthenticator
    let notificationSender: NotificationSender?
    let logger: Logger

    func add(to router: Router<StoreRequestContext>) {
        let api = router.group("inApps")
        for version in [1, 2] {
            api.get("v\(version)/history/:transactionId") { request, context in
                try await respond(to: request) { bundleID in
                    try await history(request, accountID: customer(context.parameters.get("transactionId"), bundleID: bundleID), bundleID: bundleID, version: version)
                }
            }
        }
        api.get("v2/refund/lookup/:transactionId") { request, context in
            try await respond(to: request) { bundleID in
                let accountID = try await customer(context.parameters.get("transactionId"), bundleID: bundleID)
                let refunded = try await customerTransactions(accountID: accountID, bundleID: bundleID).filter(\.isRevoked)
                let page = try Page(refunded, after: request.uri.queryParameters["revision"].map(String.init), invalid: .invalidRevision)
                var signed: [String] = []
                for record in page.items { signed.append(try engine.signedTransaction(record)) }
                return RefundHistoryResponse(signedTransactions: signed, revision: page.token, hasMore: page.hasMore)
            }
        }
        api.put("v1/subscriptions/extend/:originalTransactionId") { request, context in
            let body = try? await request.decode(as: ExtendRenewalDateRequest.self, context: context)
            return try await respond(to: request) { bundleID in
                try await extendRenewalDate(context.parameters.get("originalTransactionId"), body, bundleID: bundleID)
            }
        }
        // Hummingbird wants one parameter name per path position: this is the original transaction's identifier.
        api.put("v1/transactions/:transactionId/appAccountToken") { request, context in
            let body = try? await request.decode(as: UpdateAppAccountTokenRequest.self, context: context)
            return try await respond(to: request) { bundleID in
                let record = try await transaction(context.parameters.get("transactionId"), bundleID: bundleID)
                guard let text = body?.appAccountToken, let token = UUID(uuidString: text) else { throw ServerAPIError.invalidAppAccountToken }
                guard record.origin != .familyShare else { throw ServerAPIError.familyTransactionNotSupported }
                guard record.id == record.originalID else { throw ServerAPIError.notOriginalTransactionID }
                try await engine.setAppAccountToken(token, originalTransactionID: record.id)
                return EmptyResponse()
            }
        }
        api.post("v1/subscriptions/extend/mass") { request, context in
            let body = try? await request.decode(as: MassExtendRenewalDateRequest.self, context: context)
            return try await respond(to: request) { bundleID in
                guard let days = body?.extendByDays, (1...90).contains(days) else { throw ServerAPIError.invalidExtendByDays }
                guard let reason = body?.extendReasonCode, (0...3).contains(reason) else { throw ServerAPIError.invalidExtendReasonCode }
                guard let requestIdentifier = body?.requestIdentifier, !requestIdentifier.isEmpty, requestIdentifier.count <= 128 else {
                    throw ServerAPIError.invalidRequestIdentifier
                }
                guard let productID = body?.productId, try await engine.currentCatalog().product(productID)?.subscription != nil else {
                    throw ServerAPIError.invalidProductID
                }
                var storefronts = Set<String>()
                for code in body?.storefrontCountryCodes ?? [] {
                    guard Storefront.named(code) != nil else { throw ServerAPIError.invalidStorefrontCountryCode }
                    storefronts.insert(code)
                }
                // The request and its outcome are rows of the tenant's storage: its status answers on every server.
                _ = try await engine.massExtendRenewalDates(
                    requestIdentifier: requestIdentifier, productID: productID, bundleID: bundleID, byDays: days, reasonCode: reason,
                    storefronts: storefronts
                )
                return MassExtendRenewalDateResponse(requestIdentifier: requestIdentifier)
            }
        }
        api.get("v1/subscriptions/extend/mass/:productId/:requestIdentifier") { request, context in
            try await respond(to: request) { bundleID in
                guard let record = try await engine.massExtension(
                    productID: try context.parameters.require("productId"), requestIdentifier: try context.parameters.require("requestIdentifier")
                ), record.bundleID == bundleID else { throw ServerAPIError.statusRequestNotFound }
                return MassExtendRenewalDateStatusResponse(
                    requestIdentifier: record.requestIdentifier, complete: record.complete,
                    completeDate: record.completeDate.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) },
                    succeededCount: record.succeededCount, failedCount: record.failedCount
                )
            }
        }
        api.get("v1/transactions/appTransactions/:transactionId") { request, context in
            try await respond(to: request) { bundleID in
                let accountID = try await customer(context.parameters.get("transactionId"), bundleID: bundleID)
                return AppTransactionInfoResponse(signedAppTransactionInfo: try await engine.signedAppTransaction(accountID: accountID, bundleID: bundleID))
            }
        }
        api.post("v1/transactions/:transactionId/finish") { request, context in
            try await respond(to: request) { bundleID in
                let record = try await transaction(context.parameters.get("transactionId"), bundleID: bundleID)
                try await engine.finishEverywhere(transactionID: record.id)
                return EmptyResponse()
            }
        }
        api.get("v1/lookup/:orderId") { request, context in
            try await respond(to: request) { bundleID in
                let orderID = context.parameters.get("orderId") ?? ""
                guard let id = TransactionRecord.transactionID(orderID: orderID), let record = try? await engine.transaction(id),
                      record.bundleID == bundleID, record.state.isCompleted
                else { return OrderLookupResponse(status: 1, signedTransactions: []) }
                return OrderLookupResponse(status: 0, signedTransactions: [try engine.signedTransaction(record)])
            }
        }
        api.put("v1/transactions/consumption/:transactionId") { request, context in
            let body = try? await request.decode(as: ConsumptionRequestV1.self, context: context)
            return try await respond(to: request, status: .accepted) { bundleID in
                let record = try await transaction(context.parameters.get("transactionId"), bundleID: bundleID)
                guard let body, body.customerConsented == true else { throw ServerAPIError.invalidCustomerConsented }
                let ranges: [(Int?, ClosedRange<Int>)] = [
                    (body.consumptionStatus, 0...3), (body.platform, 0...2), (body.deliveryStatus, 0...5), (body.accountTenure, 0...7),
                    (body.playTime, 0...7), (body.lifetimeDollarsRefunded, 0...7), (body.lifetimeDollarsPurchased, 0...7),
                    (body.userStatus, 0...4), (body.refundPreference, 0...3),
                ]
                guard body.sampleContentProvided != nil, ranges.allSatisfy({ value, range in value.map(range.contains) ?? true }) else {
                    throw ServerAPIError.invalidConsumptionField
                }
                try await keepConsumption(body, version: 1, for: record)
                return EmptyResponse()
            }
        }
        api.put("v2/transactions/consumption/:transactionId") { request, context in
            let body = try? await request.decode(as: ConsumptionRequestV2.self, context: context)
            return try await respond(to: request, status: .accepted) { bundleID in
                let record = try await transaction(context.parameters.get("transactionId"), bundleID: bundleID)
                guard let body, body.customerConsented == true else { throw ServerAPIError.invalidCustomerConsented }
                let deliveryStatuses: Set<String> = [
                    "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER",
                ]
                guard body.sampleContentProvided != nil, body.deliveryStatus.map(deliveryStatuses.contains) ?? false,
                      body.consumptionPercentage.map({ (0...100_000).contains($0) }) ?? true,
                      body.refundPreference.map({ ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"].contains($0) }) ?? true
                else { throw ServerAPIError.invalidConsumptionField }
                try await keepConsumption(body, version: 2, for: record)
                return EmptyResponse()
            }
        }
        api.post("v1/notifications/test") { request, _ in
            try await respond(to: request) { bundleID in
                guard let test = await notificationSender?.sendTestNotification(bundleID: bundleID) else {
                    throw ServerAPIError.serverNotificationURLNotFound
                }
                return SendTestNotificationResponse(testNotificationToken: test.token)
            }
        }
        api.get("v1/notifications/test/:token") { request, context in
            try await respond(to: request) { _ in
                let token = try context.parameters.require("token")
                guard token.contains("_") else { throw ServerAPIError.invalidTestNotificationToken }
                guard let test = await notificationSender?.testNotification(token: token) else { throw ServerAPIError.testNotificationNotFound }
                return CheckTestNotificationResponse(
                    signedPayload: test.signedPayload,
                    sendAttempts: test.attempts.map(NotificationHistoryResponse.Attempt.init)
                )
            }
        }
        api.post("v1/notifications/history") { request, context in
            let body = try? await request.decode(as: NotificationHistoryRequest.self, context: context)
            return try await respond(to: request) { bundleID in
                guard let body else { throw ServerAPIError.generalBadRequest }
                return try await notificationHistory(body, token: request.uri.queryParameters["paginationToken"].map(String.init), bundleID: bundleID)
            }
        }
        api.get("v1/transactions/:transactionId") { request, context in
            try await respond(to: request) { bundleID in
                let text = context.parameters.get("transactionId")
                let record: TransactionRecord
                do {
                    record = try await transaction(text, bundleID: bundleID)
                } catch let error as ServerAPIError where error.errorCode == ServerAPIError.transactionIDNotFound.errorCode {
                    // Apple refuses an app transaction's identifier here with 4000048, not 4040010.
                    guard let text, try await engine.account(appTransactionID: text, bundleID: bundleID) != nil else { throw error }
                    throw ServerAPIError.appTransactionIDNotSupported
                }
                return try TransactionInfoResponse(signedTransactionInfo: engine.signedTransaction(record))
            }
        }
        api.get("v1/subscriptions/:transactionId") { request, context in
            try await respond(to: request) { bundleID in
                let accountID = try await customer(context.parameters.get("transactionId"), bundleID: bundleID)
                var statuses: Set<Int32>?
                for text in request.uri.queryParameters.getAll("status") {
                    guard let status = Int32(text), (1...5).contains(status) else { throw ServerAPIError.invalidStatus }
                    statuses = (statuses ?? []).union([status])
                }
                return try await subscriptionStatuses(accountID: accountID, bundleID: bundleID, statuses: statuses)
            }
        }
    }

    /// Authenticates the request, runs `body` for the token's app, and answers its value as JSON, or Apple's error.
    private func respond(
        to request: Request, status: HTTPResponse.Status = .ok, _ body: (String) async throws -> some Encodable
    ) async throws -> Response {
        try await ServerAPIResponder(authenticator: authenticator, logger: logger).respond(to: request, status: status, body)
    }

    /// The transaction with the identifier in the path, if it is the app's. A transaction of another app is refused as
    /// Apple refuses it, with 401: the token is not good for it.
    /// Keeps validated consumption information with the transaction's pending refund request, where the control API
    /// and the transaction manager show it; information for a transaction without one is accepted and not kept.
    private func keepConsumption(_ body: some Encodable, version: Int, for record: TransactionRecord) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let fields = String(decoding: try encoder.encode(body), as: UTF8.self)
        let kept = try await engine.recordConsumptionInformation(transactionID: record.id, version: version, fields: fields)
        logger.info("consumption information v\(version) for transaction \(record.id)\(kept ? "" : " (no pending refund request: not kept)")")
    }

    private func transaction(_ text: String?, bundleID: String) async throws -> TransactionRecord {
        guard let text, let id = UInt64(text) else { throw ServerAPIError.invalidTransactionID }
        guard let record = try? await engine.transaction(id), record.state.isCompleted else {
            throw ServerAPIError.transactionIDNotFound
        }
        guard record.bundleID == bundleID else {
            throw ServerAPIResponder.TokenNotForApp(reason: "The token's bid \(bundleID) is not the app of transaction \(id) (\(record.bundleID)); sign the token with that app's bundle ID.")
        }
        return record
    }

    /// The customer a path's `{transactionId}` names, for the endpoints that take "any transactionId,
    /// originalTransactionId or appTransactionId that belongs to the customer for your app": the account of the
    /// transaction with the identifier (refused as ``transaction(_:bundleID:)`` refuses it), or else the account whose
    /// app transaction for the token's app has it as `appTransactionId`.
    private func customer(_ text: String?, bundleID: String) async throws -> String {
        do {
            return try await transaction(text, bundleID: bundleID).accountID
        } catch let error as ServerAPIError where error.errorCode == ServerAPIError.transactionIDNotFound.errorCode {
            guard let text, let accountID = try await engine.account(appTransactionID: text, bundleID: bundleID) else { throw error }
            return accountID
        }
    }

    /// Extends a subscription's renewal date, checking the request as Apple does.
    private func extendRenewalDate(_ text: String?, _ body: ExtendRenewalDateRequest?, bundleID: String) async throws -> ExtendRenewalDateResponse {
        guard let text, let id = UInt64(text) else { throw ServerAPIError.invalidOriginalTransactionID }
        guard let days = body?.extendByDays, (1...90).contains(days) else { throw ServerAPIError.invalidExtendByDays }
        guard let reason = body?.extendReasonCode, (0...3).contains(reason) else { throw ServerAPIError.invalidExtendReasonCode }
        guard let requestIdentifier = body?.requestIdentifier, !requestIdentifier.isEmpty, requestIdentifier.count <= 128 else {
            throw ServerAPIError.invalidRequestIdentifier
        }
        let record = try await transaction(text, bundleID: bundleID)
        guard record.id == record.originalID, record.productType == .autoRenewable else { throw ServerAPIError.invalidOriginalTransactionID }
        guard record.origin != .familyShare else { throw ServerAPIError.familySharedSubscriptionExtensionIneligible }
        let subscription = try await engine.subscription(forTransaction: id)
        let now = engine.clock.now()
        guard subscription.status == .active, subscription.isActive(at: now) else { throw ServerAPIError.subscriptionExtensionIneligible }
        guard (subscription.renewalExtensionDates ?? []).filter({ $0 > now.addingTimeInterval(-365 * 86_400) }).count < 2 else {
            throw ServerAPIError.subscriptionMaxExtension
        }
        let extended = try await engine.extendRenewalDate(subscription: id, byDays: days)
        return ExtendRenewalDateResponse(
            originalTransactionId: String(id), webOrderLineItemId: String(extended.latestTransactionID), success: true,
            effectiveDate: Int64((extended.expiresDate.timeIntervalSince1970 * 1000).rounded())
        )
    }

    /// A date as the signed payloads write it: whole milliseconds since 1970, rounded.
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The customer's transactions in the app that the App Store keeps: completed ones, not the device-side
    /// replays a restore makes.
    private func customerTransactions(accountID: String, bundleID: String) async throws -> [TransactionRecord] {
        try await engine.transactions(TransactionQuery(accountID: accountID, bundleID: bundleID))
            .filter { $0.state.isCompleted && $0.origin != .restore }
    }

    /// A page of the customer's transaction history in the app, filtered and sorted as the query asks. Version 1,
    /// like the receipt it replaced, leaves out consumables the app has finished; version 2 lists them.
    private func history(_ request: Request, accountID: String, bundleID: String, version: Int) async throws -> HistoryResponse {
        let query = request.uri.queryParameters
        var transactions = try await customerTransactions(accountID: accountID, bundleID: bundleID)
        if version == 1 {
            let finished = try await engine.finishedConsumables(among: transactions)
            transactions.removeAll { finished.contains($0.id) }
        }
        // Dates compare at the millisecond the signed transaction carries: purchaseDate >= startDate, < endDate.
        if let text = query["startDate"] {
            guard let start = Int64(text) else { throw ServerAPIError.invalidStartDate }
            transactions = transactions.filter { Self.milliseconds($0.purchaseDate) >= start }
        }
        if let text = query["endDate"] {
            guard let end = Int64(text) else { throw ServerAPIError.invalidEndDate }
            transactions = transactions.filter { Self.milliseconds($0.purchaseDate) < end }
        }
        let productIDs = Set(query.getAll("productId").map { String($0) })
        if !productIDs.isEmpty { transactions = transactions.filter { productIDs.contains($0.productID) } }
        let typeNames: [String: ProductType] = [
            "AUTO_RENEWABLE": .autoRenewable, "NON_RENEWABLE": .nonRenewable, "CONSUMABLE": .consumable, "NON_CONSUMABLE": .nonConsumable,
        ]
        let types = try Set(query.getAll("productType").map { name in
            guard let type = typeNames[String(name)] else { throw ServerAPIError.invalidProductType }
            return type
        })
        if !types.isEmpty { transactions = transactions.filter { types.contains($0.productType) } }
        let groups = Set(query.getAll("subscriptionGroupIdentifier").map { String($0) })
        if !groups.isEmpty { transactions = transactions.filter { $0.subscriptionGroupID.map { groups.contains($0) } ?? false } }
        if let text = query["inAppOwnershipType"] {
            guard let ownership = InAppOwnershipType(rawValue: String(text)) else { throw ServerAPIError.invalidOwnershipType }
            transactions = transactions.filter { $0.ownershipType == ownership }
        }
        if let text = query["revoked"] {
            // Apple's Python client sends Python's spelling, True or False.
            guard let revoked = Bool(text.lowercased()) else { throw ServerAPIError.invalidRevoked }
            transactions = transactions.filter { $0.isRevoked == revoked }
        }
        switch query["sort"].map(String.init) {
        case nil, "ASCENDING": break
        case "DESCENDING": transactions.reverse()
        default: throw ServerAPIError.invalidSort
        }
        let page = try Page(transactions, after: query["revision"].map(String.init), invalid: .invalidRevision)
        var signed: [String] = []
        for record in page.items { signed.append(try engine.signedTransaction(record)) }
        return HistoryResponse(
            revision: page.token, hasMore: page.hasMore, bundleId: bundleID, appAppleId: await engine.appAppleID(bundleID: bundleID),
            environment: engine.environment.rawValue, signedTransactions: signed
        )
    }

    /// A page of the app's notification history: every notification recorded in the date range, signed now, with
    /// its send attempts.
    private func notificationHistory(_ body: NotificationHistoryRequest, token: String?, bundleID: String) async throws -> NotificationHistoryResponse {
        guard let startMilliseconds = body.startDate else { throw ServerAPIError.invalidStartDate }
        guard let endMilliseconds = body.endDate else { throw ServerAPIError.invalidEndDate }
        guard startMilliseconds < endMilliseconds else { throw ServerAPIError.startDateAfterEndDate }
        guard body.notificationType == nil || body.transactionId == nil else { throw ServerAPIError.multipleFilters }
        var notifications = try await engine.notifications(NotificationQuery(
            bundleID: bundleID, startDate: Date(timeIntervalSince1970: Double(startMilliseconds) / 1000),
            endDate: Date(timeIntervalSince1970: Double(endMilliseconds) / 1000)
        ))
        if let type = body.notificationType {
            guard NotificationTypeV2(rawValue: type) != nil else { throw ServerAPIError.invalidNotificationType }
            notifications = notifications.filter { $0.type.rawValue == type }
        }
        if let subtype = body.notificationSubtype {
            guard Subtype(rawValue: subtype) != nil else { throw ServerAPIError.invalidNotificationType }
            notifications = notifications.filter { $0.subtype?.rawValue == subtype }
        }
        if let transactionID = body.transactionId {
            let record = try await transaction(transactionID, bundleID: bundleID)
            notifications = notifications.filter { $0.accountID == record.accountID }
        }
        if body.onlyFailures == true {
            notifications = notifications.filter { $0.delivery.state != .delivered }
        }
        let page = try Page(notifications, after: token, invalid: .invalidPaginationToken)
        var items: [NotificationHistoryResponse.Item] = []
        for notification in page.items {
            items.append(NotificationHistoryResponse.Item(
                signedPayload: try await engine.signedNotification(notification),
                sendAttempts: notification.delivery.attempts.map(NotificationHistoryResponse.Attempt.init)
            ))
        }
        return NotificationHistoryResponse(paginationToken: page.token, hasMore: page.hasMore, notificationHistory: items)
    }

    /// Every auto-renewable subscription of the account in the app, by group, with its latest transaction and renewal
    /// info, keeping only the given statuses when some are given.
    private func subscriptionStatuses(accountID: String, bundleID: String, statuses: Set<Int32>?) async throws -> StatusResponse {
        var groups: [String: [StatusResponse.LastTransaction]] = [:]
        var order: [String] = []
        for subscription in try await engine.subscriptions(accountID: accountID, bundleID: bundleID) {
            let status = subscription.appleStatus.rawValue
            guard statuses?.contains(status) ?? true else { continue }
            let latest = try await engine.transaction(subscription.latestTransactionID)
            let item = StatusResponse.LastTransaction(
                status: status, originalTransactionId: String(subscription.id),
                signedTransactionInfo: try engine.signedTransaction(latest),
                signedRenewalInfo: try await engine.signedRenewalInfo(subscription: subscription.id)
            )
            if groups[subscription.groupID] == nil { order.append(subscription.groupID) }
            groups[subscription.groupID, default: []].append(item)
        }
        return StatusResponse(
            environment: engine.environment.rawValue, bundleId: bundleID, appAppleId: await engine.appAppleID(bundleID: bundleID),
            data: order.map { StatusResponse.Group(subscriptionGroupIdentifier: $0, lastTransactions: groups[$0] ?? []) }
        )
    }
}
