import AppStoreEngine
import AppStoreFormats
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StoreKitConfiguration

/// The body of `POST /control/purchases`.
struct ControlPurchaseRequest: Decodable {
    var productId: String
    var account: String?
    var bundleId: String?
    var quantity: Int?
    /// An offer code's reference name, to redeem it with the purchase.
    var offerCode: String?
    /// The billing plan of a subscription purchase: `MONTHLY` bills monthly with a 12-month commitment.
    var billingPlanType: String?
}

/// The body of `POST /control/clock/advance`: `by` a duration such as `1mo2d`, or `to` an ISO 8601 date.
struct ControlClockRequest: Decodable {
    var by: String?
    var to: String?
}

/// `GET /control/clock`, and what moving it answers.
struct ControlClockResponse: Encodable {
    var now: String
    var timeRate: Int
    /// After a move: the notifications the renewals, expiries and retries on the way wrote, oldest first.
    var fired: [NotificationLogEntry]?
}

/// The body of `PUT /control/settings`: the switches to change; others stay.
struct ControlSettingsRequest: Decodable {
    var storefront: String?
    var locale: String?
    var environment: String?
    var askToBuyEnabled: Bool?
    var interruptedPurchasesEnabled: Bool?
    var failTransactionsEnabled: Bool?
    var failureErrorCode: Int?
    var renewalBillingIssuesEnabled: Bool?
    var billingGracePeriodEnabled: Bool?
    var renewalLimit: Int?
    var refundRequestsAwaitDecision: Bool?
}

/// The body of `POST /control/transactions/{id}/refund-request`, optional: a customer's refund request, as
/// `beginRefundRequest` makes it. `reason` is Apple's `consumptionRequestReason` (`OTHER` by default); `approve`
/// (true by default) decides it when the store does not wait for decisions; `account` is the transaction's by default.
struct ControlRefundRequestRequest: Decodable {
    var reason: String?
    var approve: Bool?
    var account: String?
}

/// The body of `POST /control/transactions/{id}/refund-request/decision`: `{"decision": "refund"}`,
/// `{"decision": "prorated", "revocationPercentage": 50000}` or `{"decision": "decline"}`, with an optional `reason`
/// (`app-issue` or `other`) for a refund's `revocationReason`; `revocationPercentage` counts for `prorated` only.
struct ControlRefundDecisionRequest: Decodable {
    var decision: String
    var revocationPercentage: Int?
    var reason: String?
}

/// The body of `POST /control/transactions/{id}/refund`, optional: `{"reason": "app-issue"}` for Apple's
/// `revocationReason` 1, else 0.
struct ControlRefundRequest: Decodable {
    var reason: String?
}

/// The body of `PUT /control/notification-url`: where an app's notifications go (every app's without `bundleId`);
/// `null` stops sending them.
struct ControlNotificationURLRequest: Decodable {
    var url: String?
    var bundleId: String?
}

/// The body of ``ControlOperation/rescindConsent``: the child's account and the app.
struct ControlRescindConsentRequest: Decodable {
    var account: String
    var bundleId: String?
}

/// The body of ``ControlOperation/createExternalPurchaseToken``.
struct ControlExternalPurchaseTokenRequest: Decodable {
    var account: String
    var bundleId: String?
    var tokenType: String?
}

/// The body of `POST /control/offer-codes`: a code redeemed outside any app.
struct ControlOfferCodeRequest: Decodable {
    var code: String
    var account: String?
    var bundleId: String?
}

/// The body of `PUT /control/clock/rate`: Apple's `SKTestSession.TimeRate` case name, or `null` for the configuration's.
struct ControlRateRequest: Decodable {
    var timeRate: String?
}

/// The body of `POST /control/purchase-intents` (a promoted purchase) and of family membership changes.
struct ControlAccountRequest: Decodable {
    var productId: String?
    var account: String?
    var bundleId: String?
    /// For a purchase intent: the win-back offer the customer chose.
    var winBackOfferId: String?
}

