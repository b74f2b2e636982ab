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
    var data: [Group]
}

/// The App Store Server API routes: authenticated with the store's API keys, answered from its engine.
struct ServerAPIRoutes {
    let engine: StoreEngine
    let authenticator: ServerAPIAuthenticator
    let logger: Logger

    func add(to router: Router<BasicRequestContext>) {
        let api = router.group("inApps")
        api.get("v1/transactions/:transactionId") { request, context in
            try await respond(to: request) { bundleID in
                let record = try await transaction(context.parameters.get("transactionId"), bundleID: bundleID)
                return try await TransactionInfoResponse(signedTransactionInfo: engine.signedTransaction(record))
            }
        }
        api.get("v1/subscriptions/:transactionId") { request, context in
            try await respond(to: request) { bundleID in
                let record = try await transaction(context.parameters.get("transactionId"), bundleID: bundleID)
                var statuses: Set<Int32>?
                for text in request.uri.queryParameters.getAll("status") {
                    guard let status = Int32(text), (1...5).contains(status) else { throw ServerAPIError.invalidStatus }
                    statuses = (statuses ?? []).union([status])
                }
                return try await subscriptionStatuses(accountID: record.accountID, bundleID: bundleID, statuses: statuses)
            }
        }
    }

    /// Authenticates the request, runs `body` for the token's app, and answers its value as JSON, or Apple's error.
    private func respond(to request: Request, _ body: (String) async throws -> some Encodable) async throws -> Response {
        let bundleID: String
        switch authenticator.bundleID(authorization: request.headers[.authorization]) {
        case .failure(let failure):
            logger.notice("App Store Server API request refused: \(failure.reason)")
            return Response(status: .unauthorized)
        case .success(let value):
            bundleID = value
        }
        do {
            return try Self.json(try await body(bundleID), status: .ok)
        } catch let error as ServerAPIError {
            return try Self.json(["errorCode": AnyEncodable(error.errorCode), "errorMessage": AnyEncodable(error.errorMessage)], status: error.status)
        }
    }

    /// The transaction with the identifier in the path, if it is the app's.
    private func transaction(_ text: String?, bundleID: String) async throws -> TransactionRecord {
        guard let text, let id = UInt64(text) else { throw ServerAPIError.invalidTransactionID }
        guard let record = try? await engine.transaction(id), record.bundleID == bundleID, record.state.isCompleted else {
            throw ServerAPIError.transactionIDNotFound
        }
        return record
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
                signedTransactionInfo: try await engine.signedTransaction(latest),
                signedRenewalInfo: try await engine.signedRenewalInfo(subscription: subscription.id)
            )
            if groups[subscription.groupID] == nil { order.append(subscription.groupID) }
            groups[subscription.groupID, default: []].append(item)
        }
        return StatusResponse(
            environment: await engine.environment.rawValue, bundleId: bundleID,
            data: order.map { StatusResponse.Group(subscriptionGroupIdentifier: $0, lastTransactions: groups[$0] ?? []) }
        )
    }

    private static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        let data = try JSONEncoder().encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

/// An `Encodable` of any type, for the small mixed dictionaries of error bodies.
private struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
