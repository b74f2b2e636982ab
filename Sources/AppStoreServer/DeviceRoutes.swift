import AppStoreDeviceProtocol
import AppStoreEngine
import AppStoreFormats
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// The device protocol: what an app process's `HTTPStoreConnection` calls, one route per `StoreConnection`
/// method, plus the long poll that tells devices when to look again. See `DeviceProtocol` for the routes.
struct DeviceRoutes {
    let engine: StoreEngine
    let feed: ChangeFeed

    func add(to router: Router<StoreRequestContext>) {
        router.get(RouterPath(DeviceProtocol.Route.settings)) { _, _ in
            try await answer { try await engine.currentSettings() }
        }
        router.get(RouterPath(DeviceProtocol.Route.products)) { request, _ in
            try await answer {
                let identifiers = Set(request.uri.queryParameters.getAll("id").map { String($0) })
                // Read anew: the tenant's catalog may have been changed through another server on the storage.
                return try await engine.currentCatalog().products.filter { identifiers.contains($0.id) }
            }
        }
        router.get(RouterPath(DeviceProtocol.Route.account)) { request, _ in
            try await answer { try await engine.account(try request.required("id")) }
        }
        router.post(RouterPath(DeviceProtocol.Route.purchases)) { request, context in
            try await answer {
                var purchase = try await request.body(PurchaseRequest.self, context: context)
                purchase.idempotencyKey = request.idempotencyKey ?? purchase.idempotencyKey
                return try await engine.purchase(purchase)
            }
        }
        router.post(RouterPath(DeviceProtocol.Route.finish)) { request, context in
            try await answer {
                let finish = try await request.body(FinishRequest.self, context: context)
                try await engine.finish(transactionID: finish.transactionID, deviceID: finish.deviceID)
                return Empty()
            }
        }
        router.get(RouterPath(DeviceProtocol.Route.unfinished)) { request, _ in
            try await answer {
                try await engine.unfinishedTransactions(
                    accountID: try request.required("account"), bundleID: try request.required("bundle"), deviceID: try request.uuid("device")
                )
            }
        }
        router.post(RouterPath(DeviceProtocol.Route.transactions)) { request, context in
            try await answer { try await engine.transactions(try await request.body(TransactionQuery.self, context: context)) }
        }
        router.post(RouterPath(DeviceProtocol.Route.restores)) { request, context in
            try await answer {
                let device = try await request.body(DeviceRequest.self, context: context)
                return try await engine.restoreCompletedTransactions(accountID: device.accountID, bundleID: device.bundleID, deviceID: device.deviceID)
            }
        }
        router.get(RouterPath(DeviceProtocol.Route.purchaseIntents)) { request, _ in
            try await answer { try await engine.purchaseIntents(accountID: try request.required("account"), bundleID: try request.required("bundle")) }
        }
        router.delete(RouterPath(DeviceProtocol.Route.purchaseIntents)) { request, _ in
            try await answer {
                try await engine.removePurchaseIntent(try request.uuid("id"))
                return Empty()
            }
        }
        router.post(RouterPath(DeviceProtocol.Route.offerCodes)) { request, context in
            try await answer {
                let redemption = try await request.body(OfferCodeRequest.self, context: context)
                return try await engine.redeemOfferCode(redemption.code, accountID: redemption.accountID, bundleID: redemption.bundleID)
            }
        }
        router.get(RouterPath(DeviceProtocol.Route.subscriptions)) { request, _ in
            try await answer { try await engine.subscriptions(accountID: try request.required("account"), bundleID: try request.required("bundle")) }
        }
        router.get(RouterPath(DeviceProtocol.Route.receipt)) { request, _ in
            do {
                let receipt = try await engine.appReceipt(
                    accountID: try request.required("account"), bundleID: try request.required("bundle"),
                    deviceID: try request.uuid("device"), appVersion: request.uri.queryParameters["version"].map(String.init) ?? StoreDefaults.appVersion
                )
                return Response(
                    status: .ok, headers: [.contentType: "application/pkcs7-mime", Self.versionField: DeviceProtocol.version],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: receipt))
                )
            } catch {
                return try refusal(error)
            }
        }
        router.get(RouterPath(DeviceProtocol.Route.rootCertificates)) { _, _ in
            try await answer { try engine.rootCertificates }
        }
        router.post(RouterPath(DeviceProtocol.Route.signedTransactions)) { request, context in
            try await answer {
                let signing = try await request.body(SignedTransactionsRequest.self, context: context)
                return try await engine.signedTransactions(signing.transactionIDs, deviceVerificationID: signing.deviceID)
            }
        }
        router.post(RouterPath(DeviceProtocol.Route.signedRenewalInfo)) { request, context in
            try await answer {
                let signing = try await request.body(SignedRenewalInfoRequest.self, context: context)
                return try await engine.signedRenewalInfo(subscriptions: signing.subscriptionIDs, deviceVerificationID: signing.deviceID)
            }
        }
        router.get(RouterPath(DeviceProtocol.Route.appTransaction)) { request, _ in
            try await answer {
                try await engine.signedAppTransaction(
                    accountID: try request.required("account"), bundleID: try request.required("bundle"), deviceVerificationID: try request.uuid("device"),
                    appVersion: request.uri.queryParameters["version"].map(String.init) ?? StoreDefaults.appVersion
                )
            }
        }
        router.post(RouterPath(DeviceProtocol.Route.refundRequests)) { request, context in
            try await answer {
                let refund = try await request.body(RefundRequest.self, context: context)
                try await engine.requestRefund(
                    transactionID: refund.transactionID, accountID: refund.accountID, approve: refund.approve,
                    reason: refund.reason.flatMap(ConsumptionRequestReason.init(rawValue:)) ?? .other
                )
                return Empty()
            }
        }
        router.post(RouterPath(DeviceProtocol.Route.externalPurchaseTokens)) { request, context in
            try await answer {
                let asked = try await request.body(ExternalPurchaseTokenRequest.self, context: context)
                guard let name = asked.tokenType else {
                    return [try await engine.issueExternalPurchaseToken(accountID: asked.accountID, bundleID: asked.bundleID)]
                }
                guard let type = ExternalPurchaseTokenType(rawValue: name) else {
                    throw DeviceRequestError(message: "tokenType \"\(name)\" is not ACQUISITION or SERVICES.")
                }
                let token = try await engine.externalPurchaseCustomLinkToken(type: type, accountID: asked.accountID, bundleID: asked.bundleID)
                return token.map { [$0] } ?? []
            }
        }
        router.get(RouterPath(DeviceProtocol.Route.changes)) { request, _ in
            try await answer {
                let parameters = request.uri.queryParameters
                let epoch = parameters["epoch"].flatMap { UUID(uuidString: String($0)) }
                let after = parameters["after"].flatMap { UInt64(String($0)) }
                let seconds = parameters["wait"].flatMap { Int(String($0)) }
                let wait = seconds.map { min(Duration.seconds(max($0, 0)), DeviceProtocol.longestChangeWait) } ?? DeviceProtocol.defaultChangeWait
                // A long poll must not hold up a graceful shutdown, which waits for the requests in flight.
                return await withGracefulShutdownHandler {
                    await feed.changes(epoch: epoch, after: after, wait: wait)
                } onGracefulShutdown: { [feed] in
                    Task { await feed.close() }
                }
            }
        }
    }

    private static let versionField = HTTPField.Name(DeviceProtocol.versionHeader)!

    /// Runs `body` and answers its value as the protocol's JSON, or the store's refusal.
    private func answer(_ body: () async throws -> some Encodable) async throws -> Response {
        do {
            return try json(try await body(), status: .ok)
        } catch {
            return try refusal(error)
        }
    }

    private func refusal(_ error: any Error) throws -> Response {
        switch error {
        case let error as StoreError:
            return try json(DeviceErrorBody(error: error.identifier, message: error.message), status: error.httpStatus)
        case let error as DeviceRequestError:
            return try json(DeviceErrorBody(error: DeviceErrorBody.badRequest, message: error.message), status: .badRequest)
        default:
            throw error
        }
    }

    private func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json", Self.versionField: DeviceProtocol.version],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try DeviceProtocol.makeEncoder().encode(value)))
        )
    }

    /// The answer of routes that return nothing.
    private struct Empty: Encodable {}
}

/// A device request the server cannot read, with what is missing.
struct DeviceRequestError: Error {
    let message: String
}

extension Request {
    fileprivate func required(_ name: String) throws(DeviceRequestError) -> String {
        guard let value = uri.queryParameters[Substring(name)], !value.isEmpty else {
            throw DeviceRequestError(message: "The query parameter \"\(name)\" is missing from \(uri.path).")
        }
        return String(value)
    }

    fileprivate func uuid(_ name: String) throws(DeviceRequestError) -> UUID {
        let text = try required(name)
        guard let id = UUID(uuidString: text) else {
            throw DeviceRequestError(message: "The query parameter \"\(name)\" is \"\(text)\", not a UUID.")
        }
        return id
    }

    /// The body read through the context's request decoder (the package's one reader; the device protocol's dates are
    /// `Date`'s own form, as that reader's default).
    fileprivate func body<Body: Decodable>(_ type: Body.Type, context: StoreRequestContext) async throws -> Body {
        do {
            return try await decode(as: type, context: context)
        } catch {
            throw DeviceRequestError(message: "The body of \(uri.path) is not a \(Body.self) in the device protocol's JSON: \(error).")
        }
    }
}