/// The body of subscription switches: `{"enabled": true}` for auto-renew, `{"consented": true}` for a price increase.
struct ControlSwitchRequest: Decodable {
    var enabled: Bool?
    var consented: Bool?
}

/// What `SKTestSession` is to Swift, over HTTP for every other language: buy, act on transactions and subscriptions,
/// move the clock and flip the test switches of the running store.
struct ControlRoutes {
    let engine: StoreEngine
    /// What sends the store's notifications; `nil` when the server sends none.
    let notificationSender: NotificationSender?

    func add(to router: Router<StoreRequestContext>) {
        router.on(.getOpenAPIDocument) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: ControlAPIDocument.json))
            )
        }
        router.on(.getClock) { _, _ in
            try await answer { ControlClockResponse(now: engine.clock.now().formatted(.iso8601), timeRate: await engine.settings.timeRate.rawValue) }
        }
        router.on(.advanceClock) { request, context in
            let body = try? await request.decode(as: ControlClockRequest.self, context: context)
            return try await answer {
                let before = engine.clock.now()
                let earlier = Set(try await engine.notifications(NotificationQuery(startDate: before)).map(\.id))
                if let text = body?.by {
                    let now = engine.clock.now()
                    guard let duration = ClockDuration(parsing: text), let target = duration.added(to: now) else {
                        throw ControlError.badRequest("\"\(text)\" is not a duration. Write numbers with units: \(ClockDuration.unitsHelp).")
                    }
                    try await checkClockMove(to: target)
                    try await engine.advanceClock(to: target)
                } else if let text = body?.to {
                    guard let date = try? Date(text, strategy: .iso8601) else {
                        throw ControlError.badRequest("\"\(text)\" is not an ISO 8601 date such as 2027-01-01T00:00:00Z.")
                    }
                    try await checkClockMove(to: date)
                    try await engine.advanceClock(to: date)
                } else {
                    throw ControlError.badRequest("Give {\"by\": \"1mo\"} or {\"to\": \"2027-01-01T00:00:00Z\"}.")
                }
                let fired = try await engine.notifications(NotificationQuery(startDate: before)).filter { !earlier.contains($0.id) }
                return ControlClockResponse(
                    now: engine.clock.now().formatted(.iso8601), timeRate: await engine.settings.timeRate.rawValue,
                    fired: fired.map(NotificationLogEntry.init)
                )
            }
        }
        router.on(.setTimeRate) { request, context in
            let body = try? await request.decode(as: ControlRateRequest.self, context: context)
            return try await answer {
                guard let body else { throw ControlError.badRequest(#"Give {"timeRate": "oneRenewalEveryTenSeconds"}, or {"timeRate": null} for the configuration's."#) }
                let rate: TimeRate? = try body.timeRate.map { name in
                    guard let rate = TimeRate.allCases.first(where: { String(describing: $0) == name }) else {
                        throw ControlError.badRequest("Unknown time rate \"\(name)\". Use one of Apple's: \(TimeRate.allCases.map { String(describing: $0) }.joined(separator: ", ")).")
                    }
                    return rate
                }
                try await engine.setTimeRate(rate)
                return ControlClockResponse(now: engine.clock.now().formatted(.iso8601), timeRate: await engine.settings.timeRate.rawValue)
            }
        }
        router.on(.addPurchaseIntent) { request, context in
            let body = try? await request.decode(as: ControlAccountRequest.self, context: context)
            return try await answer {
                guard let productID = body?.productId else {
                    throw ControlError.badRequest(#"Give {"productId": …} and optionally account, bundleId and winBackOfferId."#)
                }
                return try await engine.addPurchaseIntent(
                    productID: productID, accountID: body?.account ?? StoreDefaults.accountID, bundleID: body?.bundleId ?? StoreDefaults.bundleID,
                    winBackOfferID: body?.winBackOfferId
                )
            }
        }
        router.on(.redeemOfferCode) { request, context in
            let body = try? await request.decode(as: ControlOfferCodeRequest.self, context: context)
            return try await answer {
                guard let body else { throw ControlError.badRequest(#"Give {"code": "Launch code"} (the code offer's reference name) and optionally account and bundleId."#) }
                return try await transactionOutput(try await engine.redeemOfferCode(
                    body.code, accountID: body.account ?? StoreDefaults.accountID, bundleID: body.bundleId ?? StoreDefaults.bundleID
                ))
            }
        }
        router.on(.joinFamily) { request, context in
            let body = try? await request.decode(as: ControlAccountRequest.self, context: context)
            return try await answer {
                guard let account = body?.account, let family = context.parameters.get("family") else {
                    throw ControlError.badRequest(#"Give {"account": "bob"} to add to the family in the path."#)
                }
                let shared = try await engine.joinFamily(accountID: account, familyID: family)
                return ["shared": shared.map { String($0.id) }]
            }
        }
        router.on(.leaveFamily) { _, context in
            try await answer {
                let revoked = try await engine.leaveFamily(accountID: context.parameters.get("account") ?? "")
                return ["revoked": revoked.map { String($0.id) }]
            }
        }
        router.on(.getSettings) { _, _ in
            try await answer { try await engine.currentSettings() }
        }
        router.on(.updateSettings) { request, context in
            let body = try? await request.decode(as: ControlSettingsRequest.self, context: context)
            return try await answer {
                guard let body else { throw ControlError.badRequest("The body is not a settings object; see the control API documentation for its fields.") }
                if let storefront = body.storefront, Storefront.named(storefront) == nil {
                    throw ControlError.badRequest("Unknown storefront \"\(storefront)\". Use an ISO 3166-1 alpha-3 code such as USA or FRA.")
                }
                if let environment = body.environment, !StoreSettings.signingEnvironments.contains(environment) {
                    throw ControlError.badRequest("Unknown environment \"\(environment)\". Use \(StoreSettings.signingEnvironments.joined(separator: ", ")).")
                }
                try await engine.updateSettings { settings in
                    if let value = body.storefront { settings.storefront = value }
                    if let value = body.locale { settings.locale = value }
                    if let value = body.environment { settings.environment = value }
                    if let value = body.askToBuyEnabled { settings.askToBuyEnabled = value }
                    if let value = body.interruptedPurchasesEnabled { settings.interruptedPurchasesEnabled = value }
                    if let value = body.failTransactionsEnabled { settings.failTransactionsEnabled = value }
                    if let value = body.failureErrorCode { settings.failureErrorCode = value }
                    if let value = body.renewalBillingIssuesEnabled { settings.renewalBillingIssuesEnabled = value }
                    if let value = body.billingGracePeriodEnabled { settings.billingGracePeriodEnabled = value }
                    if let value = body.renewalLimit { settings.renewalLimit = value > 0 ? value : nil }
                    if let value = body.refundRequestsAwaitDecision { settings.refundRequestsAwaitDecision = value }
                }
                return await engine.settings
            }
        }
        router.on(.purchase) { request, context in
            let body = try? await request.decode(as: ControlPurchaseRequest.self, context: context)
            return try await answer {
                guard let body else { throw ControlError.badRequest("Give {\"productId\": …} and optionally account, bundleId, quantity, offerCode, billingPlanType.") }
                let record = try await engine.purchase(PurchaseRequest(
                    productID: body.productId, accountID: body.account ?? StoreDefaults.accountID,
                    bundleID: body.bundleId ?? StoreDefaults.bundleID, quantity: body.quantity ?? 1,
                    offer: body.offerCode.map(OfferRedemption.code), idempotencyKey: request.idempotencyKey,
                    billingPlanType: body.billingPlanType.map(BillingPlanType.init(rawValue:))
                ))
                return try await transactionOutput(record)
            }
        }
        router.on(.listTransactions) { request, _ in
            try await answer {
                let parameters = request.uri.queryParameters
                let query = TransactionQuery(accountID: parameters["account"].map(String.init), bundleID: parameters["bundleId"].map(String.init))
                return try await engine.transactions(query).map { TransactionSummary($0) }
            }
        }
        router.on(.clearTransactions) { _, _ in
            try await answer {
                try await engine.clearTransactions()
                return ["deleted": "all"]
            }
        }
        router.on(.getTransaction) { _, context in
            try await answer { try await transactionOutput(try await engine.transaction(try id(context))) }
        }
        for action in [ControlOperation.refundTransaction, .approveTransaction, .declineTransaction, .resolveTransaction] {
            router.on(action) { request, context in
                let reason = (try? await request.decode(as: ControlRefundRequest.self, context: context))?.reason
                return try await answer {
                    let id = try id(context)
                    let record: TransactionRecord = switch action {
                    case .refundTransaction:
                        try await engine.refund(transactionID: id, reason: reason == "app-issue" ? .refundedDueToIssue : .refundedForOtherReason)[0]
                    case .approveTransaction: try await engine.approveAskToBuy(transactionID: id)
                    case .declineTransaction: try await engine.declineAskToBuy(transactionID: id)
                    default: try await engine.resolveIssue(transactionID: id)
                    }
                    return try await transactionOutput(record)
                }
            }
        }
        router.on(.requestRefund) { request, context in
            let body = try? await request.decode(as: ControlRefundRequestRequest.self, context: context)
            return try await answer {
                let id = try id(context)
                let reason = try body?.reason.map { text in
                    guard let reason = ConsumptionRequestReason(rawValue: text) else {
                        throw ControlError.badRequest("\"\(text)\" is not a consumptionRequestReason. Use one of \(ConsumptionRequestReason.allCases.map(\.rawValue).joined(separator: ", ")).")
                    }
                    return reason
                } ?? .other
                var accountID = body?.account
                if accountID == nil { accountID = try await engine.transaction(id).accountID }
                try await engine.requestRefund(transactionID: id, accountID: accountID ?? "", approve: body?.approve ?? true, reason: reason)
                return try await transactionOutput(try await engine.transaction(id))
            }
        }
        router.on(.decideRefundRequest) { request, context in
            let body = try? await request.decode(as: ControlRefundDecisionRequest.self, context: context)
            return try await answer {
                let decision: RefundDecision
                // A percentage only counts for a prorated refund (the page sends its field with every decision).
                switch (body?.decision, body?.revocationPercentage) {
                case ("refund", _): decision = .refundFull
                case ("prorated", let percentage?): decision = .refundProrated(percentage: percentage)
                case ("decline", _): decision = .decline
                default:
                    throw ControlError.badRequest(#"Give {"decision": "refund"}, {"decision": "prorated", "revocationPercentage": 50000} (milli-percent) or {"decision": "decline"}."#)
                }
                let reason: RevocationReason = body?.reason == "app-issue" ? .refundedDueToIssue : .refundedForOtherReason
                return try await transactionOutput(try await engine.decideRefundRequest(transactionID: try id(context), decision, reason: reason)[0])
            }
        }
        router.on(.reverseRefund) { _, context in
            try await answer { try await transactionOutput(try await engine.reverseRefund(transactionID: try id(context))[0]) }
        }
        router.on(.deleteTransaction) { _, context in
            try await answer { ["deleted": try await engine.deleteTransaction(try id(context)).map(String.init)] }
        }
        for action in [
            ControlOperation.subscriptionRenew, .subscriptionExpire, .subscriptionAutoRenew, .subscriptionPriceIncrease, .subscriptionPriceIncreaseAnswer,
        ] {
            router.on(action) { request, context in
                let body = try? await request.decode(as: ControlSwitchRequest.self, context: context)
                return try await answer {
                    let subscription = try await engine.subscription(forTransaction: try id(context)).id
                    switch action {
                    case .subscriptionRenew: try await engine.renewSubscription(subscription)
                    case .subscriptionExpire: try await engine.expireSubscription(subscription)
                    case .subscriptionAutoRenew:
                        guard let enabled = body?.enabled else { throw ControlError.badRequest("Give {\"enabled\": true} or {\"enabled\": false}.") }
                        try await engine.setAutoRenew(subscription: subscription, enabled: enabled)
                    case .subscriptionPriceIncrease: try await engine.requestPriceIncreaseConsent(subscription: subscription)
                    default:
                        guard let consented = body?.consented else { throw ControlError.badRequest("Give {\"consented\": true} or {\"consented\": false}.") }
                        try await engine.answerPriceIncrease(subscription: subscription, consented: consented)
                    }
                    return try await engine.subscription(forTransaction: subscription)
                }
            }
        }
        router.on(.listSubscriptions) { request, _ in
            try await answer {
                let parameters = request.uri.queryParameters
                return try await engine.subscriptions(
                    accountID: parameters["account"].map(String.init) ?? StoreDefaults.accountID, bundleID: parameters["bundleId"].map(String.init)
                )
            }
        }
        router.on(.getNotificationURL) { _, _ in
            try await answer {
                guard let notificationSender else { throw ControlError.badRequest("This server sends no notifications.") }
                return try await notificationSender.destinations()
            }
        }
        router.on(.setNotificationURL) { request, context in
            let body = try? await request.decode(as: ControlNotificationURLRequest.self, context: context)
            return try await answer {
                guard let notificationSender else { throw ControlError.badRequest("This server sends no notifications.") }
                guard let body else { throw ControlError.badRequest(#"Give {"url": "http://127.0.0.1:9000/notifications"} and optionally "bundleId"; a null url stops sending."#) }
                let url = try body.url.map { text in
                    guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                        throw ControlError.badRequest("\"\(text)\" is not an http or https URL such as http://127.0.0.1:9000/notifications.")
                    }
                    return url
                }
                var destinations = try await notificationSender.destinations()
                if let bundleID = body.bundleId { destinations.urlsByBundleID[bundleID] = url } else { destinations.defaultURL = url }
                try await notificationSender.setDestinations(destinations)
                await notificationSender.start()
                return destinations
            }
        }
        router.on(.listNotifications) { request, _ in
            try await answer {
                let parameters = request.uri.queryParameters
                let since = try parameters["since"].map { text in
                    guard let date = try? Date(String(text), strategy: .iso8601) else {
                        throw ControlError.badRequest("since=\"\(text)\" is not an ISO 8601 date such as 2027-01-01T00:00:00Z.")
                    }
                    return date
                }
                let query = NotificationQuery(bundleID: parameters["bundleId"].map(String.init), startDate: since)
                return try await engine.notifications(query).map(NotificationLogEntry.init)
            }
        }
        router.on(.getNotification) { _, context in
            try await answer { try await NotificationLogEntry.signed(try await engine.notification(id: try notificationID(context)), by: engine) }
        }
        router.on(.rescindConsent) { request, context in
            let body = try? await request.decode(as: ControlRescindConsentRequest.self, context: context)
            return try await answer {
                guard let body, !body.account.isEmpty else { throw ControlError.badRequest(#"Give {"account": "child", "bundleId": "com.example.app"}: the child's account and the app."#) }
                return NotificationLogEntry(try await engine.rescindConsent(accountID: body.account, bundleID: body.bundleId ?? StoreDefaults.bundleID))
            }
        }
        router.on(.createExternalPurchaseToken) { request, context in
            let body = try? await request.decode(as: ControlExternalPurchaseTokenRequest.self, context: context)
            return try await answer {
                guard let body, !body.account.isEmpty else {
                    throw ControlError.badRequest(#"Give {"account": "ana", "bundleId": "com.example.app", "tokenType": "SERVICES"}: the customer, the app, and ACQUISITION or SERVICES for a custom link token (none for a notice-sheet token)."#)
                }
                let bundleID = body.bundleId ?? StoreDefaults.bundleID
                guard let typeName = body.tokenType else {
                    return try ExternalPurchaseTokenEntry(try await engine.issueExternalPurchaseToken(accountID: body.account, bundleID: bundleID))
                }
                guard let type = ExternalPurchaseTokenType(rawValue: typeName) else {
                    throw ControlError.badRequest("tokenType \"\(typeName)\" is not a custom link token type: give ACQUISITION or SERVICES, or leave it out for a notice-sheet token.")
                }
                guard let token = try await engine.externalPurchaseCustomLinkToken(type: type, accountID: body.account, bundleID: bundleID) else {
                    throw ControlError.badRequest("Account \"\(body.account)\" already used its one ACQUISITION token period in \(bundleID), as Apple allows one per customer and app: use another account to test ACQUISITION again.")
                }
                return try ExternalPurchaseTokenEntry(token)
            }
        }
        router.on(.redeliverNotification) { _, context in
            try await answer { NotificationLogEntry(try await engine.redeliverNotification(id: try notificationID(context))) }
        }
        ControlEventStream(engine: engine).add(to: router)
    }

    /// The most renewal periods of the catalog's shortest subscription one move of the clock may cross.
    static let maximumPeriodsPerMove = 5_000

    /// Refuses a clock move the request could not wait for: one past the end of the store's certificates, or one
    /// across more than ``maximumPeriodsPerMove`` periods of the catalog's shortest subscription at the current time
    /// rate. Every period on the way renews every subscription and is applied before the answer, so at the fastest
    /// rates a move of years would keep the store busy for hours (found by schemathesis).
    private func checkClockMove(to target: Date) async throws {
        let now = engine.clock.now()
        let end = CertificateAuthority.defaultValidity.upperBound
        guard target <= end else {
            throw ControlError.badRequest("The clock can move up to \(end.formatted(.iso8601)), where the store's certificates end; \(target.formatted(.iso8601)) is later.")
        }
        let rate = await engine.settings.timeRate
        let lengths = await engine.catalog.products.compactMap { $0.subscription?.period }
            .map { rate.endOfPeriod($0, startingAt: now).timeIntervalSince(now) }.filter { $0 > 0 }
        guard let shortest = lengths.min(), target > now else { return }
        let periods = target.timeIntervalSince(now) / shortest
        guard periods <= Double(Self.maximumPeriodsPerMove) else {
            throw ControlError.badRequest(
                "Moving the clock to \(target.formatted(.iso8601)) crosses about \(Int(periods.rounded())) renewal periods of the shortest subscription (one every \(Int(shortest)) seconds at time rate \(rate)); one move may cross at most \(Self.maximumPeriodsPerMove). Move in smaller steps, or choose a slower time rate."
            )
        }
    }

    private func notificationID(_ context: StoreRequestContext) throws -> UUID {
        let text = context.parameters.get("uuid") ?? ""
        guard let id = UUID(uuidString: text) else {
            throw ControlError.badRequest("\"\(text)\" is not a notification identifier (a notificationUUID such as 6b3e5c1e-…).")
        }
        return id
    }

    private func id(_ context: StoreRequestContext) throws -> UInt64 {
        let text = context.parameters.get("id") ?? ""
        guard let id = UInt64(text) else { throw ControlError.badRequest("\"\(text)\" is not a transaction identifier such as 2000000000000001.") }
        return id
    }

    private func transactionOutput(_ record: TransactionRecord) async throws -> TransactionSummary {
        try await TransactionSummary.signed(record, by: engine)
    }

    /// Runs `body` and answers its value as JSON: 200, or `{"error": message}` with the status of the store's refusal
    /// (``AppStoreEngine/StoreError/httpStatus``).
    private func answer(_ body: () async throws -> some Encodable) async throws -> Response {
        do {
            return try json(try await body(), status: .ok)
        } catch let error as ControlError {
            return try json(["error": error.message], status: .badRequest)
        } catch let error as StoreError {
            return try json(["error": error.message], status: error.httpStatus)
        }
    }

    private func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        try ControlResponse.json(value, status: status)
    }
}

/// A control request the server cannot act on, with what to send instead.
struct ControlError: Error {
    let message: String
    static func badRequest(_ message: String) -> ControlError { ControlError(message: message) }
}
