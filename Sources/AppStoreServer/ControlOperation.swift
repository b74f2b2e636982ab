import Foundation
public import HTTPTypes
import Hummingbird

/// An operation of the control API, named by its `operationId` in the OpenAPI document (`GET /control/openapi.json`).
///
/// The document is the one place an operation's method and path are written: the server registers each operation's
/// handler where the document puts it, and a client — the `storekit` command's — builds its requests from the same
/// values, so a route is written once, in the document. `ControlAPIDocumentTests` checks that every case names an
/// operation of the document and every operation has a case.
///
/// ```swift
/// let refund = ControlOperation.refundTransaction
/// refund.method                 // .post
/// refund.path(["id": "42"])     // "/control/transactions/42/refund"
/// ```
public enum ControlOperation: String, CaseIterable, Sendable {
    // Every case is an `operationId` of ControlAPI.json (ControlAPIDocumentTests checks both ways).

    /// The store clock.
    case getClock
    /// Moves the clock forward.
    case advanceClock
    /// How fast the clock runs.
    case setTimeRate
    /// The store's changes as server-sent events.
    case streamEvents
    /// Takes an account out of its family.
    case leaveFamily
    /// Puts an account in a family.
    case joinFamily
    /// The App Store Server API keys.
    case listKeys
    /// Makes an App Store Server API key.
    case createKey
    /// Revokes a key.
    case revokeKey
    /// Where notifications go.
    case getNotificationURL
    /// Sets where notifications go.
    case setNotificationURL
    /// The notification outbox.
    case listNotifications
    /// One notification, signed.
    case getNotification
    /// Sends a notification again.
    case redeliverNotification
    /// Redeems an offer code.
    case redeemOfferCode
    /// The document itself.
    case getOpenAPIDocument
    /// A promoted purchase.
    case addPurchaseIntent
    /// Buys a product.
    case purchase
    /// Withdraws a parent's consent for a child's use of an app (`RESCIND_CONSENT`).
    case rescindConsent
    /// Reviews a Retention Messaging image.
    case setImageReviewState
    /// Reviews a Retention Messaging message.
    case setMessageReviewState
    /// The test switches, storefront and locale.
    case getSettings
    /// Changes settings.
    case updateSettings
    /// An account's subscriptions.
    case listSubscriptions
    /// Turns auto-renew on or off.
    case subscriptionAutoRenew
    /// Expires a subscription.
    case subscriptionExpire
    /// Asks for consent to a price increase.
    case subscriptionPriceIncrease
    /// Answers a price increase.
    case subscriptionPriceIncreaseAnswer
    /// Renews a subscription now.
    case subscriptionRenew
    /// The server's tenants.
    case listTenants
    /// Creates a tenant.
    case createTenant
    /// Replaces what a tenant sells.
    case replaceTenantCatalog
    /// Everything a tenant holds.
    case exportTenant
    /// Replaces what a tenant holds.
    case importTenant
    /// Erases a tenant.
    case resetTenant
    /// Deletes a tenant.
    case deleteTenant
    /// The transactions.
    case listTransactions
    /// Deletes every transaction.
    case clearTransactions
    /// One transaction.
    case getTransaction
    /// Deletes a transaction.
    case deleteTransaction
    /// Approves an Ask to Buy request.
    case approveTransaction
    /// Declines an Ask to Buy request.
    case declineTransaction
    /// Refunds a transaction.
    case refundTransaction
    /// Asks for a refund as the customer would: decided at once, or pending App Store review.
    case requestRefund
    /// Decides a pending refund request: refund in full or prorated, or decline.
    case decideRefundRequest
    /// Reverses a refund: the purchase is restored.
    case reverseRefund
    /// Resolves an interrupted purchase or billing issue.
    case resolveTransaction
    /// Gets an external purchase token for a customer's app, as the app would.
    case createExternalPurchaseToken

    /// The operation's HTTP method, as the document gives it.
    public var method: HTTPRequest.Method { Self.routes[self].method }

    /// The operation's path as the document writes it, with `{name}` for each parameter, such as
    /// `/control/transactions/{id}/refund`.
    public var pathTemplate: String { Self.routes[self].path }

    /// The operation's path with each `{name}` replaced by `parameters[name]`, such as `/control/transactions/42/refund`
    /// for `["id": "42"]`. Values go in as they are written: the server matches path segments without decoding them.
    public func path(_ parameters: [String: String] = [:]) -> String {
        var path = pathTemplate
        for (name, value) in parameters {
            path = path.replacingOccurrences(of: "{\(name)}", with: value)
        }
        precondition(!path.contains("{"), "\(rawValue) needs a value for each parameter of \(pathTemplate)")
        return path
    }

    /// The method and path of every operation, read from the document once.
    private static let routes = Routes(document: ControlAPIDocument.json)

    private struct Routes: Sendable {
        private let byOperation: [ControlOperation: (method: HTTPRequest.Method, path: String)]

        init(document: String) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any],
                  let paths = object["paths"] as? [String: [String: Any]] else {
                preconditionFailure("ControlAPI.json is not an OpenAPI document with paths")
            }
            var byOperation: [ControlOperation: (method: HTTPRequest.Method, path: String)] = [:]
            for (path, operations) in paths {
                for (method, operation) in operations {
                    guard let id = (operation as? [String: Any])?["operationId"] as? String,
                          let known = ControlOperation(rawValue: id), let method = HTTPRequest.Method(method.uppercased()) else { continue }
                    byOperation[known] = (method, path)
                }
            }
            self.byOperation = byOperation
        }

        subscript(operation: ControlOperation) -> (method: HTTPRequest.Method, path: String) {
            guard let route = byOperation[operation] else {
                preconditionFailure("ControlAPI.json has no operation \(operation.rawValue): add it to the document")
            }
            return route
        }
    }
}

extension RouterMethods where Context == StoreRequestContext {
    /// Serves `operation` with `handler`, at the method and path the control API's document gives it.
    @discardableResult
    func on(_ operation: ControlOperation, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) -> Self {
        on(RouterPath(operation.pathTemplate), method: operation.method, use: handler)
    }
}
